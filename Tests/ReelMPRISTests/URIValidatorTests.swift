import Foundation
import ReelDBus
import XCTest
@testable import ReelMPRIS

final class URIValidatorTests: XCTestCase {
    func testAcceptsReadableFilesPathsAndHTTP() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reel uri test.ogg")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try URIValidator.validate(file.absoluteString).get(), file.absoluteString)
        XCTAssertEqual(try URIValidator.validate(file.path).get(), file.absoluteString, "a path becomes a file URI")
        XCTAssertEqual(try URIValidator.validate("https://example.org/a.mp3").get(), "https://example.org/a.mp3")
        XCTAssertEqual(try URIValidator.validate("HTTP://example.org/a.mp3").get(), "HTTP://example.org/a.mp3")
    }

    func testRefusesWithTheRightError() {
        let cases: [(String, String)] = [
            ("ftp://example.org/a.mp3", MPRIS.errorInvalidURI),
            ("just words", MPRIS.errorInvalidURI),
            ("http://", MPRIS.errorInvalidURI),
            ("http:///nohost.mp3", MPRIS.errorInvalidURI),
            ("http://example.org/a\nb.mp3", MPRIS.errorInvalidURI),
            ("https://example.org/a b.mp3", MPRIS.errorInvalidURI),
            ("https://example.org/\u{85}.mp3", MPRIS.errorInvalidURI),
            ("file:///definitely/not/here.ogg", MPRIS.errorNoSuchFile),
            ("/", MPRIS.errorNoSuchFile),
        ]
        for (uri, name) in cases {
            guard case .failure(let error) = URIValidator.validate(uri) else { XCTFail("\(uri) accepted"); continue }
            XCTAssertEqual(error.name, name, uri)
            XCTAssertFalse(error.message.contains("\n"), "a newline reached the error: \(error.message)")
        }
    }
}
