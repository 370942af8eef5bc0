extension StringProtocol {
    /// The text without the whitespace (line breaks included) at either end.
    /// (Foundation's `trimmingCharacters(in:)` needs its full, ICU-backed form.)
    public func trimmed() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }
}
