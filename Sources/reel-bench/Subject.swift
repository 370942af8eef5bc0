import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// One player under measurement: its process and the MPRIS name it owns.
struct Subject {
    let label: String
    let busName: String
    let child: ChildProcess

    /// reeld on `files`, with a fresh queue, playing to `ao` (a server reached through `environment`).
    static func reeld(files: [URL], bus: PrivateBus, ao: String = "null", environment: [String: String] = [:],
                      paused: Bool = false, options: [String] = []) throws -> Subject {
        let child = try ChildProcess(Installed.reeld, ["--ao", ao, "--fresh"] + (paused ? ["--paused"] : []) + options + files.map(\.path),
                                     busAddress: bus.address, home: bus.dir, environment: environment)
        return Subject(label: "reeld", busName: "org.mpris.MediaPlayer2.reel", child: child)
    }

    /// mpv playing `files` as its own playlist, with mpv-mpris for MPRIS.
    static func mpvMPRIS(files: [URL], bus: PrivateBus, ao: String = "null", environment: [String: String] = [:],
                         paused: Bool = false) throws -> Subject {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpv"),
                                     ["--no-config", "--ao=\(ao)", "--no-video", "--idle=yes", "--no-terminal",
                                      "--script=/usr/lib/mpv-mpris/mpris.so"] + (paused ? ["--pause"] : []) + files.map(\.path),
                                     busAddress: bus.address, home: bus.dir, environment: environment)
        return Subject(label: "mpv + mpv-mpris", busName: "org.mpris.MediaPlayer2.mpv", child: child)
    }

    static func bareMPV(file: URL, bus: PrivateBus) throws -> Subject {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpv"),
                                     ["--no-config", "--ao=null", "--no-video", "--no-terminal", "--loop-file=inf", file.path],
                                     busAddress: bus.address, home: bus.dir)
        return Subject(label: "bare mpv --no-video", busName: "", child: child)
    }
}

/// A client connection that stamps every signal as it arrives.
final class SignalClock {
    let connection: Connection
    let name: String

    init(bus: PrivateBus, name: String) throws {
        connection = try Connection(address: bus.address)
        self.name = name
        try connection.addMatch("type='signal',path='/org/mpris/MediaPlayer2'")
    }

    func waitForOwner(timeout: Double = 20) throws {
        let deadline = monotonicNow() + Int64(timeout * 1e6)
        while monotonicNow() < deadline {
            let owned = try connection.callMethod("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                  "NameHasOwner", [.string(name)]).first?.bool
            if owned == true { return }
            _ = connection.nextMessage(timeoutMs: 20)
        }
        throw HarnessError("\(name) never appeared on the bus")
    }

    /// Sends a call without waiting for its reply; returns the send time.
    func send(_ interface: String, _ member: String, _ args: [DBusValue] = []) throws -> Int64 {
        let message = try Message.methodCall(destination: name, path: MPRIS.objectPath, interface: interface,
                                             member: member, args)
        let t = monotonicNow()
        connection.send(message)
        return t
    }

    /// Waits for the first signal that matches; returns it with its arrival time.
    func wait(timeout: Double = 5, for match: (Message) -> Bool, also: (Message, Int64) -> Void = { _, _ in })
        -> (Message, Int64)? {
        let deadline = monotonicNow() + Int64(timeout * 1e6)
        while monotonicNow() < deadline {
            guard let m = connection.nextMessage(timeoutMs: 50) else { continue }
            let t = monotonicNow()
            also(m, t)
            if m.kind == .signal, match(m) { return (m, t) }
        }
        return nil
    }

    /// Takes in whatever has arrived, for `seconds`, passing each signal on.
    func listen(_ seconds: Double, _ each: (Message, Int64) -> Void) {
        let deadline = monotonicNow() + Int64(seconds * 1e6)
        repeat {
            let left = deadline - monotonicNow()
            if let m = connection.nextMessage(timeoutMs: Int32(max(left / 1000, 0))) { each(m, monotonicNow()) }
        } while monotonicNow() < deadline
    }

    func player(_ member: String, _ args: [DBusValue] = []) throws {
        _ = try connection.callMethod(name, MPRIS.objectPath, MPRIS.player, member, args)
    }

    func get(_ property: String) throws -> DBusValue {
        try connection.getProperty(name, MPRIS.objectPath, MPRIS.player, property)
    }

    func set(_ property: String, _ value: DBusValue) throws {
        try connection.setProperty(name, MPRIS.objectPath, MPRIS.player, property, value)
    }
}

extension Message {
    var changed: [String: DBusValue] {
        guard member == "PropertiesChanged", arguments.first?.string == MPRIS.player else { return [:] }
        return arguments.dropFirst().first?.dictionary ?? [:]
    }
}
