import FoundationEssentials
import ReelCore

/// Podcasting 2.0's chapters document (`application/json+chapters`), which a feed's
/// `<podcast:chapters url=…>` names: `{"version": "1.2.0", "chapters": [{"startTime": 90.5,
/// "title": "…"}, …]}`. Chapters marked `"toc": false` are for artwork and links, not for
/// moving between: they are left out. A bad entry costs only itself, with its reason.
public enum FeedChapters {
    /// The chapters kept, and what was left out or cut, and why (for the sync's log).
    public struct Reading: Equatable, Sendable {
        public var chapters: [Chapter]
        public var problems: [String]
    }

    /// Reads the document in an open file, from its start.
    public static func read(fd: Int32) throws -> Reading {
        try read(ChunkSource(fd: fd).all())
    }

    public static func read(_ data: Data) throws -> Reading {
        guard data.count <= Feed.largestChapters else {
            throw Feed.ParseError("the chapters document is larger than \(Feed.largestChapters >> 10) KiB")
        }
        let document: Document
        // Python's json writes NaN and Infinity, which JSON has not: as null, they cost one entry, not all.
        do { document = try JSONDecoder().decode(Document.self, from: JSONNumbers.nonFiniteAsNull(data)) } catch {
            throw Feed.ParseError("not a chapters document (JSON with a chapters list)")
        }
        var problems: [String] = []
        var chapters: [Chapter] = []
        for (n, entry) in document.chapters.enumerated() where entry.toc != false {
            guard chapters.count < Feed.mostChapters else {
                problems.append("kept the first \(Feed.mostChapters) chapters, the most reel keeps; \(document.chapters.count - n) more left out")
                break
            }
            guard let seconds = entry.start else {
                problems.append("chapter \(n + 1) left out: \(entry.fault ?? "it has no startTime")")
                continue
            }
            guard seconds >= 0 else {
                problems.append("chapter \(n + 1) left out: it starts before 0 (\(seconds))")
                continue
            }
            guard let start = MediaTime.fromSeconds(seconds) else {
                problems.append("chapter \(n + 1) left out: its start (\(seconds) s) is no time in a file")
                continue
            }
            let title = entry.title ?? ""
            if title.utf8.count > Feed.longestText { problems.append("chapter \(n + 1)'s title cut to \(Feed.longestText) bytes") }
            chapters.append(Chapter(start: start, title: title.prefix(utf8Bytes: Feed.longestText)))
        }
        return Reading(chapters: Chapter.normalized(chapters), problems: problems)
    }

    /// Reasons as one log line: the first few in full, then how many more.
    public static func summary(_ problems: [String]) -> String {
        (problems.prefix(5) + (problems.count > 5 ? ["and \(problems.count - 5) more"] : [])).joined(separator: "; ")
    }

    private struct Document: Decodable {
        var chapters: [Entry]
    }

    /// One chapter; a field of the wrong type is as good as absent, and says so.
    private struct Entry: Decodable {
        var start: Double?
        var title: String?
        var toc: Bool?
        /// Why there is no start, when the entry has one that is no number.
        var fault: String?

        enum Key: String, CodingKey { case startTime, title, toc }

        init(from decoder: Decoder) throws {
            guard let fields = try? decoder.container(keyedBy: Key.self) else {
                fault = "it is not an object"
                return
            }
            start = try? fields.decode(Double.self, forKey: .startTime)
            if start == nil, fields.contains(.startTime) { fault = "its startTime is not a number" }
            title = try? fields.decode(String.self, forKey: .title)
            toc = try? fields.decode(Bool.self, forKey: .toc)
        }
    }
}

/// JSON as some writers make it: Python's `json.dumps` writes the bare words NaN, Infinity and
/// -Infinity for numbers that are not finite, which strict JSON readers refuse for the whole text.
enum JSONNumbers {
    /// The text with each such word outside strings written as null.
    static func nonFiniteAsNull(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false, escaped = false
        var i = 0
        scan: while i < bytes.count {
            let c = bytes[i]
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if !(i > 0 && isWordByte(bytes[i - 1])) {
                for word in words where bytes[i...].starts(with: word) {
                    let after = i + word.count
                    guard after == bytes.count || !isWordByte(bytes[after]) else { continue }
                    out += Array("null".utf8)
                    i = after
                    continue scan
                }
            }
            out.append(c)
            i += 1
        }
        return Data(out)
    }

    private static let words = ["-Infinity", "Infinity", "NaN"].map { Array($0.utf8) }

    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
    }
}
