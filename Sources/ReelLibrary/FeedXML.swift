import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// RSS and Atom through libxml2 (FoundationXML's XMLParser), fed in chunks:
/// libxml2 refuses a document handed over whole beyond 10 MB, not one that
/// streams. Control characters, which XML forbids and feeds contain, are
/// read as spaces instead of failing the whole feed.
enum FeedXML {
    static func read(_ source: ChunkSource, into collector: inout Feed.Collector) throws {
        let reader = FeedReader(collector)
        let parser = XMLParser(stream: FilteringStream(source, utf16: isUTF16(source.peek(4))))
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        _ = parser.parse()
        if let stop = reader.stop { throw stop }
        // XMLParser reads a stream in libxml2's recovering mode and never ends the document:
        // the first error, and an element left open, are what say a feed is broken.
        if let (code, line) = reader.firstError ?? (parser.parserError as NSError?).map({ ($0.code, parser.lineNumber) }) {
            throw Feed.ParseError("the feed is not valid XML at line \(line): \(describe(code))")
        }
        guard reader.sawRoot, reader.depth == 0 else {
            throw Feed.ParseError("the feed is not valid XML at line \(parser.lineNumber): "
                                  + (reader.sawRoot ? describe(77) : describe(4)))
        }
        collector = reader.collector
    }

    /// UTF-16 has NUL bytes of its own: those are not control characters to filter.
    private static func isUTF16(_ head: [UInt8]) -> Bool {
        head.count >= 2 && ((head[0] == 0xFE && head[1] == 0xFF) || (head[0] == 0xFF && head[1] == 0xFE) || head[0] == 0 || head[1] == 0)
    }

    /// libxml2's error numbers (which XMLParser passes on) in words.
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

/// An InputStream over a chunk source that reads C0 control characters
/// (but tab, newline and carriage return) as spaces. Safe in UTF-8: those
/// bytes never occur inside a multi-byte character.
private final class FilteringStream: InputStream {
    private let source: ChunkSource
    private let utf16: Bool

    init(_ source: ChunkSource, utf16: Bool) {
        self.source = source
        self.utf16 = utf16
        super.init(data: Data())
    }

    override func open() {}
    override func close() {}
    override var hasBytesAvailable: Bool { true }
    override var streamError: Error? { nil }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        let n = source.read(into: buffer, count: min(maxLength, 1 << 16))
        if !utf16 {
            for i in 0..<n where buffer[i] < 0x20 && buffer[i] != 0x09 && buffer[i] != 0x0A && buffer[i] != 0x0D {
                buffer[i] = 0x20
            }
        }
        return n
    }
}

/// Collects RSS `<item>` and Atom `<entry>` elements.
private final class FeedReader: NSObject, XMLParserDelegate {
    var collector: Feed.Collector
    /// Why reading stopped early (too many items).
    var stop: Error?
    /// libxml2's first complaint and its line.
    var firstError: (code: Int, line: Int)?
    /// Elements open now; whether there was one at all.
    var depth = 0
    var sawRoot = false
    private var current: ProbedItem?
    private var text = ""
    /// Bytes in `text`: counted, not measured, so that a long text costs linear time.
    private var textBytes = 0
    private var channelImage: String?
    private var inImage = false
    private static let longestText = 10_000

    init(_ collector: Feed.Collector) { self.collector = collector }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
        textBytes = 0
        depth += 1
        sawRoot = true
        let local = (qualifiedName ?? name).lowercased()
        switch local {
        case "item", "entry": current = ProbedItem()
        case "image": inImage = current == nil
        case "enclosure" where current != nil:
            if current?.remoteURL == nil { current?.remoteURL = attributes["url"] }
        case "link" where current != nil && attributes["rel"] == "enclosure":
            if current?.remoteURL == nil { current?.remoteURL = attributes["href"] }
        case "itunes:image":
            if current != nil { current?.cover = attributes["href"] } else { channelImage = channelImage ?? attributes["href"] }
        case "media:content" where current != nil:
            if current?.remoteURL == nil, attributes["medium"].map({ $0 == "audio" || $0 == "video" }) ?? true {
                current?.remoteURL = attributes["url"]
            }
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard textBytes < Self.longestText else { return }
        text += string
        textBytes += string.utf8.count
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard textBytes < Self.longestText else { return }
        text += String(decoding: block.prefix(Self.longestText), as: UTF8.self)
        textBytes += min(block.count, Self.longestText)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        if firstError == nil { firstError = ((parseError as NSError).code, parser.lineNumber) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let local = (qualifiedName ?? name).lowercased()
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
                    stop = error
                    parser.abortParsing()
                }
            }
            current = nil
        default: break
        }
        text = ""
        textBytes = 0
    }
}
