import Glibc

/// A TCP address as users write it: `HOST:PORT`, `[IPv6]:PORT`, `HOST` (the
/// default port) or `:PORT`/`PORT` (loopback). Where the MPD listener binds,
/// where snapserver's TCP source listens.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public static let defaultPort: UInt16 = 6600

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public static func parse(_ text: String, defaultPort: UInt16 = defaultPort) -> ListenAddress? {
        var host = Substring(text)
        var port = defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = UInt16(after.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            guard let p = UInt16(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        } else if let p = UInt16(host) {
            port = p
            host = ""
        }
        guard !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        return ListenAddress(host: host.isEmpty ? "127.0.0.1" : String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the address only reaches this machine (no password needed).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
