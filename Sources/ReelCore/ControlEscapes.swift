/// Text from files, servers and clients on its way to a terminal or a log:
/// control characters become escapes, so that data can neither drive the
/// terminal (ESC sequences) nor break a one-line-per-entry output.
extension String {
    /// Control characters (C0, DEL, C1) but those in `kept` as `\n`, `\r`, `\t` or `\xHH`.
    public func escapingControls(keeping kept: Set<Unicode.Scalar> = []) -> String {
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
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
