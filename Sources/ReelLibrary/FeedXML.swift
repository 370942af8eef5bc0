import CFeedParser
import FoundationEssentials
import Glibc
import ReelCore
import ReelSystem

/// RSS and Atom through libxml2's SAX2 push parser, fed in 64 KiB chunks:
/// libxml2 refuses a document handed over whole beyond 10 MB, not one that
/// streams. Control characters, which XML forbids and feeds contain, are
/// read as spaces instead of failing the whole feed. (libxml2 directly, not
/// FoundationXML, which would load all of Foundation and ICU into the daemon.)
enum FeedXML {
    private static let initialised: Void = reel_xml_init()

    static func read(_ source: ChunkSource, into collector: inout Feed.Collector) throws {
        _ = initialised
        let reader = FeedReader(collector)
        let context = Unmanaged.passUnretained(reader).toOpaque()
        var callbacks = reel_xml_callbacks(context: context, start: { context, name, prefix, count, attributes in
            FeedReader.from(context).start(FeedXML.qualified(name, prefix), attributes: FeedXML.decode(count, attributes))
        }, end: { context, name, prefix in
            FeedReader.from(context).end(FeedXML.qualified(name, prefix))
        }, text: { context, text, length in
            FeedReader.from(context).text(UnsafeBufferPointer(start: text, count: Int(length)))
        })
        try withUnsafeMutablePointer(to: &callbacks) { callbacks in
            guard let parser = reel_xml_parser_new(callbacks) else { throw Feed.ParseError("out of memory") }
            defer { reel_xml_parser_free(parser) }
            let utf16 = isUTF16(source.peek(4))
            let chunk = UnsafeMutablePointer<UInt8>.allocate(capacity: 1 << 16)
            defer { chunk.deallocate() }
            var status: Int32 = 0
            while status == 0, reader.stop == nil {
                let n = source.read(into: chunk, count: 1 << 16)
                if !utf16 {
                    for i in 0..<n where chunk[i] < 0x20 && chunk[i] != 0x09 && chunk[i] != 0x0A && chunk[i] != 0x0D {
                        chunk[i] = 0x20
                    }
                }
                status = chunk.withMemoryRebound(to: CChar.self, capacity: n) { reel_xml_parser_push(parser, $0, Int32(n), n == 0 ? 1 : 0) }
                if n == 0 { break }
            }
            if let stop = reader.stop { throw stop }
            if status != 0 {
                throw Feed.ParseError("the feed is not valid XML at line \(reel_xml_parser_error_line(parser)): "
                                      + describe(Int(reel_xml_parser_error_code(parser))))
            }
            guard reader.sawRoot, reader.depth == 0 else {
                throw Feed.ParseError("the feed is not valid XML at line \(reel_xml_parser_line(parser)): "
                                      + (reader.sawRoot ? describe(77) : describe(4)))
            }
        }
        collector = reader.collector
    }

    /// `prefix:name`, as feeds name their extensions (`itunes:image`).
    private static func qualified(_ name: UnsafePointer<UInt8>?, _ prefix: UnsafePointer<UInt8>?) -> String {
        let local = name.map { String(cString: $0) } ?? ""
        return prefix.map { String(cString: $0) + ":" + local } ?? local
    }

    /// SAX2's attributes: five pointers each (name, prefix, URI, value start, value end).
    private static func decode(_ count: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<UInt8>?>?) -> [String: String] {
        guard let attributes, count > 0 else { return [:] }
        var result: [String: String] = [:]
        for i in 0..<Int(count) {
            let base = attributes + 5 * i
            guard let start = base[3], let end = base[4] else { continue }
            let value = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
            result[qualified(base[0], base[1])] = XMLText.unescaped(value)
        }
        return result
    }

    /// UTF-16 has NUL bytes of its own: those are not control characters to filter.
    private static func isUTF16(_ head: [UInt8]) -> Bool {
        head.count >= 2 && ((head[0] == 0xFE && head[1] == 0xFF) || (head[0] == 0xFF && head[1] == 0xFE) || head[0] == 0 || head[1] == 0)
    }

