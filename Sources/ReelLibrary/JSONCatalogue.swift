import FoundationEssentials
import Glibc
import ReelCore

/// A JSON catalogue, `[{"url": …, "title": …, "cover": …}, …]`, read by a
/// scanner that keeps only those three strings of each object and skips
/// every other value: linear time, and no object tree (Foundation's
/// JSONSerialization took 1.6 GB for a 33 MB catalogue).
enum JSONCatalogue {
    static func read(_ data: Data, into collector: inout Feed.Collector) throws {
        try data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            try scanner.catalogue(into: &collector)
        }
    }

    static let shape = "a JSON catalogue is an array of {\"url\", \"title\", \"cover\"} objects"

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var at = 0
        /// Nesting of skipped values, bounded so that a hostile document cannot exhaust the stack.
        var depth = 0

        func fail(_ what: String) -> Feed.ParseError {
            var line = 1
            for i in 0..<min(at, bytes.count) where bytes[i] == 0x0A { line += 1 }
            return Feed.ParseError("the feed is not valid JSON at line \(line): \(what)")
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains(bytes[at]) { at += 1 }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else {
                throw fail(at < bytes.count ? "expected \(Character(Unicode.Scalar(byte)))" : "it ends too soon")
            }
            at += 1
        }

        /// `true` when the next byte is `byte`, which is then taken.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        mutating func catalogue(into collector: inout Feed.Collector) throws {
            try expect(UInt8(ascii: "["))
            if !take(UInt8(ascii: "]")) { try elements(into: &collector) }
            skipSpace()
            guard at == bytes.count else { throw fail("there is content after the catalogue") }
        }

        mutating func elements(into collector: inout Feed.Collector) throws {
            repeat {
                skipSpace()
                if at < bytes.count, bytes[at] == UInt8(ascii: "{") {
                    let fields = try object()
                    if let url = fields.url {
                        try collector.add(ProbedItem(title: fields.title, cover: fields.cover, remoteURL: url))
                    }
                } else {
                    try skipValue()
                }
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        }

        mutating func object() throws -> (url: String?, title: String?, cover: String?) {
            var fields: (url: String?, title: String?, cover: String?) = (nil, nil, nil)
            try expect(UInt8(ascii: "{"))
            if take(UInt8(ascii: "}")) { return fields }
            repeat {
                skipSpace()
                let key = try string(keep: true)
                try expect(UInt8(ascii: ":"))
                skipSpace()
                let wanted = key == "url" || key == "title" || key == "cover"
                if wanted, at < bytes.count, bytes[at] == UInt8(ascii: "\"") {
                    let value = try string(keep: true)
                    switch key {
                    case "url": fields.url = value
                    case "title": fields.title = value
                    default: fields.cover = value
                    }
                } else {
                    try skipValue()
                }
            } while take(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
            return fields
        }

        mutating func skipValue() throws {
            skipSpace()
            guard at < bytes.count else { throw fail("it ends too soon") }
            switch bytes[at] {
            case UInt8(ascii: "\""): _ = try string(keep: false)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = bytes[at] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let isObject = bytes[at] == UInt8(ascii: "{")
                depth += 1
                guard depth <= 64 else { throw fail("values nested more than 64 deep") }
                at += 1
                if !take(close) {
                    repeat {
                        if isObject {
                            skipSpace()
                            _ = try string(keep: false)
                            try expect(UInt8(ascii: ":"))
                        }
                        try skipValue()
                    } while take(UInt8(ascii: ","))
                    try expect(close)
                }
                depth -= 1
            default:
                // A number, true, false or null.
                let start = at
                while at < bytes.count, bytes[at] == UInt8(ascii: "-") || bytes[at] == UInt8(ascii: "+")
                    || bytes[at] == UInt8(ascii: ".") || (0x30...0x39).contains(bytes[at]) || (0x61...0x7A).contains(bytes[at])
                    || bytes[at] == UInt8(ascii: "E") {
                    at += 1
                }
                let word = String(decoding: bytes[start..<at], as: UTF8.self)
                guard at > start, ["true", "false", "null"].contains(word) || Double(word) != nil else {
                    throw fail("an unexpected \(at < bytes.count ? "character" : "end")")
                }
            }
        }

        /// A string, its escapes decoded when it is kept (`keep`), skipped otherwise.
        mutating func string(keep: Bool) throws -> String? {
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a string") }
            at += 1
            var out: [UInt8] = []
            var runStart = at
            while at < bytes.count {
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    if keep { out += bytes[runStart..<at] }
                    at += 1
                    return keep ? String(decoding: out, as: UTF8.self) : nil
                }
                if byte == UInt8(ascii: "\\") {
                    if keep { out += bytes[runStart..<at] }
                    at += 1
                    guard at < bytes.count else { break }
                    let escaped = bytes[at]
                    at += 1
                    switch escaped {
                    case UInt8(ascii: "u"):
                        guard at + 4 <= bytes.count, let unit = UInt16(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
                        else { throw fail("a broken \\u escape") }
                        at += 4
                        if keep { out += Self.utf8(unit, then: &self) }
                    case UInt8(ascii: "n"): if keep { out.append(0x0A) }
                    case UInt8(ascii: "t"): if keep { out.append(0x09) }
                    case UInt8(ascii: "r"): if keep { out.append(0x0D) }
                    case UInt8(ascii: "b"): if keep { out.append(0x08) }
                    case UInt8(ascii: "f"): if keep { out.append(0x0C) }
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): if keep { out.append(escaped) }
                    default: throw fail("an unknown escape \\\(Character(Unicode.Scalar(escaped)))")
                    }
                    runStart = at
                    continue
                }
                at += 1
            }
            throw fail("a string is not closed")
        }

        /// A \u escape as UTF-8, joining a surrogate pair with the escape after it.
        static func utf8(_ unit: UInt16, then scanner: inout Scanner) -> [UInt8] {
            var scalar = Unicode.Scalar(unit)
            if (0xD800..<0xDC00).contains(unit), scanner.at + 6 <= scanner.bytes.count,
               scanner.bytes[scanner.at] == UInt8(ascii: "\\"), scanner.bytes[scanner.at + 1] == UInt8(ascii: "u"),
               let low = UInt16(String(decoding: scanner.bytes[scanner.at + 2..<scanner.at + 6], as: UTF8.self), radix: 16),
               (0xDC00..<0xE000).contains(low) {
                scanner.at += 6
                scalar = Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(low - 0xDC00))
            }
            return Array(String(Character(scalar ?? "\u{FFFD}")).utf8)
        }
    }
}
