import Foundation
import Synchronization

/// A dbus-daemon of our own, on a socket in a fresh temp dir, for tests and
/// the benchmark. It stops and the dir goes away when the value is released.
public final class PrivateBus {
    public let address: String
    public let dir: URL
    private let process = Process()

    /// `serviceDir`: where the bus finds `.service` files for D-Bus activation, besides the usual places.
    public init(serviceDir: URL? = nil) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var config = ["--session"]
        if let serviceDir {
            let file = dir.appendingPathComponent("session.conf")
            try """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <include>/usr/share/dbus-1/session.conf</include>
                  <servicedir>\(serviceDir.path)</servicedir>
                </busconfig>
                """.write(to: file, atomically: true, encoding: .utf8)
            config = ["--config-file=\(file.path)"]
        }
        // --nofork: Foundation's Process cannot watch a daemon that forks away.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = config + ["--nofork", "--print-address=1", "--address=unix:path=\(dir.path)/bus"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice   // "Failed to set fd limit" when not root, and such
        try process.run()
        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text.append(chunk)
        }
        guard let line = String(decoding: text, as: UTF8.self).split(separator: "\n").first else {
            throw HarnessError("dbus-daemon did not start")
        }
        address = String(line)
        Self.running.withLock { $0[ObjectIdentifier(self)] = (process.processIdentifier, dir) }
    }

    deinit {
        Self.running.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: dir)
    }

    /// The buses not yet released: a program that ends with `exit` (which runs no deinit)
    /// stops them first, so that no dbus-daemon outlives it.
    private static let running = Mutex<[ObjectIdentifier: (pid: pid_t, dir: URL)]>([:])

    public static func stopAll() {
        let buses = running.withLock { buses -> [(pid: pid_t, dir: URL)] in
            let all = Array(buses.values)
            buses.removeAll()
            return all
        }
        for bus in buses {
            kill(bus.pid, SIGTERM)
            try? FileManager.default.removeItem(at: bus.dir)
        }
    }
}
