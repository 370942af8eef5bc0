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
        // Read as bytes: every delimiter is ASCII, so no cut falls inside a character. Read by
        // Unicode scalars, a line of `pause 1` cost more than running the command.
        let bytes = Array(line.utf8)
        var at = 0
        func skipSpaces() { while at < bytes.count, isBlank(bytes[at]) { at += 1 } }
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        skipSpaces()
        let nameStart = at
        while at < bytes.count, isNameByte(bytes[at]) { at += 1 }
        guard at > nameStart else { throw Ack(.unknown, "No command given") }
        let name = text(nameStart..<at)
        if at < bytes.count, !isBlank(bytes[at]) { throw Ack(.unknown, "Invalid command name") }
        var arguments: [String] = []
        skipSpaces()
        while at < bytes.count {
            if bytes[at] == quoteMark {
                at += 1
                var value: [UInt8] = []
                var closed = false
                while at < bytes.count {
                    let c = bytes[at]
                    at += 1
                    if c == backslash {
                        guard at < bytes.count else { break }
                        value.append(bytes[at])
                        at += 1
                    } else if c == quoteMark {
                        closed = true
                        break
                    } else {
                        value.append(c)
                    }
                }
                guard closed else { throw Ack(.unknown, "Missing closing '\"'") }
                if at < bytes.count, !isBlank(bytes[at]) { throw Ack(.unknown, "Space expected after closing '\"'") }
                arguments.append(String(decoding: value, as: UTF8.self))
            } else {
                let wordStart = at
                while at < bytes.count, !isBlank(bytes[at]) {
                    if bytes[at] == quoteMark || bytes[at] < 0x20 { throw Ack(.unknown, "Invalid unquoted character") }
                    at += 1
                }
                arguments.append(text(wordStart..<at))
            }
            skipSpaces()
        }
        return RequestLine(name: name, arguments: arguments)
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

private let quoteMark = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

/// A space or a tab: what separates a request's words.
private func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

private func isNameByte(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
}
