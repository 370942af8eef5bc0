import Foundation
import ReelCore
import ReelLibrary
import XCTest

final class PlayableURITests: XCTestCase {
    func testAcceptsReadableFilesPathsAndHTTP() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reel uri test.ogg")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try PlayableURI.validate(file.absoluteString).get(), file.absoluteString)
        XCTAssertEqual(try PlayableURI.validate(file.path).get(), file.absoluteString, "a path becomes a file URI")
        XCTAssertEqual(try PlayableURI.validate("https://example.org/a.mp3").get(), "https://example.org/a.mp3")
        XCTAssertEqual(try PlayableURI.validate("HTTP://example.org/a.mp3").get(), "HTTP://example.org/a.mp3")
    }

    func testRefusesWithTheRightError() {
        let cases: [(String, (String) -> URIProblem)] = [
            ("ftp://example.org/a.mp3", URIProblem.invalid),
            ("just words", URIProblem.invalid),
            ("http://", URIProblem.invalid),
            ("http:///nohost.mp3", URIProblem.invalid),
            ("http://example.org/a\nb.mp3", URIProblem.invalid),
            ("https://example.org/a b.mp3", URIProblem.invalid),
            ("https://example.org/\u{85}.mp3", URIProblem.invalid),
            ("file:///definitely/not/here.ogg", URIProblem.noSuchFile),
            ("/", URIProblem.noSuchFile),
            ("http://example.org/" + String(repeating: "a", count: 16 << 10), URIProblem.invalid),
            ("/" + String(repeating: "a", count: 16 << 10), URIProblem.invalid),
        ]
        for (uri, kind) in cases {
            guard case .failure(let problem) = PlayableURI.validate(uri) else { XCTFail("\(uri) accepted"); continue }
            XCTAssertEqual(problem, kind(problem.description), uri)
            XCTAssertFalse(problem.description.contains("\n"), "a newline reached the error: \(problem)")
        }
    }

    func testAPlaylistWithNothingToPlaySaysWhy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-uri-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func refusal(_ name: String, _ text: String) throws -> String {
            let list = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: list)
            guard case .failure(let problem) = PlayableURI.expand(list.path) else { XCTFail("\(name) accepted"); return "" }
            XCTAssertFalse(problem.description.contains("\n"), "a newline reached the error: \(problem)")
            return problem.description
        }
        let missing = try refusal("missing.m3u", "/no/such/a.ogg\n/no/such/b\nc.ogg\n")
        XCTAssertTrue(missing.contains("/no/such/a.ogg: no such file") && missing.hasSuffix("and 2 more problems"), missing)
        XCTAssertTrue(try refusal("empty.m3u", "#EXTM3U\n").hasSuffix("(it lists no entries)"))
        let past = try refusal("long.m3u", String(repeating: "/no/such.ogg\n", count: Importer.maxPlaylistEntries + 1))
        XCTAssertTrue(past.contains("no such file") && past.hasSuffix("and 1 more problem"), past)   // the limit is the other
    }

    func testAbsoluteMeansAPathOrAPlayableScheme() {
        XCTAssertTrue(URLParts.isAbsolute("/music/a.ogg"))
        XCTAssertTrue(URLParts.isAbsolute("HTTPS://example.org/a.mp3"))
        XCTAssertTrue(URLParts.isAbsolute("file:///a.ogg"))
        XCTAssertFalse(URLParts.isAbsolute("music/a.ogg"))
        XCTAssertFalse(URLParts.isAbsolute("ftp://example.org/a.mp3"))
        XCTAssertFalse(URLParts.isAbsolute("a:b"))
    }
}
