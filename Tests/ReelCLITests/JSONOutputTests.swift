import Foundation
import XCTest
@testable import ReelCLI

/// Every `--json` output parses, whatever control characters the data holds,
/// and passes the terminal filter unchanged.
final class JSONOutputTests: XCTestCase {
    /// Every C0, DEL and C1 control, and the line separators.
    let hostile = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)
        + (0x7F...0x9F).compactMap(Unicode.Scalar.init) + ["\u{2028}", "\u{2029}", "\"", "\\", "/"]))

    func testJSONLineEscapesEveryControlAndParsesBack() throws {
        var status = PlayerStatus()
        status.trackID = "/dev/reel/Track/1"
        status.title = "T" + hostile
        status.artists = [hostile]
        status.lastError = hostile
        let line = jsonLine(status.json)
        XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, line)
        XCTAssertEqual(line.terminalSafe, line, "the terminal filter changed the JSON")
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["title"] as? String, "T" + hostile)
        XCTAssertEqual(parsed["artists"] as? [String], [hostile])
        XCTAssertEqual(parsed["lastError"] as? String, hostile)
    }

    func testTheSecondLineSaysWhereTheDaemonListensAndPlays() {
        var status = PlayerStatus()
        XCTAssertNil(status.listeners)
        status.controlAddresses = ["mpd:/run/user/1000/reel/mpd.socket", "mpd:127.0.0.1:6600"]
        XCTAssertEqual(status.listeners, "MPD protocol on /run/user/1000/reel/mpd.socket and 127.0.0.1:6600")
        status.audioOutput = "snapcast:/tmp/snap\u{1b}[2Jfifo"
        XCTAssertEqual(status.listeners, "MPD protocol on /run/user/1000/reel/mpd.socket and 127.0.0.1:6600; "
                       + "playing to snapcast:/tmp/snap" + "\u{1b}[2Jfifo".printable)
        XCTAssertFalse(status.listeners!.contains("\u{1b}"), "a path cannot drive the terminal")
    }

    func testHandWrittenJSONStringsEscapeTheSame() throws {
        let text = "[" + JSON.string(hostile) + "]"
        XCTAssertEqual(text.terminalSafe, text)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String], [hostile])
    }
}
