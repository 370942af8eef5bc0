import Foundation
import ReelDBus

/// Runs `reel` commands against a daemon over D-Bus.
public final class Client {
    static let path = "/org/mpris/MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let trackList = "org.mpris.MediaPlayer2.TrackList"
    static let reel = "dev.reel.Daemon1"

    let connection: Connection
    let bus: String
    let output: (String, Bool) -> Void

    /// `write(text, newline)` prints the client's output.
    public init(connection: Connection, busName: String, write: @escaping (String, Bool) -> Void) {
        self.connection = connection
        self.bus = busName
        self.output = write
    }

    func write(_ text: String, newline: Bool = true) { output(text, newline) }

    /// Whether a daemon owns the bus name.
    public func daemonIsRunning() throws -> Bool {
        let reply = try connection.callMethod("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                              "NameHasOwner", [.string(bus)])
        return reply.first?.bool ?? false
    }

    public func run(_ command: CLICommand) throws {
        switch command {
        case .status(let json, let follow):
            if follow { try followStatus(json: json) } else { printStatus(try status(), json: json) }
        case .queue(let json): try printQueue(json: json)
        case .transport(let method): _ = try call(Client.player, method)
        case .seek(true, let micros): _ = try call(Client.player, "Seek", [.int64(micros)])
        case .seek(false, let micros):
            guard let track = try status().trackID else { throw BusError.failed("nothing is playing") }
            _ = try call(Client.player, "SetPosition", [.objectPath(track), .int64(micros)])
        case .add(let items):
            let ids = try call(Client.reel, "Add", [.strings(items.map(Client.absolute)), .boolean(false)]).first?.array ?? []
            write("added \(ids.count) \(ids.count == 1 ? "entry" : "entries")")
        case .goTo(let n): _ = try call(Client.trackList, "GoTo", [.objectPath(try track(n))])
        case .remove(let n): _ = try call(Client.trackList, "RemoveTrack", [.objectPath(try track(n))])
        case .clear: _ = try call(Client.reel, "Clear")
        case .rate(let x): try set("Rate", .double(x))
        case .volume(let x): try set("Volume", .double(x))
        case .loop(let mode): try set("LoopStatus", .string(mode))
        case .shuffle(let on): try set("Shuffle", .boolean(on))
        case .replayGain(let mode?): try set("ReplayGain", .string(mode), on: Client.reel)
        case .replayGain(nil): write(try get("ReplayGain", on: Client.reel).string ?? "?")
        case .video(let on?): try set("Video", .boolean(on), on: Client.reel)
        case .video(nil): write(try get("Video", on: Client.reel).bool == true ? "on" : "off")
        case .libAdd, .libList, .libInfo, .libRemove, .libPlay, .libForget, .playlistSave, .playlistLoad, .playlistList:
            try runLibrary(command)
        case .help, .version: break
        }
    }


    func call(_ interface: String, _ method: String, _ args: [DBusValue] = []) throws -> [DBusValue] {
        try connection.callMethod(bus, Client.path, interface, method, args)
    }

    private func set(_ property: String, _ value: DBusValue, on interface: String = Client.player) throws {
        try connection.setProperty(bus, Client.path, interface, property, value)
    }

    private func get(_ property: String, on interface: String) throws -> DBusValue {
        try connection.getProperty(bus, Client.path, interface, property)
    }

    func status() throws -> PlayerStatus {
        let player = try connection.getAllProperties(bus, Client.path, Client.player)
        let reel = (try? connection.getAllProperties(bus, Client.path, Client.reel)) ?? [:]
        return PlayerStatus(player: player, lastError: reel["LastError"]?.string ?? "",
                            libraryError: reel["LibraryError"]?.string ?? "", activity: reel["Activity"]?.string ?? "")
    }

    private func printStatus(_ status: PlayerStatus, json: Bool) {
        write(json ? jsonLine(status.json) : status.line)
    }

    private func track(_ n: Int) throws -> String {
        let (total, _, entries) = try queuePage(n - 1, 1)
        guard let id = entries.first?["mpris:trackid"]?.string else {
            throw BusError.failed("there is no entry \(n); the queue has \(total)")
        }
        return id
    }

    /// One page of the queue: its length, the current index (-1: none), entries' Metadata.
    private func queuePage(_ offset: Int, _ limit: Int) throws -> (total: Int, current: Int, entries: [[String: DBusValue]]) {
        let reply = try call(Client.reel, "QueuePage", [.uint32(UInt32(offset)), .int32(Int32(limit))])
        guard reply.count == 3 else { throw BusError.failed("unexpected reply to QueuePage") }
        return (Int(reply[0].int64 ?? 0), Int(reply[1].int64 ?? -1), reply[2].array?.compactMap(\.dictionary) ?? [])
    }

    /// Streams the queue a page at a time, so that 100,000 entries print in a second.
    private func printQueue(json: Bool) throws {
        var offset = 0
        if json { write("[", newline: false) }
        while true {
            let (total, current, entries) = try queuePage(offset, Client.pageSize)
            for (i, m) in entries.enumerated() {
                let index = offset + i
                if json {
                    var row: [String: Any] = ["index": index + 1, "current": index == current,
                                              "artists": m["xesam:artist"]?.stringArray ?? []]
                    row["trackid"] = m["mpris:trackid"]?.string
                    row["title"] = m["xesam:title"]?.string
                    row["url"] = m["xesam:url"]?.string
                    row["length"] = m["mpris:length"]?.int64
                    write((index > 0 ? "," : "") + jsonLine(row), newline: false)
                } else {
                    var line = "\(index == current ? "*" : " ") \(index + 1)  \(m["xesam:title"]?.string ?? "?")"
                    if let artists = m["xesam:artist"]?.stringArray, !artists.isEmpty { line += " — " + artists.joined(separator: ", ") }
                    if let length = m["mpris:length"]?.int64 { line += "  " + TimeText.format(length) }
                    write(line)
                }
            }
            offset += entries.count
            if entries.isEmpty || offset >= total { break }
        }
        if json { write("]") }
    }

    static let pageSize = 1000

    /// Prints the status now and again after every change, until the daemon goes away.
    private func followStatus(json: Bool) throws {
        try connection.addMatch("type='signal',sender='\(bus)',path='\(Client.path)'")
        try connection.addMatch("type='signal',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(bus)'")
        var last = ""
        func show() throws {
            let status = try status()
            let line = json ? jsonLine(status.json) : status.line
            if line != last { write(line); last = line }
        }
        try show()
        while connection.isConnected {
            guard let message = connection.nextMessage(timeoutMs: 60_000) else { continue }
            guard message.kind == .signal else { continue }
            if message.member == "NameOwnerChanged" {
                if message.arguments.count == 3, message.arguments[2].string == "" {
                    throw BusError.failed("the daemon stopped")
                }
                continue
            }
            do { try show() } catch {
                // A signal sent while it shut down can arrive before NameOwnerChanged.
                if (try? daemonIsRunning()) == false { throw BusError.failed("the daemon stopped") }
                throw error
            }
        }
    }
}
