/// One request line as MPD tokenizes it: a command name, then arguments,
/// each bare (no spaces or quotes) or in double quotes with `\` escaping
/// the next character.
public struct RequestLine: Equatable, Sendable {
    public var name: String
    public var arguments: [String]

    public init(name: String, arguments: [String]) {
        self.name = name
        self.arguments = arguments
    }

    public static func parse(_ line: Substring) throws(Ack) -> RequestLine {
        var rest = line.unicodeScalars[...]
        func skipSpaces() { while let c = rest.first, c == " " || c == "\t" { rest.removeFirst() } }
        skipSpaces()
        let name = rest.prefix { ("a"..."z").contains($0) || $0 == "_" || ("0"..."9").contains($0) }
        guard !name.isEmpty else { throw Ack(.unknown, "No command given") }
        rest.removeFirst(name.count)
        if let c = rest.first, c != " " && c != "\t" { throw Ack(.unknown, "Invalid command name") }
        var arguments: [String] = []
        skipSpaces()
        while let first = rest.first {
            if first == "\"" {
                rest.removeFirst()
                var value = String.UnicodeScalarView()
                var closed = false
                while let c = rest.popFirst() {
                    if c == "\\" {
                        guard let escaped = rest.popFirst() else { break }
                        value.append(escaped)
                    } else if c == "\"" {
                        closed = true
                        break
                    } else {
                        value.append(c)
                    }
                }
                guard closed else { throw Ack(.unknown, "Missing closing '\"'") }
                if let c = rest.first, c != " " && c != "\t" { throw Ack(.unknown, "Space expected after closing '\"'") }
                arguments.append(String(value))
            } else {
                let word = rest.prefix { $0 != " " && $0 != "\t" }
                if word.contains("\"") || word.contains(where: { $0.value < 0x20 }) {
                    throw Ack(.unknown, "Invalid unquoted character")
                }
                rest.removeFirst(word.count)
                arguments.append(String(String.UnicodeScalarView(word)))
            }
            skipSpaces()
        }
        return RequestLine(name: String(String.UnicodeScalarView(name)), arguments: arguments)
    }

    /// An argument in quotes, as a client writes it (for tests and logs).
    public static func quote(_ text: String) -> String {
        var out = "\""
        for c in text {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }
}
