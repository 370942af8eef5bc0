import Foundation

/// A bare MPD protocol client over a socket, reading replies line by line,
/// for what mpc and python-mpd do not show (idle wake-ups, raw errors, garbage) and for timing.
public final class MPDClient: LineSocket {
    /// The first line the server sent.
    public private(set) var greeting = ""

    /// Connects to a Unix socket path, or to 127.0.0.1:PORT, and reads the greeting.
    public override init(path: String? = nil, port: UInt16? = nil) throws {
        try super.init(path: path, port: port)
        guard let first = readLine(timeout: 5) else { throw HarnessError("no greeting") }
        greeting = first
    }

    /// The lines of one reply, up to and including its `OK` or `ACK` line.
    public func reply(timeout: Double = 5) -> [String]? {
        var lines: [String] = []
        while let line = readLine(timeout: timeout) {
            lines.append(line)
            if line == "OK" || line.hasPrefix("ACK ") { return lines }
        }
        return nil
    }

    /// Sends a command and returns its reply's lines (with the final OK or ACK).
    public func command(_ line: String, timeout: Double = 5) throws -> [String] {
        send(line + "\n")
        guard let lines = reply(timeout: timeout) else { throw HarnessError("no reply to \(line)") }
        return lines
    }

    /// A reply's `key: value` pairs (the first of each key).
    public func pairs(_ line: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try command(line) {
            guard let colon = row.range(of: ": ") else { continue }
            let key = String(row[..<colon.lowerBound])
            if out[key] == nil { out[key] = String(row[colon.upperBound...]) }
        }
        return out
    }
}
