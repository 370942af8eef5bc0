import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ReelCore

/// What `reel sync` reads: an RSS 2.0 or Atom podcast feed, an M3U, or a
/// JSON catalogue `[{"url": …, "title": …, "cover": …}]`. Items are remote
/// media; anything but http(s) URLs is left out.
public enum Feed {
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// At most this many items from one feed.
    public static let limit = 100_000

    public static func items(_ data: Data, base: URL?) throws -> [ProbedItem] {
        let start = data.prefix(512).first { !Set(" \t\r\n".utf8).contains($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        let found: [ProbedItem]
        switch start {
        case UInt8(ascii: "["): found = try json(data)
        case UInt8(ascii: "<"): found = try xml(data)
        default:
            guard let text = String(data: data, encoding: .utf8), !text.contains("\0") else {
                throw ParseError(description: "not a feed: neither XML, JSON nor M3U text")
            }
            let pls = text.lowercased().contains("[playlist]")
            found = PlaylistFile.entries(text, pls: pls).map { ProbedItem(remoteURL: $0) }
        }
        let resolved = found.compactMap { item -> ProbedItem? in
            guard let raw = item.remoteURL, let url = URL(string: raw, relativeTo: base)?.absoluteURL,
                  ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
            var item = item
            item.remoteURL = url.absoluteString
            item.cover = item.cover.flatMap { URL(string: $0, relativeTo: base)?.absoluteURL.absoluteString }
            return item
        }
        guard !resolved.isEmpty else { throw ParseError(description: "no http(s) media in the feed") }
        return Array(ProbedItem.merged(resolved).prefix(limit))
    }

    private static func json(_ data: Data) throws -> [ProbedItem] {
        guard let rows = try? JSONSerialization.jsonObject(with: data) as? [Any] else {
            throw ParseError(description: "a JSON catalogue is an array of {\"url\", \"title\", \"cover\"} objects")
        }
        return rows.compactMap { row in
            guard let fields = row as? [String: Any], let url = fields["url"] as? String else { return nil }
            return ProbedItem(title: fields["title"] as? String, cover: fields["cover"] as? String, remoteURL: url)
        }
    }

    private static func xml(_ data: Data) throws -> [ProbedItem] {
        let reader = FeedReader()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse() else {
            throw ParseError(description: "not a feed: \(parser.parserError.map { "\($0.localizedDescription)" } ?? "bad XML")")
        }
        return reader.items
    }

    /// "1:02:03", "62:03" or "3723" (seconds) as µs.
    static func duration(_ text: String) -> MediaTime? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":").map { Int64($0) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else { return nil }
        return parts.reduce(0) { $0 * 60 + $1! } * 1_000_000
    }
}

/// Collects RSS `<item>` and Atom `<entry>` elements.
private final class FeedReader: NSObject, XMLParserDelegate {
    var items: [ProbedItem] = []
    private var current: ProbedItem?
    private var text = ""
    private var channelImage: String?
    private var inImage = false

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        text = ""
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
        if text.count < 10_000 { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let local = (qualifiedName ?? name).lowercased()
        switch local {
        case "title" where current != nil && current?.title == nil: current?.title = value.isEmpty ? nil : value
        case "itunes:author" where current != nil: current?.artist = value.isEmpty ? nil : value
        case "itunes:duration" where current != nil: current?.duration = Feed.duration(value)
        case "url" where inImage: channelImage = channelImage ?? value
        case "image": inImage = false
        case "item", "entry":
            if var item = current, item.remoteURL != nil, items.count < Feed.limit {
                item.cover = item.cover ?? channelImage
                items.append(item)
            }
            current = nil
        default: break
        }
        text = ""
    }
}
