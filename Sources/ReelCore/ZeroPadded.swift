extension String {
    /// The text with zeros in front up to `width` characters ("7" → "007").
    public func zeroPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
