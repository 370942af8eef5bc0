import ReelCore

/// Text from files, servers and radio stations on its way to a terminal:
/// control characters are shown as escapes, so that a title can neither
/// drive the terminal (ESC sequences) nor break the one-line-per-entry output.
extension String {
    /// Every control character escaped: for one field of a one-line output.
    public var printable: String { escapingControls(keeping: []) }

    /// Control characters but newline and tab escaped: for whole outputs.
    var terminalSafe: String { escapingControls(keeping: ["\n", "\t"]) }

    private func escapingControls(keeping kept: Set<Unicode.Scalar>) -> String {
        guard unicodeScalars.contains(where: { Self.isControl($0) && !kept.contains($0) }) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if !Self.isControl(scalar) || kept.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                switch scalar {
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default: out += "\\x" + String(scalar.value, radix: 16).zeroPadded(to: 2)
                }
            }
        }
        return out
    }

    /// C0, DEL and C1 controls.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
