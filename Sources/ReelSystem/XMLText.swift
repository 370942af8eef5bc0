/// XML's escapes in text and attribute values.
public enum XMLText {
    /// The five predefined entities and character references (`&#38;`, `&#x26;`) decoded,
    /// in one pass (so that `&amp;lt;` stays `&lt;`); anything else is kept as written.
    public static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(12).firstIndex(of: ";"), let decoded = entity(after[..<semi]) {
                out.unicodeScalars.append(decoded)
                rest = after[after.index(after: semi)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }

    private static func entity(_ name: Substring) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let number = name.dropFirst()
            let value = number.hasPrefix("x") || number.hasPrefix("X") ? UInt32(number.dropFirst(), radix: 16) : UInt32(number)
            return value.flatMap(Unicode.Scalar.init)
        }
    }
}
