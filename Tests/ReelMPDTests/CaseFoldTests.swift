@testable import ReelMPD
import XCTest

/// The ASCII path of `search` agrees with Unicode's lowercasing wherever it answers, and leaves
/// every other text to it.
final class CaseFoldTests: XCTestCase {
    func testASCIIAgreesWithLowercasing() {
        let texts = ["", "a", "A", "Amber", "aMBER road", "Artist 001 Blue", "@[`{", "ZZ", "Blue amber 1"]
        for candidate in texts {
            for value in texts + ["mber", "AMB", "r", "blue amber 1 "] {
                let a = candidate.lowercased(), b = value.lowercased()
                XCTAssertEqual(CaseFold.ascii(candidate, .equal, value), a == b, "\(candidate) == \(value)")
                XCTAssertEqual(CaseFold.ascii(candidate, .startsWith, value), a.hasPrefix(b), "\(candidate) starts_with \(value)")
                XCTAssertEqual(CaseFold.ascii(candidate, .contains, value), b.isEmpty || a.contains(b), "\(candidate) contains \(value)")
            }
        }
        // "@" and "`" sit beside the letters: folding them would make "@" match "`".
        XCTAssertEqual(CaseFold.ascii("@", .equal, "`"), false)
    }

    func testOtherTextsAreLeftToUnicode() {
        XCTAssertNil(CaseFold.ascii("Émile", .contains, "e"))
        XCTAssertNil(CaseFold.ascii("Emile", .contains, "É"))
    }
}
