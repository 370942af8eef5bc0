extension StringProtocol {
    /// The text without the whitespace (line breaks included) at either end.
    /// (Foundation's `trimmingCharacters(in:)` needs its full, ICU-backed form.)
    public func trimmed() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }
}

extension String {
    /// At most `count` bytes of UTF-8, cut where a Unicode scalar ends.
    public func prefix(utf8Bytes count: Int) -> String {
        guard utf8.count > count else { return self }
        var end = utf8.index(utf8.startIndex, offsetBy: count)
        // A continuation byte (10xxxxxx) is inside a scalar: cut before it.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }
}
