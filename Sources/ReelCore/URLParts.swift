/// Pieces of a URL, without Foundation's URL (the engine stays small).
public enum URLParts {
    /// The URI schemes reel plays.
    public static let playableSchemes = ["file", "http", "https"]

    /// Whether `uri` is http(s), whatever the case of its scheme.
    public static func isRemote(_ uri: String) -> Bool {
        let scheme = uri.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// An absolute path, or a URI of a scheme reel plays.
    public static func isAbsolute(_ text: String) -> Bool {
        if text.hasPrefix("/") { return true }
        guard let colon = text.firstIndex(of: ":") else { return false }
        return playableSchemes.contains(text[..<colon].lowercased())
    }

    /// Why `uri`, an http(s) URL, cannot be fetched as it is, or nil when it can:
    /// a URL never holds white space or control characters (a newline in one
    /// would break every line it is shown on), and always names a host.
    public static func remoteProblem(_ uri: String) -> String? {
        if uri.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) || $0.properties.isWhitespace }) {
            return "a URL cannot hold spaces or control characters (write them %-encoded)"
        }
        guard let host = host(of: uri), !host.isEmpty else { return "the URL has no host" }
        return nil
    }

    /// The host of `scheme://[user@]host[:port]/…`.
    public static func host(of uri: String) -> String? {
        guard let schemeEnd = uri.firstRange(of: "://") else { return nil }
        var authority = uri[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.startIndex...close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// `%XX` escapes decoded; nil when an escape is malformed or the bytes are not UTF-8.
    public static func percentDecoded(_ text: String) -> String? { percentDecoded(text[...]) }

    /// Not generic: a generic one is not specialized across modules, and `playlistinfo` decodes
    /// every entry's name (its byte loop ran 10× slower through protocol witnesses).
    public static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }   // bytes: Characters cost 10× as much
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
