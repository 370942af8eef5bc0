import ReelCore
import XCTest

/// The small text helpers that stand in for Foundation's ICU-backed ones.
final class TextTests: XCTestCase {
    func testAPrefixOfBytesEndsWhereAScalarEnds() {
        XCTAssertEqual("abc".prefix(utf8Bytes: 5), "abc")
        XCTAssertEqual("abc".prefix(utf8Bytes: 2), "ab")
        XCTAssertEqual("aé".prefix(utf8Bytes: 2), "a", "é is two bytes: not cut in half")
        XCTAssertEqual("♪♪".prefix(utf8Bytes: 5), "♪")
        XCTAssertEqual("😀".prefix(utf8Bytes: 3), "")
        XCTAssertEqual(String(repeating: "ü", count: 10_000).prefix(utf8Bytes: 10_001).utf8.count, 10_000)
    }

    func testOneTableOfMediaExtensionsSaysWhichAreVideos() {
        XCTAssertTrue(MediaExtension.video.isSubset(of: MediaExtension.all))
        XCTAssertTrue(MediaExtension.audio.isDisjoint(with: MediaExtension.video))
        for ext in MediaExtension.video { XCTAssertTrue(QueueEntry.looksLikeVideo("file:///films/a.\(ext.uppercased())"), ext) }
        for ext in MediaExtension.audio { XCTAssertFalse(QueueEntry.looksLikeVideo("file:///music/a.\(ext)"), ext) }
    }

    func testPlaylistNamesFollowOneRuleOnEveryBus() {
        for name in ["evening", "évening ♪", "a..b", ".hidden", "Mix 2026-12-02", String(repeating: "x", count: 255)] {
            XCTAssertNil(PlaylistName.problem(name), name)
        }
        for name in ["", ".", "..", "a/b", "/", "nul\u{0}", "line\nbreak", "tab\there", "evil\u{202E}gpj.exe", "iso\u{2066}late",
                     "ls\u{2028}", String(repeating: "x", count: 256)] {
            XCTAssertNotNil(PlaylistName.problem(name), name.debugDescription)
        }
    }

    func testTrimmedDropsWhitespaceAndLineBreaksAtEitherEndOnly() {
        XCTAssertEqual("  a b\t\r\n".trimmed(), "a b")
        XCTAssertEqual("\u{00A0}x\u{2003}".trimmed(), "x")
        XCTAssertEqual(" \n ".trimmed(), "")
        XCTAssertEqual("Name: value"[...].trimmed(), "Name: value")
    }

    func testPercentDecodingRefusesMalformedEscapesAndInvalidUTF8() {
        XCTAssertEqual(URLParts.percentDecoded("a%20b%2Fc%C3%A9"), "a b/cé")
        XCTAssertEqual(URLParts.percentDecoded("plain"), "plain")
        XCTAssertNil(URLParts.percentDecoded("bad%zz"))
        XCTAssertNil(URLParts.percentDecoded("cut%2"))
        XCTAssertNil(URLParts.percentDecoded("%FF%FE"))
        XCTAssertEqual(QueueEntry.fallbackTitle(for: "file:///music/My%20Song.ogg"), "My Song.ogg")
    }

    func testByteCountsReadAsPeopleWriteThem() {
        XCTAssertEqual(ByteCount.text(999), "999 B")
        XCTAssertEqual(ByteCount.text(1_500_000), "1.5 MB")
        XCTAssertEqual(ByteCount.text(9_960_000), "10.0 MB")
        XCTAssertEqual(ByteCount.text(512_000_000), "512 MB")
        XCTAssertEqual(ByteCount.fixed(2.25, places: 1), "2.3")
        XCTAssertEqual(ByteCount.fixed(0.04, places: 1), "0.0")
    }
}
