import ReelMPD
import XCTest

final class RequestLineTests: XCTestCase {
    func parse(_ line: String) throws -> RequestLine { try RequestLine.parse(Substring(line)) }

    func testBareAndQuotedArguments() throws {
        XCTAssertEqual(try parse("play"), RequestLine(name: "play", arguments: []))
        XCTAssertEqual(try parse("  seek  3   12.5 "), RequestLine(name: "seek", arguments: ["3", "12.5"]))
        XCTAssertEqual(try parse(#"add "/music/A B/\"quoted\" \\ song.ogg""#),
                       RequestLine(name: "add", arguments: [#"/music/A B/"quoted" \ song.ogg"#]))
        XCTAssertEqual(try parse(#"find "(artist == \"AC/DC\")""#),
                       RequestLine(name: "find", arguments: [#"(artist == "AC/DC")"#]))
        XCTAssertEqual(try parse(#"add """#), RequestLine(name: "add", arguments: [""]))
        XCTAssertEqual(try parse("find\tartist\t \"Sigur Rós\"\t"), RequestLine(name: "find", arguments: ["artist", "Sigur Rós"]))
        // A backslash escapes a whole character, also one of several bytes.
        XCTAssertEqual(try parse(#"add "\ü♫\\""#), RequestLine(name: "add", arguments: [#"ü♫\"#]))
        XCTAssertEqual(try parse("add Björk/Homogenic/01.ogg"), RequestLine(name: "add", arguments: ["Björk/Homogenic/01.ogg"]))
        XCTAssertEqual(try parse("add_2x9"), RequestLine(name: "add_2x9", arguments: []))
    }

    func testQuoteRoundTripsAnyText() throws {
        for text in [#"a"b"#, #"back\slash"#, "ünïcødé ♫", "", " spaces "] {
            XCTAssertEqual(try parse("add " + RequestLine.quote(text)).arguments, [text])
        }
    }

    func testMalformedLinesAreRefusedWithMPDsMessages() {
        let cases: [(String, Ack.Code, String)] = [
            ("", .unknown, "No command given"),
            ("   ", .unknown, "No command given"),
            ("PLAY", .unknown, "No command given"),
            ("pl%y", .unknown, "Invalid command name"),
            // MPD answers every tokenizer error with code 5, as an unknown command.
            (#"add "unterminated"#, .unknown, "Missing closing '\"'"),
            (#"add "a"b"#, .unknown, "Space expected after closing '\"'"),
            (#"add a"b"#, .unknown, "Invalid unquoted character"),
            ("add a\u{1}b", .unknown, "Invalid unquoted character"),
            ("play\u{1}", .unknown, "Invalid command name"),
            ("playé", .unknown, "Invalid command name"),
            (#"add "a\"#, .unknown, "Missing closing '\"'"),
        ]
        for (line, code, message) in cases {
            XCTAssertThrowsError(try parse(line), line) { error in
                XCTAssertEqual(error as? Ack, Ack(code, message), line)
            }
        }
    }
}
