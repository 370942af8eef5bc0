import XCTest
@testable import ReelCore

/// The arithmetic of trimmed silence: which parts are cut, and times across them.
final class TrimTests: XCTestCase {
    /// Silences of 2 s at 1 s, 0.3 s at 5 s (too short: kept whole), 1.5 s at 6 s.
    let silences = [Silence(start: 1_000_000, end: 3_000_000)!, Silence(start: 5_000_000, end: 5_300_000)!,
                    Silence(start: 6_000_000, end: 7_500_000)!]

    func testLongSilencesKeepTheirEdgesAndShortOnesStayWhole() throws {
        let trim = try XCTUnwrap(Trim(silences: Silences(silences)))
        XCTAssertEqual(trim.cuts, [Silence(start: 1_150_000, end: 2_850_000)!, Silence(start: 6_150_000, end: 7_350_000)!])
        XCTAssertEqual(trim.saved, 2_900_000)
        XCTAssertNil(Trim(silences: Silences([Silence(start: 0, end: 499_999)!])), "shorter than the threshold: nothing to cut")
        XCTAssertNil(Trim(silences: Silences()))
    }

    func testTimesCrossBetweenTheFileAndTheTimeline() throws {
        let trim = try XCTUnwrap(Trim(silences: Silences(silences)))
        XCTAssertEqual(trim.timeline(1_000_000), 1_000_000)
        XCTAssertEqual(trim.timeline(2_000_000), 1_150_000, "inside a cut: where it is played, at the cut")
        XCTAssertEqual(trim.timeline(2_850_000), 1_150_000)
        XCTAssertEqual(trim.timeline(4_000_000), 2_300_000)
        XCTAssertEqual(trim.timeline(8_000_000), 8_000_000 - 2_900_000)
        for position: MediaTime in [0, 1_149_999, 2_850_000, 4_000_000, 6_149_999, 7_350_000, 9_000_000] {
            XCTAssertEqual(trim.file(trim.timeline(position)), position, "outside the cuts the two are inverse")
        }
        XCTAssertEqual(trim.file(1_150_000), 2_850_000, "the moment a cut is reached plays what follows it")
        XCTAssertEqual(trim.heard(2_000_000), 2_850_000)
        XCTAssertEqual(trim.heard(500_000), 500_000)
        XCTAssertEqual(trim.cut(after: 1_150_000)?.start, 6_150_000)
    }

    func testKeptPartsAreTheFileLessItsCuts() throws {
        let trim = try XCTUnwrap(Trim(silences: Silences(silences)))
        let parts = trim.keptParts.map { "\($0.start)+\($0.length.map(String.init) ?? "end")" }
        XCTAssertEqual(parts, ["0+1150000", "2850000+3300000", "7350000+end"])
        let fromStart = try XCTUnwrap(Trim(silences: Silences([Silence(start: 0, end: 2_000_000)!])))
        XCTAssertEqual(fromStart.keptParts.first?.start, 0, "a silence at the start keeps its last 150 ms and its first")
        XCTAssertEqual(fromStart.keptParts.count, 2)
    }

    func testSilencesAreSortedAndJoined() {
        let joined = Silence.normalized([Silence(start: 5, end: 9)!, Silence(start: 1, end: 6)!, Silence(start: 20, end: 30)!])
        XCTAssertEqual(joined, [Silence(start: 1, end: 9)!, Silence(start: 20, end: 30)!])
        XCTAssertNil(Silence(start: 5, end: 5))
        XCTAssertNil(Silence(start: -1, end: 5))
    }
}
