import FoundationEssentials
import ReelCore

/// Podcasting 2.0's chapters document (`application/json+chapters`), which a feed's
/// `<podcast:chapters url=…>` names: `{"version": "1.2.0", "chapters": [{"startTime": 90.5,
/// "title": "…"}, …]}`. Chapters marked `"toc": false` are for artwork and links, not for
/// moving between: they are left out.
public enum FeedChapters {
    /// Reads the document in an open file, from its start.
    public static func parse(fd: Int32) throws -> [Chapter] {
        try parse(ChunkSource(fd: fd).all())
    }

    public static func parse(_ data: Data) throws -> [Chapter] {
        guard data.count <= Feed.largestChapters else {
            throw Feed.ParseError("the chapters document is larger than \(Feed.largestChapters >> 10) KiB")
        }
        let document: Document
        do { document = try JSONDecoder().decode(Document.self, from: data) } catch {
            throw Feed.ParseError("not a chapters document (JSON with a chapters list)")
        }
        return Chapter.normalized(document.chapters.prefix(Feed.mostChapters).compactMap { chapter in
            guard chapter.toc != false, let seconds = chapter.startTime, seconds >= 0,
                  let start = MediaTime.fromSeconds(seconds) else { return nil }
            return Chapter(start: start, title: (chapter.title ?? "").prefix(utf8Bytes: Feed.longestText))
        })
    }

    private struct Document: Decodable {
        var chapters: [Entry]
    }

    /// One chapter; a field of the wrong type is as good as absent.
    private struct Entry: Decodable {
        var startTime: Double?
        var title: String?
        var toc: Bool?

        enum Key: String, CodingKey { case startTime, title, toc }

        init(from decoder: Decoder) throws {
            let fields = try decoder.container(keyedBy: Key.self)
            startTime = try? fields.decode(Double.self, forKey: .startTime)
            title = try? fields.decode(String.self, forKey: .title)
            toc = try? fields.decode(Bool.self, forKey: .toc)
        }
    }
}
