import Foundation

/// Feeds as long-running podcasts and catalogues write them, for tests and the benchmark.
public enum FeedFixtures {
    /// A JSON catalogue of `items` entries with URLs under `base`, each padded by a field of `pad` bytes.
    public static func catalogue(items: Int, base: String, pad: Int = 250) -> Data {
        let filler = String(repeating: "y", count: pad)
        var json = Data("[".utf8)
        for i in 0..<items {
            json.append(contentsOf: "\(i == 0 ? "" : ","){\"url\": \"\(base)\(i).mp3\", \"title\": \"T\(i)\", \"n\": \"\(filler)\"}".utf8)
        }
        json.append(contentsOf: "]".utf8)
        return json
    }

    /// An RSS feed of `items` episodes with enclosures under `base`, each with a description of `pad` bytes.
    public static func rss(items: Int, base: String, pad: Int = 100) -> Data {
        let filler = String(repeating: "x", count: pad)
        var out = Data(#"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Show</title>"#.utf8)
        for i in stride(from: 1, through: items, by: 1) {
            out.append(contentsOf: "<item><title>Episode \(i)</title><description>\(filler)</description><enclosure url=\"\(base)e\(i).mp3\"/></item>\n".utf8)
        }
        out.append(contentsOf: "</channel></rss>".utf8)
        return out
    }
}
