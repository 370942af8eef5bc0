import ReelCore

/// A song filter: MPD 0.21's expressions (`(artist == "X")`, `!`, `AND`,
/// `contains`, `starts_with`, `!=`) or the older `TAG VALUE` pairs.
/// `find` compares exactly; `search` ignores case.
struct Filter: Equatable {
    enum Field: Equatable {
        case tag(TagField), file, any
        /// Songs in this folder or below it.
        case base
    }
    enum Operator: String, Equatable {
        case equal = "==", notEqual = "!=", contains, startsWith = "starts_with"
    }
    indirect enum Node: Equatable {
        case compare(Field, Operator, String)
        case not(Node)
        case and([Node])
    }

    var root: Node
    /// `search` and `playlistsearch`: case-insensitive.
    var foldsCase: Bool

    /// The filter arguments of `find`, `search` and their kin (without `sort` and `window`).
    static func parse(_ args: [String], exact: Bool) throws(Ack) -> Filter {
        if args.count == 1, let first = args.first, first.hasPrefix("(") {
            var parser = ExpressionParser(text: Substring(first))
            let node = try parser.expression()
            parser.skipSpaces()
            guard parser.rest.isEmpty else { throw Ack.argument("Unparsed garbage after expression") }
            return Filter(root: node, foldsCase: !exact)
        }
        guard !args.isEmpty, args.count % 2 == 0 else { throw Ack.argument("Incorrect number of filter arguments") }
        var nodes: [Node] = []
        for pair in stride(from: 0, to: args.count, by: 2) {
            // Old-style pairs: `find` matches whole values, `search` parts of them.
            nodes.append(.compare(try field(args[pair]), exact ? .equal : .contains, args[pair + 1]))
        }
        return Filter(root: nodes.count == 1 ? nodes[0] : .and(nodes), foldsCase: !exact)
    }

    static func field(_ name: String) throws(Ack) -> Field {
        switch name.lowercased() {
        case "any": return .any
        case "file", "filename": return .file
        case "base": return .base
        default:
            guard let tag = TagField(named: name) else { throw Ack.argument("Unknown filter type: \(name)") }
            return .tag(tag)
        }
    }

    /// Whether a song matches; `file` is its name as the client sees it.
    func matches(file: String, _ metadata: TrackMetadata) -> Bool {
        matches(root, file: file, metadata)
    }

    private func matches(_ node: Node, file: String, _ metadata: TrackMetadata) -> Bool {
        switch node {
        case .not(let inner): return !matches(inner, file: file, metadata)
        case .and(let nodes): return nodes.allSatisfy { matches($0, file: file, metadata) }
        case .compare(.base, _, let folder):
            let prefix = folder.hasSuffix("/") ? folder : folder + "/"
            return file.hasPrefix(prefix) || folder.isEmpty
        case .compare(let field, let op, let value):
            // `!=` holds for a song without the tag too, as in MPD.
            let test: Operator = op == .notEqual ? .equal : op
            var hit = false
            // One value at a time, without an array of them: `search any` runs this for every song.
            func visit(_ candidate: String) { if !hit, compare(candidate, test, value) { hit = true } }
            switch field {
            // A song without the tag has it empty: `find date ""` finds the songs without a date, as in MPD.
            case .tag(let tag): tag.forEachListedValue(metadata, visit)
            case .file: visit(file)
            case .any:
                visit(file)
                for tag in Tag.allCases where !hit { tag.forEachValue(metadata, visit) }
            case .base: break
            }
            return op == .notEqual ? !hit : hit
        }
    }

    private func compare(_ candidate: String, _ op: Operator, _ value: String) -> Bool {
        if foldsCase, let folded = CaseFold.ascii(candidate, op, value) { return folded }
        let (a, b) = foldsCase ? (candidate.lowercased(), value.lowercased()) : (candidate, value)
        switch op {
        case .equal, .notEqual: return a == b
        case .contains: return a.contains(b)
        case .startsWith: return a.hasPrefix(b)
        }
    }
}

/// Case-insensitive comparison of ASCII texts in their bytes: lowercased copies of every tag of
/// every song made `search any` five times MPD's time. Other texts go to Unicode's lowercasing.
enum CaseFold {
    /// Nil when either text is not all ASCII.
    static func ascii(_ candidate: String, _ op: Filter.Operator, _ value: String) -> Bool? {
        var candidate = candidate, value = value
        return candidate.withUTF8 { a in
            value.withUTF8 { b -> Bool? in
                guard a.allSatisfy({ $0 < 0x80 }), b.allSatisfy({ $0 < 0x80 }) else { return nil }
                func same(_ start: Int) -> Bool {
                    for i in 0..<b.count where fold(a[start + i]) != fold(b[i]) { return false }
                    return true
                }
                switch op {
                case .equal, .notEqual: return a.count == b.count && same(0)
                case .startsWith: return a.count >= b.count && same(0)
                case .contains:
                    guard a.count >= b.count else { return false }
                    return (0...(a.count - b.count)).contains(where: same)
                }
            }
        }
    }

    private static func fold(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}

/// MPD's filter expression grammar, by recursive descent.
private struct ExpressionParser {
    var rest: Substring
    init(text: Substring) { rest = text }

    mutating func skipSpaces() { rest = rest.drop { $0 == " " || $0 == "\t" } }

    mutating func expect(_ c: Character) throws(Ack) {
        skipSpaces()
        guard rest.first == c else { throw Ack.argument("'\(c)' expected") }
        rest.removeFirst()
    }

    mutating func expression() throws(Ack) -> Filter.Node {
        try expect("(")
        skipSpaces()
        if rest.first == "!" {
            rest.removeFirst()
            let inner = try expression()
            try expect(")")
            return .not(inner)
        }
        if rest.first == "(" {
            var nodes = [try expression()]
            while true {
                skipSpaces()
                if rest.first == ")" { rest.removeFirst(); break }
                guard rest.hasPrefix("AND") else { throw Ack.argument("'AND' expected") }
                rest.removeFirst(3)
                nodes.append(try expression())
            }
            return nodes.count == 1 ? nodes[0] : .and(nodes)
        }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
        guard !name.isEmpty else { throw Ack.argument("Tag name expected") }
        rest.removeFirst(name.count)
        let field = try Filter.field(String(name))
        skipSpaces()
        let op: Filter.Operator
        if field == .base {
            op = .startsWith
        } else if let found = [Filter.Operator.equal, .notEqual, .contains, .startsWith].first(where: { rest.hasPrefix($0.rawValue) }) {
            op = found
            rest.removeFirst(found.rawValue.count)
        } else {
            throw Ack.argument("'==' or '!=' expected")   // MPD 0.23's words (contains and starts_with work too)
        }
        skipSpaces()
        let value = try quoted()
        try expect(")")
        return .compare(field, op, value)
    }

    /// A value in double or single quotes; `\` escapes the next character.
    mutating func quoted() throws(Ack) -> String {
        guard let quote = rest.first, quote == "\"" || quote == "'" else { throw Ack.argument("Quoted value expected") }
        rest.removeFirst()
        var value = ""
        while let c = rest.popFirst() {
            if c == "\\", let escaped = rest.popFirst() { value.append(escaped); continue }
            if c == quote { return value }
            value.append(c)
        }
        throw Ack.argument("Closing quote not found")
    }
}
