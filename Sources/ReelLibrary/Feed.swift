import FoundationEssentials
import Glibc
import ReelCore

/// What `reel sync` reads: an RSS 2.0 or Atom podcast feed, an M3U or PLS,
/// or a JSON catalogue `[{"url": …, "title": …, "cover": …}]`. Items are
/// remote media; anything but http(s) URLs is left out. Feeds are read in
/// bounded memory and linear time: XML streams through libxml2 in chunks,
/// JSON through a scanner that keeps only the three fields it needs.
public enum Feed {
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// At most this many items from one feed.
    public static let limit = 100_000
    /// The most bytes of one text (a title, an artist) kept from a feed: what no
    /// screen shows whole, and what keeps every `status` small.
    static let longestText = 10_000
    /// At most this many bytes of feed, over HTTP or from a file.
    public static let largest = 32 << 20
    /// The most chapters kept of one episode (a 40-hour book with a chapter a minute has 2,400).
    public static let mostChapters = 10_000
    /// At most this many bytes of a chapters document.
    public static let largestChapters = 1 << 20

    /// Reads the feed in the file `path` (a local feed, or one fetched into a file).
    public static func items(atPath path: String, base: URL?) throws -> [ProbedItem] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ParseError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try items(fd: fd, base: base)
    }

    /// Reads the feed in an open file, from its start.
    public static func items(fd: Int32, base: URL?) throws -> [ProbedItem] {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw ParseError("not a regular file") }
        guard Int(info.st_size) <= largest else {
            throw ParseError("the feed is \(ByteCount.text(Int64(info.st_size))), more than the \(largest >> 20) MiB reel reads")
        }
        let source = ChunkSource(fd: fd)
        return try items(source, base: base)
    }

    /// Reads a feed held in memory.
    public static func items(_ data: Data, base: URL?) throws -> [ProbedItem] {
        guard data.count <= largest else {
            throw ParseError("the feed is \(ByteCount.text(Int64(data.count))), more than the \(largest >> 20) MiB reel reads")
        }
        return try items(ChunkSource(data: data), base: base)
    }

    private static func items(_ source: ChunkSource, base: URL?) throws -> [ProbedItem] {
        let head = source.peek(512)
        let start = head.first { !Set(" \t\r\n".utf8).contains($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        var collector = Collector(base: base)
        switch start {
        case UInt8(ascii: "["): try JSONCatalogue.read(source.all(), into: &collector)
        case UInt8(ascii: "<"): try FeedXML.read(source, into: &collector)
        default:
            let data = source.all()
            guard let text = String(data: data, encoding: .utf8), !text.contains("\0") else {
                throw ParseError("not a feed: neither XML, JSON nor M3U text")
            }
            let pls = text.lowercased().contains("[playlist]")
            for entry in PlaylistFile.entries(text, pls: pls) { try collector.add(ProbedItem(remoteURL: entry)) }
        }
        guard !collector.items.isEmpty else { throw ParseError("no http(s) media in the feed") }
        return ProbedItem.merged(collector.items)
    }

    /// "1:02:03", "62:03" or "3723" (seconds) as µs.
    static func duration(_ text: String) -> MediaTime? {
        let parts = text.trimmed().split(separator: ":").map { Int64($0) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ ($0 ?? -1) >= 0 && ($0 ?? 0) < 1 << 40 }) else { return nil }
        return parts.reduce(0) { $0 * 60 + $1! } * 1_000_000
    }

    /// Keeps the items with http(s) media, their URLs resolved, up to the limit.
    struct Collector {
        let base: URL?
        var items: [ProbedItem] = []

        mutating func add(_ item: ProbedItem) throws {
            guard let raw = item.remoteURL, URLParts.remoteProblem(raw.hasPrefix("http") ? raw : "http://x/" + raw) == nil,
                  let url = URL(string: raw, relativeTo: base)?.absoluteURL,
                  ["http", "https"].contains(url.scheme?.lowercased() ?? ""), !(url.host ?? "").isEmpty else { return }
            guard items.count < Feed.limit else {
                throw ParseError("the feed has more than \(Feed.limit) items, the most reel takes from one feed")
            }
            guard raw.utf8.count <= PlayableURI.longest else { return }
            var item = item
            item.remoteURL = url.absoluteString
            item.fromFeed = true
            item.cover = item.cover.flatMap { $0.utf8.count <= PlayableURI.longest ? $0 : nil }
                .flatMap { URL(string: $0, relativeTo: base)?.absoluteURL.absoluteString }
            // Every format's texts end where RSS's do (FeedXML stops reading there).
            item.title = item.title?.prefix(utf8Bytes: Feed.longestText)
            item.artist = item.artist?.prefix(utf8Bytes: Feed.longestText)
            item.album = item.album?.prefix(utf8Bytes: Feed.longestText)
            item.genre = item.genre?.prefix(utf8Bytes: Feed.longestText)
            item.chapters = Chapter.normalized(item.chapters.prefix(Feed.mostChapters).map {
                Chapter(start: $0.start, title: $0.title.prefix(utf8Bytes: Feed.longestText))
            })
            item.chaptersURL = item.chaptersURL.flatMap { $0.utf8.count <= PlayableURI.longest ? $0 : nil }
                .flatMap { URL(string: $0, relativeTo: base)?.absoluteURL }
                .flatMap { ["http", "https"].contains($0.scheme?.lowercased() ?? "") ? $0.absoluteString : nil }
            items.append(item)
        }
    }
}

/// A feed's bytes, from a file or from memory, read in chunks.
final class ChunkSource {
    private let fd: Int32?
    private let data: Data?
    private var offset = 0

    init(fd: Int32) {
        self.fd = fd
        data = nil
    }

    init(data: Data) {
        fd = nil
        self.data = data
    }

    /// Up to `count` bytes from the start, without moving on.
    func peek(_ count: Int) -> [UInt8] {
        if let data { return Array(data.prefix(count)) }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { pread(fd!, $0.baseAddress, count, 0) }
        return Array(buffer.prefix(max(n, 0)))
    }

    /// The next bytes into `buffer`; 0 at the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        if let data {
            let n = min(count, data.count - offset)
            data.copyBytes(to: buffer, from: data.startIndex + offset..<data.startIndex + offset + n)
            offset += n
            return n
        }
        while true {
            let n = pread(fd!, buffer, count, off_t(offset))
            if n < 0, errno == EINTR { continue }
            offset += max(n, 0)
            return max(n, 0)
        }
    }

    /// Everything (the size was checked against `Feed.largest`).
    func all() -> Data {
        if let data { return data }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        offset = 0
        while case let n = buffer.withUnsafeMutableBufferPointer({ read(into: $0.baseAddress!, count: $0.count) }), n > 0 {
            out.append(contentsOf: buffer[..<n])
        }
        return out
    }
}