    /// libxml2's error numbers in words.
    static func describe(_ code: Int) -> String {
        switch code {
        case 1: "the document is too large or deep"
        case 2: "out of memory"
        case 4, 5: code == 4 ? "the document is empty" : "there is content after the end of the document"
        case 9: "a character XML does not allow"
        case 23, 24, 38, 39, 40, 41: "a broken attribute"
        case 26, 27: "an entity that is not declared"
        case 68: "a name is missing (a stray < or &)"
        case 73: "a tag is not closed with >"
        case 76: "a closing tag does not match its opening tag"
        case 77: "the document ends inside an element (it is cut short)"
        case 89: "an entity refers to itself"
        case 104: "the entities expand too much (an entity bomb)"
        default: "libxml2 error \(code)"
        }
    }
}

/// Collects RSS `<item>` and Atom `<entry>` elements.
private final class FeedReader {
    var collector: Feed.Collector
    /// Why reading stopped early (too many items).
    var stop: Error?
    /// Elements open now; whether there was one at all.
    var depth = 0
    var sawRoot = false
    private var current: ProbedItem?
    private var text = ""
    /// Bytes in `text`: counted, not measured, so that a long text costs linear time.
    private var textBytes = 0
    private var channelImage: String?
    private var inImage = false

    init(_ collector: Feed.Collector) { self.collector = collector }

    static func from(_ context: UnsafeMutableRawPointer?) -> FeedReader {
        Unmanaged<FeedReader>.fromOpaque(context!).takeUnretainedValue()
    }

    func start(_ name: String, attributes: [String: String]) {
        guard stop == nil else { return }
        text = ""
        textBytes = 0
        depth += 1
        sawRoot = true
        let local = name.lowercased()
        switch local {
        case "item", "entry": current = ProbedItem()
        case "image": inImage = current == nil
        case "enclosure" where current != nil:
            if current?.remoteURL == nil { current?.remoteURL = attributes["url"] }
        case "link" where current != nil && attributes["rel"] == "enclosure":
            if current?.remoteURL == nil { current?.remoteURL = attributes["href"] }
        case "itunes:image":
            if current != nil { current?.cover = attributes["href"] } else { channelImage = channelImage ?? attributes["href"] }
        case "psc:chapter" where current != nil:
            // Podlove Simple Chapters: start="00:01:30.500" (normal play time), title="…".
            let number = (current?.chapters.count ?? 0) + (current?.chapterProblems.count ?? 0) + 1
            if let start = attributes["start"].flatMap({ ClockText.parse($0.trimmed()) }) {
                if (current?.chapters.count ?? 0) < Feed.mostChapters {
                    current?.chapters.append(Chapter(start: start, title: attributes["title"] ?? ""))
                } else {
                    current?.chapterProblems.append("chapter \(number) left out: more than \(Feed.mostChapters), the most reel keeps")
                }
            } else {
                let given = attributes["start"].map { "its start \"\($0.prefix(20))\" is no time" } ?? "it has no start"
                current?.chapterProblems.append("chapter \(number) left out: \(given)")
            }
        case "podcast:chapters" where current != nil:
            if current?.chaptersURL == nil { current?.chaptersURL = attributes["url"] }
        case "media:content" where current != nil:
            if current?.remoteURL == nil, attributes["medium"].map({ $0 == "audio" || $0 == "video" }) ?? true {
                current?.remoteURL = attributes["url"]
            }
        default: break
        }
    }

    func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard textBytes < Feed.longestText else { return }
        let kept = UnsafeBufferPointer(rebasing: bytes.prefix(Feed.longestText - textBytes))
        text += String(decoding: kept, as: UTF8.self)
        textBytes += kept.count
    }

    func end(_ name: String) {
        guard stop == nil else { return }
        depth -= 1
        let value = text.trimmed()
        let local = name.lowercased()
        switch local {
        case "title" where current != nil && current?.title == nil: current?.title = value.isEmpty ? nil : value
        case "itunes:author" where current != nil: current?.artist = value.isEmpty ? nil : value
        case "itunes:duration" where current != nil: current?.duration = Feed.duration(value)
        case "url" where inImage: channelImage = channelImage ?? value
        case "image": inImage = false
        case "item", "entry":
            if var item = current, item.remoteURL != nil {
                item.cover = item.cover ?? channelImage
                do { try collector.add(item) } catch {
                    // Reading ends with this chunk.
                    stop = error
                }
            }
            current = nil
        default: break
        }
        text = ""
        textBytes = 0
    }
}
