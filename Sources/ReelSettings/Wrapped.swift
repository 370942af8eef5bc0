extension String {
    /// The text's words refilled into lines of at most `width` columns (a longer word gets a line
    /// of its own), each line after `indent`: help texts on an 80-column terminal.
    public func wrapped(width: Int = 80, indent: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in split(whereSeparator: \.isWhitespace) {
            if !line.isEmpty, indent.count + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { indent + $0 }.joined(separator: "\n")
    }

    /// Runs of white space as one space: how a test compares texts that were refilled differently.
    public var collapsingWhitespace: String {
        split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
