import Foundation
@testable import ReelCache
import ReelHarness
import XCTest

/// A download's bytes written around the page cache: every byte lands at its
/// offset, what is written is told in order, a slow download shows its
/// progress, and a full disk is an error in words.
final class DirectWriterTests: FolderTestCase {
    /// A writer on a new data file in `folder`, and the ranges it reports.
    func makeWriter(in folder: URL? = nil, open: ((String) -> Int32)? = nil)
        throws -> (DirectWriter, DataFile, LockedBox<[Range<Int64>]>) {
        let file = try DataFile(path: (folder ?? dir).appendingPathComponent("data").path)
        let told = LockedBox<[Range<Int64>]>([])
        let record = { (range: Range<Int64>) in told.update { $0.append(range) } }
        let made = open.map { DirectWriter(file: file, open: $0, onWritten: record) } ?? DirectWriter(file: file, onWritten: record)
        guard let writer = made else {
            throw XCTSkip("this file system does not take O_DIRECT writes")
        }
        return (writer, file, told)
    }

    func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 7 &+ seed) }
    }

    func contents(_ file: DataFile) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path)))
    }

    func testBytesFromAnUnalignedOffsetInOddPiecesLandWhereTheyBelongAndAreToldInOrder() throws {
        let (writer, file, told) = try makeWriter()
        let start = 12_345
        let all = bytes(9 << 20, seed: 3)   // more than all the buffers hold at once
        var at = 0
        var piece = 1
        while at < all.count {
            let n = min(piece, all.count - at)
            try all[at..<at + n].withUnsafeBytes { try writer.append($0, at: Int64(start + at)) }
            at += n
            piece = piece * 7 % 700_001 + 1
        }
        try writer.close()
        let written = try contents(file)
        XCTAssertEqual(written.count, start + all.count)
        XCTAssertEqual(Array(written[start...]), all)
        XCTAssertEqual(Array(written[..<start]), [UInt8](repeating: 0, count: start))
        let ranges = told.value
        XCTAssertEqual(ranges.first?.lowerBound, Int64(start))
        XCTAssertEqual(ranges.last?.upperBound, Int64(start + all.count))
        for (a, b) in zip(ranges, ranges.dropFirst()) { XCTAssertEqual(a.upperBound, b.lowerBound, "\(ranges)") }
        XCTAssertFalse(writer.isOpen)
    }

    func testBytesHeldLongerThanTheLongestHoldAreWrittenBeforeTheBufferFills() throws {
        let (writer, file, told) = try makeWriter()
        let first = bytes(10_000, seed: 1)
        try first.withUnsafeBytes { try writer.append($0, at: 0) }
        Thread.sleep(forTimeInterval: DirectWriter.longestHold * 1.5)
        try [UInt8(7)].withUnsafeBytes { try writer.append($0, at: 10_000) }
        // The whole blocks of the 10,001 bytes are written without waiting for more.
        let deadline = Date().addingTimeInterval(5)
        while told.value.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        XCTAssertEqual(told.value, [0..<8192])
        XCTAssertEqual(Array(try contents(file)[..<8192]), Array(first[..<8192]))
        try writer.close()
        XCTAssertEqual(told.value, [0..<8192, 8192..<10_001])
        XCTAssertEqual(try contents(file), first + [7])
    }

    func testBytesAtAnotherOffsetStartAfreshAfterWhatCameBefore() throws {
        let (writer, file, told) = try makeWriter()
        let a = bytes(5000, seed: 5), b = bytes(70_000, seed: 9)
        try a.withUnsafeBytes { try writer.append($0, at: 0) }
        try b.withUnsafeBytes { try writer.append($0, at: 100_000) }
        try writer.close()
        let written = try contents(file)
        XCTAssertEqual(Array(written[..<5000]), a)
        XCTAssertEqual(Array(written[100_000...]), b)
        XCTAssertEqual(told.value, [0..<5000, 100_000..<170_000])
    }

    func testWritesTheDescriptorRefusesGoThroughThePageCacheInstead() throws {
        // A descriptor open for reading only refuses every write, as a file system refusing O_DIRECT would.
        let (writer, file, told) = try makeWriter(open: { Glibc.open($0, O_RDONLY | O_CLOEXEC) })
        let all = bytes(5 << 20, seed: 4)
        for at in stride(from: 0, to: all.count, by: 300_000) {
            try all[at..<min(at + 300_000, all.count)].withUnsafeBytes { try writer.append($0, at: Int64(at)) }
        }
        try writer.close()
        XCTAssertEqual(try contents(file), all)
        XCTAssertEqual(told.value.first?.lowerBound, 0)
        XCTAssertEqual(told.value.last?.upperBound, Int64(all.count))
    }

    func testAFullDiskIsAnErrorInWordsAndNothingPastWhatWasWrittenIsTold() throws {
        let disk = try ScratchDisk(size: 3 << 20)
        guard disk.canFill else { throw XCTSkip("a full disk needs a tmpfs of its own, which takes root") }
        let (writer, _, told) = try makeWriter(in: disk.dir)
        let all = bytes(8 << 20, seed: 2)
        var failure: Error?
        do {
            for at in stride(from: 0, to: all.count, by: 256 << 10) {
                try all[at..<at + (256 << 10)].withUnsafeBytes { try writer.append($0, at: Int64(at)) }
            }
        } catch {
            failure = error
        }
        do { try writer.close() } catch { failure = failure ?? error }
        XCTAssertTrue("\(failure.map { "\($0)" } ?? "no error")".contains("the disk is full"), "\(String(describing: failure))")
        XCTAssertLessThanOrEqual(told.value.last?.upperBound ?? 0, 3 << 20)
    }
}
