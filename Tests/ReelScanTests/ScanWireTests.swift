import ReelCore
import XCTest
@testable import ReelScan

/// The scanner's replies: what goes over the pipe comes back the same, and garbage is refused
/// with a reason rather than read past its end.
final class ScanWireTests: XCTestCase {
    func sample() -> ScannedFile {
        var item = ProbedItem(title: "Tïtle\n", artist: nil, album: "Album", duration: 61_000_000, genre: "Jazz",
                              albumArtist: "AA", date: "2001", format: "44100:16:2")
        item.track = 7
        item.chapters = [Chapter(start: 0, title: "One"), Chapter(start: 30_000_000, title: "")]
        return ScannedFile(path: "/m/a\u{0}b.mp3", size: 1234, modified: 1_700_000_000_123_456_789, identity: 0xFEED_FACE,
                           outcome: .media(item, picture: true))
    }

    func testAReplyComesBackAsItWent() throws {
        let files = [sample(), ScannedFile(path: "/m/x.ogg", size: 0, modified: 0, identity: 0, outcome: .unreadable("empty"))]
        var stream: [UInt8] = []
        for file in files { stream += ScanWire.frame(ScanWire.encode(file)) }
        var at = 0
        var decoded: [ScannedFile] = []
        while let (payload, next) = try ScanWire.nextFrame(in: stream, from: at) {
            decoded.append(try ScanWire.decode(payload))
            at = next
        }
        XCTAssertEqual(decoded, files)
        let one = ScanWire.frame(ScanWire.encode(files[0]))
        XCTAssertNil(try ScanWire.nextFrame(in: Array(one.dropLast()), from: 0), "a frame cut short waits for the rest")
        XCTAssertNil(try ScanWire.nextFrame(in: Array(one.prefix(3)), from: 0), "so does its length")
    }

    func testAFrameLongerThanTheLimitIsRefused() {
        let header: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F]
        XCTAssertThrowsError(try ScanWire.nextFrame(in: header, from: 0))
    }

    func testEveryCutAndEveryFlippedByteIsRefusedOrReadWithoutCrashing() {
        let payload = ScanWire.encode(sample())
        for length in 0..<payload.count {
            XCTAssertThrowsError(try ScanWire.decode(payload[0..<length]), "cut at \(length)")
        }
        var generator = SeededGenerator(seed: 56)
        for _ in 0..<2_000 {
            var bytes = payload
            bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            _ = try? ScanWire.decode(bytes[...])
        }
    }

    func testIdentityTellsSpansApartAndIsNeverZero() {
        XCTAssertEqual(FileIdentity.ranges(size: 10).map(\.count), [10])
        XCTAssertEqual(FileIdentity.ranges(size: 100_000).map(\.offset), [0, 65_536])
        XCTAssertEqual(FileIdentity.ranges(size: 100_000).map(\.count), [65_536, 34_464])
        XCTAssertEqual(FileIdentity.ranges(size: 1_000_000).map(\.offset), [0, 1_000_000 - 65_536])
        let a = [UInt8](repeating: 1, count: 100), b = a.enumerated().map { $0.offset == 99 ? UInt8(2) : $0.element }
        func hash(_ bytes: [UInt8], size: Int64) -> UInt64 { bytes.withUnsafeBytes { FileIdentity.hash(size: size, [$0]) } }
        XCTAssertNotEqual(hash(a, size: 100), hash(b, size: 100), "one byte differs")
        XCTAssertNotEqual(hash(a, size: 100), hash(a, size: 101), "the size differs")
        XCTAssertEqual(hash(a, size: 100), hash(a, size: 100))
        XCTAssertNotEqual(hash([], size: 0), 0)
    }
}

/// xorshift64*: the same bytes each run, so a failure can be found again.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }
}
