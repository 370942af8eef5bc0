import Foundation
import ReelLibrary
import XCTest

final class FeedTests: XCTestCase {
    let base = URL(string: "https://example.org/podcast/feed.xml")

    func testRSSItemsGiveEnclosuresTitlesDurationsAuthorsAndCovers() throws {
        let rss = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel><title>Show</title><image><url>https://example.org/show.jpg</url></image>
            <item><title>One &amp; Only</title><enclosure url="ep1.mp3" type="audio/mpeg" length="1"/>
              <itunes:duration>1:02:03</itunes:duration><itunes:author>Host</itunes:author></item>
            <item><title>Two</title><enclosure url="https://cdn.example.org/ep2.mp3"/>
              <itunes:image href="https://example.org/ep2.jpg"/><itunes:duration>95</itunes:duration></item>
            <item><title>No media</title></item>
            <item><title>Not web</title><enclosure url="file:///etc/passwd"/></item>
            </channel></rss>
            """
        let items = try Feed.items(Data(rss.utf8), base: base)
        XCTAssertEqual(items.map(\.remoteURL), ["https://example.org/podcast/ep1.mp3", "https://cdn.example.org/ep2.mp3"])
        XCTAssertEqual(items.map(\.title), ["One & Only", "Two"])
        XCTAssertEqual(items.map(\.duration), [3_723_000_000, 95_000_000])
        XCTAssertEqual(items[0].artist, "Host")
        XCTAssertEqual(items.map(\.cover), ["https://example.org/show.jpg", "https://example.org/ep2.jpg"])
    }

    func testAtomEntriesGiveTheirEnclosureLinks() throws {
        let atom = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Show</title>
            <entry><title>First</title><link rel="alternate" href="https://example.org/page"/>
              <link rel="enclosure" href="https://example.org/a.ogg" type="audio/ogg"/></entry>
            </feed>
            """
        let items = try Feed.items(Data(atom.utf8), base: base)
        XCTAssertEqual(items.map(\.remoteURL), ["https://example.org/a.ogg"])
        XCTAssertEqual(items.first?.title, "First")
    }

    func testM3UAndJSONCataloguesAndDuplicates() throws {
        let m3u = "#EXTM3U\n#EXTINF:10,Thing\nhttps://example.org/a.mp3\nrelative.mp3\n\nhttps://example.org/a.mp3\n"
        XCTAssertEqual(try Feed.items(Data(m3u.utf8), base: base).map(\.remoteURL),
                       ["https://example.org/a.mp3", "https://example.org/podcast/relative.mp3"])
        let json = #"[{"url": "b.ogg", "title": "B", "cover": "b.jpg"}, {"title": "no url"}, 7, {"url": "ftp://x/y"}]"#
        let items = try Feed.items(Data(json.utf8), base: base)
        XCTAssertEqual(items.map(\.remoteURL), ["https://example.org/podcast/b.ogg"])
        XCTAssertEqual(items.first?.cover, "https://example.org/podcast/b.jpg")
    }

    func testWhatIsNotAFeedIsRefusedWithAReason() {
        for bad in ["<rss><channel><item>", "{\"url\": 1}", "[1, 2]", "", "\u{0}\u{1}binary"] {
            XCTAssertThrowsError(try Feed.items(Data(bad.utf8), base: base), bad)
        }
        // An entity bomb is neither expanded nor fatal.
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><rss><channel><item><title>&c;</title>
            <enclosure url="https://example.org/x.mp3"/></item></channel></rss>
            """
        _ = try? Feed.items(Data(bomb.utf8), base: base)
    }
}
