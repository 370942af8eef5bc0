@testable import ReelCache
import XCTest

final class ByteRangesTests: XCTestCase {
    func testInsertMergesOverlappingAndTouchingRanges() {
        var ranges = ByteRanges()
        ranges.insert(10..<20)
        ranges.insert(30..<40)
        ranges.insert(20..<25)
        XCTAssertEqual(ranges.description, "10-25,30-40")
        ranges.insert(24..<31)
        XCTAssertEqual(ranges.description, "10-40")
        ranges.insert(0..<5)
        ranges.insert(50..<60)
        ranges.insert(3..<55)
        XCTAssertEqual(ranges.description, "0-60")
        XCTAssertEqual(ranges.count, 60)
    }

    func testRemoveCutsRangesAndLeavesTheRest() {
        var ranges = ByteRanges([0..<100, 200..<300])
        ranges.remove(50..<250)
        XCTAssertEqual(ranges.description, "0-50,250-300")
        ranges.remove(0..<50)
        XCTAssertEqual(ranges.description, "250-300")
        ranges.remove(260..<270)
        XCTAssertEqual(ranges.description, "250-260,270-300")
        ranges.remove(400..<500)
        ranges.remove(280..<280)
        XCTAssertEqual(ranges.description, "250-260,270-300")
    }

    func testLookupsFindRunsGapsAndNextPresentBytes() {
        let ranges = ByteRanges([0..<100, 200..<300])
        XCTAssertTrue(ranges.contains(0) && ranges.contains(99) && !ranges.contains(100) && ranges.contains(250))
        XCTAssertEqual(ranges.runEnd(from: 50), 100)
        XCTAssertNil(ranges.runEnd(from: 150))
        XCTAssertEqual(ranges.firstMissing(from: 10), 100)
        XCTAssertEqual(ranges.firstMissing(from: 150), 150)
        XCTAssertEqual(ranges.nextPresent(after: 120), 200)
        XCTAssertNil(ranges.nextPresent(after: 300))
        XCTAssertTrue(ByteRanges([0..<300]).covers(300))
        XCTAssertFalse(ranges.covers(300))
    }

    func testTheStoredFormRoundTripsAndRejectsNonsense() {
        let ranges = ByteRanges([0..<100, 200..<300])
        XCTAssertEqual(ByteRanges(parsing: ranges.description), ranges)
        XCTAssertEqual(ByteRanges(parsing: ""), ByteRanges())
        XCTAssertNil(ByteRanges(parsing: "5-3"))
        XCTAssertNil(ByteRanges(parsing: "a-b"))
        XCTAssertNil(ByteRanges(parsing: "-1-4"))
    }

    func testContentRangeIsCheckedForConsistency() {
        XCTAssertEqual(ContentRange("bytes 100-199/1000")?.total, 1000)
        XCTAssertEqual(ContentRange("bytes 100-199/*")?.first, 100)
        XCTAssertNil(ContentRange("bytes 100-1999/1000"))
        XCTAssertNil(ContentRange("bytes 200-100/1000"))
        XCTAssertNil(ContentRange("items 1-2/3"))
    }

    func testKeysAreHexOnlyAndDifferPerURL() {
        let a = cacheKey(for: "http://example.org/a.ogg"), b = cacheKey(for: "http://example.org/b.ogg")
        XCTAssertEqual(a.count, 32)
        XCTAssertNotEqual(a, b)
        XCTAssertTrue(cacheKey(for: "http://x/../../etc/passwd").allSatisfy(\.isHexDigit))
    }
}
