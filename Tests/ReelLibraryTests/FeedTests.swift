import Foundation
import ReelHarness
import ReelCore
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

    func testPodloveChaptersAreReadInOrderAndAChaptersDocumentIsNamed() throws {
        let rss = """
            <rss xmlns:psc="http://podlove.org/simple-chapters" xmlns:podcast="https://podcastindex.org/namespace/1.0"><channel>
            <item><title>A</title><enclosure url="a.mp3"/>
              <psc:chapters><psc:chapter start="1:02.5" title="Second"/><psc:chapter start="0" title=" First "/>
              <psc:chapter start="-1" title="Negative"/><psc:chapter title="No start"/><psc:chapter start="00:10:00"/></psc:chapters></item>
            <item><title>B</title><enclosure url="b.mp3"/><podcast:chapters url="b.json" type="application/json+chapters"/></item>
            <item><title>C</title><enclosure url="c.mp3"/><podcast:chapters url="file:///etc/passwd"/></item>
            </channel></rss>
            """
        let items = try Feed.items(Data(rss.utf8), base: base)
        XCTAssertEqual(items[0].chapters, [Chapter(start: 0, title: "First"), Chapter(start: 62_500_000, title: "Second"),
                                           Chapter(start: 600_000_000, title: "Chapter 3")])
        XCTAssertEqual(items[1].chaptersURL, "https://example.org/podcast/b.json")
        XCTAssertNil(items[2].chaptersURL, "only http(s) documents are fetched")
    }

    func testAChaptersDocumentKeepsTheChaptersToMoveBetween() throws {
        let json = #"{"version":"1.2.0","chapters":[{"startTime":12.25,"title":"Two"},{"startTime":0,"title":"One"},"#
            + #"{"startTime":5,"title":"Picture","toc":false},{"startTime":"7"},{"title":"none"},{"startTime":-3}]}"#
        let reading = try FeedChapters.read(Data(json.utf8))
        XCTAssertEqual(reading.chapters, [Chapter(start: 0, title: "One"), Chapter(start: 12_250_000, title: "Two")])
        XCTAssertEqual(reading.problems, ["chapter 4 left out: its startTime is not a number",
                                          "chapter 5 left out: it has no startTime",
                                          "chapter 6 left out: it starts before 0 (-3.0)"])
        XCTAssertThrowsError(try FeedChapters.read(Data("<html>".utf8)))
        XCTAssertThrowsError(try FeedChapters.read(Data(#"{"chapters": 3}"#.utf8)))
        XCTAssertThrowsError(try FeedChapters.read(Data(count: Feed.largestChapters + 1)))
    }

    /// Good chapters survive bad ones beside them: NaN (as Python's json writes it), a string, a
    /// start no file reaches, a title of a megabyte, an entry that is no object.
    func testBadEntriesCostOnlyThemselves() throws {
        let long = String(repeating: "t", count: 1_000_000)
        let json = #"{"chapters":[{"startTime":0,"title":"Good one"},{"startTime":NaN,"title":"nan"},"#
            + #"{"startTime":-Infinity},{"startTime":"ten"},{"startTime":1e308},7,[],"#
            + #"{"startTime":30,"title":"\#(long)"},{"startTime":60,"title":"NaN and Infinity, \"quoted\""}]}"#
        let reading = try FeedChapters.read(Data(json.utf8))
        XCTAssertEqual(reading.chapters.map(\.start), [0, 30_000_000, 60_000_000])
        XCTAssertEqual(reading.chapters[0].title, "Good one")
        XCTAssertEqual(reading.chapters[1].title.utf8.count, 10_000, "a long title is cut, not the chapter")
        XCTAssertEqual(reading.chapters[2].title, "NaN and Infinity, \"quoted\"", "words in strings are left alone")
        XCTAssertEqual(reading.problems.count, 7, "\(reading.problems)")
        XCTAssertTrue(reading.problems[0].hasPrefix("chapter 2 left out"), "\(reading.problems)")
        XCTAssertTrue(reading.problems.contains("chapter 5 left out: its start (1e+308 s) is no time in a file"), "\(reading.problems)")
        XCTAssertTrue(reading.problems.contains("chapter 6 left out: it is not an object"), "\(reading.problems)")
        XCTAssertEqual(FeedChapters.summary(reading.problems).components(separatedBy: "; ").last, "and 2 more")
    }

    func testTenThousandChaptersAreKeptAndMoreAreSaidToBeLeftOut() throws {
        let entries = (0..<10_005).map { #"{"startTime":\#($0),"title":"C\#($0)"}"# }
        let reading = try FeedChapters.read(Data(#"{"chapters":[\#(entries.joined(separator: ","))]}"#.utf8))
        XCTAssertEqual(reading.chapters.count, 10_000)
        XCTAssertEqual(reading.problems, ["kept the first 10000 chapters, the most reel keeps; 5 more left out"])

        let psc = (0..<10_002).map { #"<psc:chapter start="\#($0)" title="C\#($0)"/>"# }.joined()
        let rss = #"<rss xmlns:psc="http://podlove.org/simple-chapters"><channel><item><title>A</title><enclosure url="a.mp3"/>"#
            + "<psc:chapters>\(psc)<psc:chapter start=\"soon\"/></psc:chapters></item></channel></rss>"
        let item = try XCTUnwrap(Feed.items(Data(rss.utf8), base: base).first)
        XCTAssertEqual(item.chapters.count, 10_000)
        XCTAssertEqual(item.chapterProblems.count, 3)
        XCTAssertEqual(item.chapterProblems.last, "chapter 10003 left out: its start \"soon\" is no time")
    }

    func testEscapesInAttributesAreDecodedOnceAndExternalEntitiesAreNotRead() throws {
        // libxml2's SAX2 hands `&amp;` in an attribute on as `&#38;`: the URL must come out as written.
        let rss = """
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <rss xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
            <item><title>A&amp;B &lt;1&gt; &#233;&#x2013;&secret;</title>
              <enclosure url="https://example.org/e.mp3?a=1&amp;b=2&amp;amp;c=&#x33;"/>
              <itunes:image href="https://example.org/i.jpg?x=&quot;y&quot;"/></item>
            </channel></rss>
            """
        let item = try XCTUnwrap(try Feed.items(Data(rss.utf8), base: base).first)
        XCTAssertEqual(item.remoteURL, "https://example.org/e.mp3?a=1&b=2&amp;c=3")
        XCTAssertEqual(item.cover, "https://example.org/i.jpg?x=%22y%22")
        XCTAssertEqual(item.title, "A&B <1> é–")
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

/// Feeds as long-running podcasts and hostile servers write them.
final class LargeFeedTests: XCTestCase {
    let base = URL(string: "https://example.org/podcast/feed.xml")

    func rss(_ items: some Sequence<String>) -> Data {
        var out = Data(#"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Show</title>"#.utf8)
        for item in items { out.append(contentsOf: item.utf8) }
        out.append(contentsOf: "</channel></rss>".utf8)
        return out
    }

    func testAFeedOf20MBWithAHundredThousandItemsIsReadWhole() throws {
        let data = FeedFixtures.rss(items: 100_000, base: "")
        XCTAssertGreaterThan(data.count, 15_000_000)
        let items = try Feed.items(data, base: base)
        XCTAssertEqual(items.count, 100_000)
        XCTAssertEqual(items.last?.title, "Episode 100000")
        XCTAssertEqual(items.last?.remoteURL, "https://example.org/podcast/e100000.mp3")
    }

    func testMoreItemsThanTheLimitAreRefusedNotCutSilently() {
        let m3u = (0...Feed.limit).map { "https://example.org/\($0).mp3" }.joined(separator: "\n")
        XCTAssertThrowsError(try Feed.items(Data(m3u.utf8), base: base)) { error in
            XCTAssertTrue("\(error)".contains("more than 100000 items"), "\(error)")
        }
        let feed = rss((0...Feed.limit).lazy.map { "<item><enclosure url=\"\($0).mp3\"/></item>" })
        XCTAssertThrowsError(try Feed.items(feed, base: base)) { error in
            XCTAssertTrue("\(error)".contains("more than 100000 items"), "\(error)")
        }
    }

    func testMoreThan32MiBIsRefusedFromMemoryAndFromAFile() throws {
        let big = Data(repeating: UInt8(ascii: " "), count: Feed.largest + 1)
        XCTAssertThrowsError(try Feed.items(big, base: base)) { XCTAssertTrue("\($0)".contains("32 MiB"), "\($0)") }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("big-feed-\(getpid())")
        defer { try? FileManager.default.removeItem(at: file) }
        try big.write(to: file)
        XCTAssertThrowsError(try Feed.items(atPath: file.path, base: nil)) { XCTAssertTrue("\($0)".contains("32 MiB"), "\($0)") }
    }

    func testAnEntityFloodInOneTitleIsReadAndCutAtTenThousandBytes() throws {
        let title = String(repeating: "A", count: 10_000) + String(repeating: "&amp;", count: 1_980_000)
        let data = rss(["<item><title>\(title)</title><enclosure url=\"a.mp3\"/></item>"])
        let items = try Feed.items(data, base: base)
        let kept = try XCTUnwrap(items.first?.title)
        XCTAssertTrue(kept.hasPrefix(String(repeating: "A", count: 10_000)))
        XCTAssertLessThan(kept.utf8.count, 10_100)
    }

    func testAJSONCatalogueTitleIsCutAtTenThousandBytesAsRSSIs() throws {
        let long = String(repeating: "é", count: 1_000_000)   // 2 MB
        let json = #"[{"url": "a.mp3", "title": "\#(long)"}, {"url": "http://x/\#(String(repeating: "b", count: 20_000))"}]"#
        let items = try Feed.items(Data(json.utf8), base: base)
        XCTAssertEqual(items.count, 1, "a URL of 20 KB is no URL reel plays")
        XCTAssertEqual(items.first?.title, String(repeating: "é", count: 5_000))
    }

    func testAControlCharacterInATitleDoesNotRejectTheFeed() throws {
        let data = rss(["<item><title>Bad\u{1}\u{8}Title\u{1B}</title><enclosure url=\"a.mp3\"/></item>"])
        let items = try Feed.items(data, base: base)
        XCTAssertEqual(items.first?.title, "Bad  Title")
    }

    func testCDATATitlesAreRead() throws {
        let items = try Feed.items(rss(["<item><title><![CDATA[Q&A <live>]]></title><enclosure url=\"a.mp3\"/></item>"]), base: base)
        XCTAssertEqual(items.first?.title, "Q&A <live>")
    }

    func testBrokenXMLSaysWhereAndWhatInWords() {
        let cases = ["<rss><channel>\n<item>\n<title>x</title>": "line 3",
                     "<rss><channel><item></channel></rss>": "does not match"]
        for (text, expected) in cases {
            XCTAssertThrowsError(try Feed.items(Data(text.utf8), base: base)) { error in
                let said = "\(error)"
                XCTAssertTrue(said.hasPrefix("the feed is not valid XML at line"), said)
                XCTAssertTrue(said.contains(expected), said)
                XCTAssertFalse(said.contains("NSXMLParserErrorDomain"), said)
            }
        }
    }

    func testAJSONCatalogueSkipsWhatItDoesNotNeedAndDecodesEscapes() throws {
        let json = #"""
            [{"id": 1, "extra": {"deep": [1, 2.5e3, true, null, {"x": "y"}]}, "url": "a\/b.mp3", "title": "Caf\u00e9 \ud83c\udfb5 \"q\""},
             {"url": "https://example.org/c.mp3", "cover": "c.jpg", "tags": ["a", "b"]}, "stray", 7, []]
            """#
        let items = try Feed.items(Data(json.utf8), base: base)
        XCTAssertEqual(items.map(\.remoteURL), ["https://example.org/podcast/a/b.mp3", "https://example.org/c.mp3"])
        XCTAssertEqual(items.first?.title, "Café 🎵 \"q\"")
        XCTAssertEqual(items.last?.cover, "https://example.org/podcast/c.jpg")
    }

    func testBrokenJSONSaysWhere() {
        for (text, expected) in ["[{\"url\": \"a\"},\n{\"url\": }]": "line 2", "[{\"url\": \"a\"}": "ends too soon",
                                 "[\"abc]": "not closed", "[" + String(repeating: "[", count: 100) + "]": "nested"] {
            XCTAssertThrowsError(try Feed.items(Data(text.utf8), base: base)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }

    func testAThirtyMegabyteCatalogueIsRead() throws {
        let json = FeedFixtures.catalogue(items: 100_000, base: "https://example.org/")
        XCTAssertGreaterThan(json.count, 29_000_000)
        XCTAssertEqual(try Feed.items(json, base: base).count, 100_000)
    }
}
