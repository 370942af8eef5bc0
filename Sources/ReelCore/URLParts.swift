/// Pieces of a URL, without Foundation's URL (the engine stays small).
public enum URLParts {
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
        guard let schemeEnd = uri.range(of: "://") else { return nil }
        var authority = uri[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.startIndex...close])
        }
        return String(authority.prefix { $0 != ":" })
    }
}
