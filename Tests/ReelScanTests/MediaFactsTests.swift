import ReelCore
import XCTest
@testable import ReelScan

/// The rules that make what a demuxer read media, and what the library keeps of it.
final class MediaFactsTests: XCTestCase {
    func audio(duration: MediaTime = 180_000_000, bitRate: Int64 = 128_000) -> MediaFacts {
        var facts = MediaFacts()
        facts.audio = true
        facts.duration = duration
        facts.bitRate = bitRate
        facts.sampleRate = 44_100
        facts.channels = 2
        facts.bits = 16
        return facts
    }

    func item(_ outcome: ScannedFile.Outcome) -> ProbedItem? {
        if case .media(let item, _) = outcome { item } else { nil }
    }

    func reason(_ outcome: ScannedFile.Outcome) -> String? {
        if case .unreadable(let why) = outcome { why } else { nil }
    }

    func testNoAudioOrVideoIsNotMedia() {
        var facts = MediaFacts()
        facts.picture = true   // a cover alone, as an mp3 holding nothing else
        XCTAssertEqual(reason(facts.outcome(size: 1000, namedAsMedia: true)), "not a media file (no audio or video in it)")
    }

    func testAWeakGuessIsMediaOnlyWhenTheNameSaysSo() {
        var facts = audio()
        facts.probeScore = 5
        XCTAssertTrue(reason(facts.outcome(size: 3_000_000, namedAsMedia: false))?.contains("by chance") == true)
        XCTAssertNotNil(item(facts.outcome(size: 3_000_000, namedAsMedia: true)))
        facts.probeScore = MediaFacts.weakGuess
        XCTAssertNotNil(item(facts.outcome(size: 3_000_000, namedAsMedia: false)), "a sure guess needs no name: .dsf, .tta, .spx")
    }

    func testALengthOf47HoursIn80KBIsCutToWhatTheBytesHold() {
        let facts = audio(duration: 47 * 3_600_000_000, bitRate: 128_000)
        // 80 KB at 128 kbit/s is 5.12 s.
        XCTAssertEqual(item(facts.outcome(size: 80_000, namedAsMedia: true))?.duration, 5_000_000)
        var unknownRate = facts
        unknownRate.bitRate = 0
        // Without a rate, the most the bytes could hold at 2 kbit/s: 320 s.
        XCTAssertEqual(item(unknownRate.outcome(size: 80_000, namedAsMedia: true))?.duration, 320_000_000)
        XCTAssertEqual(item(audio().outcome(size: 3_000_000, namedAsMedia: true))?.duration, 180_000_000, "a true length stays")
    }

    func testNoLengthAtAllIsNotMediaButABitRateGivesOne() {
        var facts = audio(duration: -1, bitRate: 0)
        XCTAssertTrue(reason(facts.outcome(size: 10_000, namedAsMedia: true))?.contains("nothing of its length") == true)
        facts.bitRate = 80_000
        XCTAssertEqual(item(facts.outcome(size: 10_000, namedAsMedia: true))?.duration, 1_000_000)
    }

    func testFormatIsWrittenAsMPDWritesIt() {
        var facts = audio()
        XCTAssertEqual(item(facts.outcome(size: 3_000_000, namedAsMedia: true))?.format, "44100:16:2")
        facts.bits = 0
        XCTAssertEqual(item(facts.outcome(size: 3_000_000, namedAsMedia: true))?.format, "44100:f:2")
        facts.sampleRate = 0
        XCTAssertNil(item(facts.outcome(size: 3_000_000, namedAsMedia: true))?.format)
    }

    func testChaptersAreTimedFromTheFirstTimestampAsMPVTimesThem() {
        var facts = audio()
        facts.start = 25_057
        facts.chapters = [(25_057, "One"), (60_025_057, nil), (60_025_057, "Again")]
        let chapters = item(facts.outcome(size: 3_000_000, namedAsMedia: true))?.chapters ?? []
        XCTAssertEqual(chapters.first?.start, 0)
        XCTAssertEqual(chapters.first?.title, "One")
        XCTAssertTrue(chapters.contains { $0.start == 60_000_000 })
        XCTAssertEqual(chapters, Chapter.normalized(chapters), "normalized: ordered, no zero-length ones")
    }

    func testA129ZeroLengthChaptersFileKeepsFewChapters() {
        var facts = audio()
        facts.chapters = (0..<129).map { _ in (0, "empty") }
        let chapters = item(facts.outcome(size: 3_000_000, namedAsMedia: true))?.chapters ?? []
        XCTAssertLessThanOrEqual(chapters.count, 1, "\(chapters.count)")
    }

    func testTagsComeFromTheLayersTheContainerLast() {
        var facts = audio()
        facts.tagLayers = [["title": "Stream title", "artist": "A"], ["title": "Container title", "track": "3/12", "disc": "2"]]
        let probed = item(facts.outcome(size: 3_000_000, namedAsMedia: true))
        XCTAssertEqual(probed?.title, "Container title")
        XCTAssertEqual(probed?.artist, "A")
        XCTAssertEqual(probed?.track, 3)
        XCTAssertEqual(probed?.disc, 2)
    }
}
