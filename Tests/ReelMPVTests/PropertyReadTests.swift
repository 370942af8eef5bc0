import ReelCore
@testable import ReelMPV
import XCTest

/// The reads asked of mpv without waiting: what their answers are taken for, and which are dropped.
final class PropertyReadTests: XCTestCase {
    let format = AudioFormat(sampleRate: 44_100, bits: nil, channels: 2)

    func testAReadTravelsInMPVsUserdataAndBack() {
        let read = PropertyRead(.chapters, generation: 12)
        XCTAssertEqual(PropertyRead(userdata: read.userdata), read)
        XCTAssertNil(PropertyRead(userdata: 0), "a seek's or a hook's reply is no read")
        XCTAssertNil(PropertyRead(userdata: 200 << 56))
        // A generation past 56 bits wraps rather than spilling into the purpose.
        XCTAssertEqual(PropertyRead(userdata: PropertyRead(.bitrate, generation: 1 << 56 | 3).userdata),
                       PropertyRead(.bitrate, generation: 3))
    }

    func testTheFormatIsAskedOnceAFileAndShownWhenAnswered() {
        var audio = AudioReadings()
        let reads = audio.wanted(now: 0)
        XCTAssertEqual(reads.map(\.purpose), [.audioFormat, .bitrate])
        XCTAssertEqual(audio.wanted(now: 10), [], "asked already, not answered yet")
        audio.answered(reads[0], format: format)
        audio.answered(reads[1], bitrate: 192, now: 20)
        XCTAssertEqual(audio.format, format)
        XCTAssertEqual(audio.bitrate, 192)
        XCTAssertEqual(audio.wanted(now: 500_000), [], "both current")
        XCTAssertEqual(audio.wanted(now: 1_000_020).map(\.purpose), [.bitrate], "the bitrate a second later, as MPD's")
    }

    func testNoFormatYetIsNotAskedAgainUntilTheAudioRestarts() {
        var audio = AudioReadings()
        let reads = audio.wanted(now: 0)
        audio.answered(reads[0], format: nil)
        // Asked again at each status while a file opened, each answer cost a loop turn.
        XCTAssertFalse(audio.wanted(now: 10).contains { $0.purpose == .audioFormat })
        audio.restarted()
        XCTAssertEqual(audio.wanted(now: 20).map(\.purpose), [.audioFormat, .bitrate])
    }

    func testAnAnswerAskedOfTheFileBeforeIsDropped() {
        var audio = AudioReadings()
        let reads = audio.wanted(now: 0)
        audio.answered(reads[0], format: format)
        audio.answered(reads[1], bitrate: 128, now: 0)
        let stale = audio.wanted(now: 2_000_000)
        audio.fileChanged()
        XCTAssertNil(audio.format, "the last file's format is not this one's")
        XCTAssertNil(audio.bitrate)
        audio.answered(stale[0], bitrate: 320, now: 2_000_010)
        XCTAssertNil(audio.bitrate, "an answer about the file before")
        let fresh = audio.wanted(now: 2_000_020)
        XCTAssertEqual(fresh.map(\.purpose), [.audioFormat, .bitrate])
        audio.answered(fresh[1], bitrate: 96, now: 2_000_030)
        XCTAssertEqual(audio.bitrate, 96)
    }

    func testARestartKeepsWhatIsShownUntilAnswered() {
        var audio = AudioReadings()
        let reads = audio.wanted(now: 0)
        audio.answered(reads[0], format: format)
        audio.answered(reads[1], bitrate: 128, now: 0)
        audio.restarted()   // a seek: the same file
        XCTAssertEqual(audio.format, format)
        XCTAssertEqual(audio.bitrate, 128)
        XCTAssertEqual(audio.wanted(now: 10).map(\.purpose), [.audioFormat, .bitrate])
    }

    func testAFileIsOpenOnceEveryReadIsAnswered() {
        var opening = OpeningReads(generation: 4)
        XCTAssertEqual(Set(opening.reads.map(\.purpose)), [.seekable, .duration, .fileSize, .chapters, .metadata, .trackList])
        let answers: [PropertyRead.Purpose: OpeningReads.Value?] = [
            .seekable: .seekable(true), .duration: .duration(61_500_000), .fileSize: .sizeKnown(true),
            .chapters: .chapters([Chapter(start: 0, title: "One")]),
            .metadata: .tags(["Title": "Song", "ARTIST": "Band"]), .trackList: nil,
        ]
        XCTAssertFalse(opening.answered(PropertyRead(.duration, generation: 3), .duration(1)), "another file's")
        for read in opening.reads {
            XCTAssertFalse(opening.complete)
            XCTAssertTrue(opening.answered(read, answers[read.purpose] ?? nil))
        }
        XCTAssertTrue(opening.complete)
        XCTAssertFalse(opening.answered(opening.reads[0], .seekable(false)), "answered once")
        let file = opening.file
        XCTAssertTrue(file.seekable)
        XCTAssertTrue(file.sizeKnown)
        XCTAssertFalse(file.embeddedArt, "the track list had no answer")
        XCTAssertEqual(file.metadata.length, 61_500_000)
        XCTAssertEqual(file.metadata.chapters.map(\.title), ["One"])
        XCTAssertEqual(file.metadata.title, "Song")
        XCTAssertEqual(file.metadata.artists, ["Band"])
    }
}
