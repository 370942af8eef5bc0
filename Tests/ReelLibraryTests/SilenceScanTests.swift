import XCTest
import FoundationEssentials
@testable import ReelLibrary
@testable import ReelCore

/// Silences as ffmpeg finds them in a real file, and as the library keeps them.
final class SilenceScanTests: XCTestCase {
    func testSilencedetectLinesBecomeSilences() {
        let log = """
              Duration: 00:00:08.02, start: 0.025057, bitrate: 128 kb/s
            [silencedetect @ 0x55] silence_start: 1
            size=N/A time=00:00:03.00 bitrate=N/A speed= 300x
            [silencedetect @ 0x55] silence_end: 3.00002 | silence_duration: 2.00002
            [silencedetect @ 0x55] silence_start: -0.0001
            [silencedetect @ 0x55] silence_end: 0.6 | silence_duration: 0.6
            [silencedetect @ 0x55] silence_start: 7.25
            """
        XCTAssertEqual(SilenceScan.parse(log, length: 8_000_000).origin, 25_057)
        XCTAssertEqual(SilenceScan.parse(log, length: 8_000_000).spans,
                       [Silence(start: 0, end: 600_000)!, Silence(start: 1_000_000, end: 3_000_020)!,
                        Silence(start: 7_250_000, end: 8_000_000)!],
                       "sorted; one running to the end ends at the file's length")
        XCTAssertEqual(SilenceScan.parse("[silencedetect @ 0x1] silence_start: 7.25", length: nil), Silences())
        XCTAssertEqual(SilenceScan.parse("garbage\n[silencedetect] silence_end: x", length: nil), Silences())
    }

    func testAGeneratedFileHasItsSilencesFound() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-scan-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("talk.ogg").path
        // 1 s of tone, 2 s of silence, 1 s of tone, 0.3 s of silence, 1 s of tone.
        let result = try Subprocess.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
            "sine=f=440:d=5,volume='if(between(t,1,3)+between(t,4,4.3),0,1)':eval=frame", "-c:a", "libvorbis", path],
            timeout: 30)
        XCTAssertEqual(result.status, 0, String(decoding: result.errors, as: UTF8.self))
        let silences = try SilenceScan.file(path, length: 5_000_000).spans
        XCTAssertEqual(silences.count, 1, "only the silence over the threshold: \(silences)")
        XCTAssertEqual(Double(silences[0].start), 1_000_000, accuracy: 25_000)
        XCTAssertEqual(Double(silences[0].end), 3_000_000, accuracy: 25_000)
        XCTAssertThrowsError(try SilenceScan.file(folder.appendingPathComponent("missing.ogg").path, length: nil))
    }

    func testTheColumnKeepsWhatItWasGiven() {
        let silences = Silences([Silence(start: 0, end: 600_000)!, Silence(start: 1_000_000, end: 3_000_020)!], origin: 25_057)
        XCTAssertEqual(SilenceColumn.decode(SilenceColumn.encode(silences)), silences)
        XCTAssertEqual(SilenceColumn.encode(Silences(silences.spans)), "0 600000\n1000000 3000020", "no origin line for 0")
        XCTAssertEqual(SilenceColumn.encode(Silences()), "none", "scanned, none found: not scanned again")
        XCTAssertEqual(SilenceColumn.decode("none"), Silences())
        XCTAssertNil(SilenceColumn.encode(nil))
        XCTAssertNil(SilenceColumn.decode(nil))
        XCTAssertNil(SilenceColumn.decode("garbage\n1 x"), "a row with nothing left of it is scanned again")
        XCTAssertEqual(SilenceColumn.decode("5 9\nbad line\n1 2 3\n20 10\norigin x\n"), Silences([Silence(start: 5, end: 9)!]),
                       "a damaged row loses its bad lines only")
    }
}
