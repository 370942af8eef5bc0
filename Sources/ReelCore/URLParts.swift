/// Pieces of a URL, without Foundation's URL (the engine stays small).
enum URLParts {
    /// The host of `scheme://[user@]host[:port]/…`.
    static func host(of uri: String) -> String? {
        guard let schemeEnd = uri.range(of: "://") else { return nil }
        var authority = uri[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.startIndex...close])
        }
        return String(authority.prefix { $0 != ":" })
    }
}
