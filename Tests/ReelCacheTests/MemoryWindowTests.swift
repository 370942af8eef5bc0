@testable import ReelCache
import XCTest

/// The bytes a refusing disk could not take, held for the reader within a bound.
final class MemoryWindowTests: XCTestCase {
    func bytes(_ range: Range<Int>) -> [UInt8] { range.map { UInt8(truncatingIfNeeded: $0 % 251) } }

    func keep(_ window: inout MemoryWindow, _ range: Range<Int>, reading: Int64) -> [Range<Int64>] {
        bytes(range).withUnsafeBytes { window.keep($0, at: Int64(range.lowerBound), reading: reading) }
    }

    func read(_ window: MemoryWindow, _ offset: Int, _ count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { window.copy(into: $0.baseAddress!, count: count, at: Int64(offset)) }
        return Array(buffer[0..<n])
    }

    func testPiecesInOrderJoinAndReadBackAsTheyCame() {
        var window = MemoryWindow(capacity: 1 << 20, reason: "read-only")
        XCTAssertEqual(keep(&window, 1000..<5000, reading: 1000), [])
        XCTAssertEqual(keep(&window, 5000..<9000, reading: 1000), [])
        XCTAssertEqual(window.ranges, [1000..<9000])
        XCTAssertEqual(window.count, 8000)
        XCTAssertEqual(read(window, 4000, 2000), bytes(4000..<6000))
        XCTAssertEqual(read(window, 999, 10), [], "a byte not held reads nothing")
        XCTAssertEqual(read(window, 8990, 100), bytes(8990..<9000), "a read stops at the end of what is held")
        XCTAssertEqual(window.firstHeld(from: 0), 1000)
        XCTAssertEqual(window.firstHeld(from: 3000), 3000)
        XCTAssertNil(window.firstHeld(from: 9000))
    }

    func testBytesHeldAlreadyAreKeptAndOnlyTheGapIsAdded() {
        var window = MemoryWindow(capacity: 1 << 20, reason: "read-only")
        _ = keep(&window, 100..<200, reading: 0)
        _ = keep(&window, 300..<400, reading: 0)
        _ = keep(&window, 50..<450, reading: 0)
        XCTAssertEqual(window.count, 400)
        XCTAssertEqual(read(window, 50, 400).count, 50, "one piece at a time")
        var all: [UInt8] = []
        var at = 50
        while at < 450 {
            let piece = read(window, at, 450 - at)
            XCTAssertFalse(piece.isEmpty)
            all += piece
            at += piece.count
        }
        XCTAssertEqual(all, bytes(50..<450))
    }

    func testPastTheBoundBytesBehindTheReaderGoFirstThenThoseFurthestAhead() {
        var window = MemoryWindow(capacity: 3000, reason: "read-only")
        _ = keep(&window, 0..<1000, reading: 0)
        _ = keep(&window, 10_000..<11_000, reading: 0)     // a seek far ahead
        _ = keep(&window, 2000..<3000, reading: 2000)
        // The reader is at 2000: the bytes behind it go before those far ahead.
        XCTAssertEqual(keep(&window, 3000..<3500, reading: 2000), [0..<1000])
        XCTAssertEqual(window.count, 2500)
        XCTAssertEqual(keep(&window, 3500..<4500, reading: 2000), [10_000..<11_000])
        XCTAssertEqual(window.ranges, [2000..<4500])
        XCTAssertLessThanOrEqual(window.count, window.capacity)
    }
}
