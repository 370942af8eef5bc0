import ReelCore
@testable import ReelMPD
import XCTest

final class StatusCommandTests: XCTestCase {
    func testStatusOfAnEmptyStoppedPlayer() {
        let c = Conversation()
        let status = c.pairs("status")
        XCTAssertEqual(status["state"], "stop")
        XCTAssertEqual(status["playlistlength"], "0")
        XCTAssertEqual(status["volume"], "100")
        XCTAssertNil(status["song"])
        XCTAssertNil(status["elapsed"])
    }

    func testStatusWhilePlaying() {
        let c = Conversation()
        c.send("add /a", "add /b", "play 0")
        c.session.loaded(TrackMetadata(length: 200_000_000), position: 12_345_000)
        let status = c.pairs("status")
        XCTAssertEqual(status["state"], "play")
        XCTAssertEqual(status["song"], "0")
        XCTAssertEqual(status["songid"], String(c.session.queue.entries[0].id.raw))
        XCTAssertEqual(status["nextsong"], "1")
        XCTAssertEqual(status["nextsongid"], String(c.session.queue.entries[1].id.raw))
        XCTAssertEqual(status["elapsed"], "12.345")
        XCTAssertEqual(status["duration"], "200.000")
        XCTAssertEqual(status["time"], "12:200")
        XCTAssertNil(status["audio"], "not known yet")
        c.session.audio = (AudioFormat(sampleRate: 44100, bits: nil, channels: 2), 192)
        XCTAssertEqual(c.pairs("status")["audio"], "44100:f:2")
        XCTAssertEqual(c.pairs("status")["bitrate"], "192")
        c.send("pause 1")
        XCTAssertEqual(c.pairs("status")["state"], "pause")
        c.send("pause 0")
        XCTAssertEqual(c.pairs("status")["state"], "play")
        c.send("pause 1", "next")
        XCTAssertEqual(c.pairs("status")["state"], "play", "next plays when paused, as in MPD")
        XCTAssertEqual(c.pairs("status")["song"], "1")
        c.send("pause 1", "previous")
        XCTAssertEqual(c.pairs("status")["state"], "play", "and so does previous")
        c.send("stop")
        XCTAssertEqual(c.pairs("status")["state"], "stop")
        c.send("next")
        XCTAssertEqual(c.pairs("status")["state"], "stop", "a stopped player stays stopped")
        c.send("pause 0")
        XCTAssertEqual(c.pairs("status")["state"], "stop", "pause 0 does not start a stopped player")
    }

    func testRepeatAndSingleAreTheLoopAndStopAfter() {
        let c = Conversation()
        func shown() -> String { let s = c.pairs("status"); return "repeat \(s["repeat"]!) single \(s["single"]!)" }
        c.send("repeat 1")
        XCTAssertEqual(c.session.snapshot.loop, .playlist)
        c.send("single 1")
        XCTAssertEqual(c.session.snapshot.loop, .track, "repeat with single repeats the song")
        XCTAssertEqual(shown(), "repeat 1 single 1")
        c.send("repeat 0")
        XCTAssertEqual(c.session.snapshot.loop, .none)
        XCTAssertEqual(c.session.snapshot.stopAfter, .eachEntry, "single alone stops after the song")
        XCTAssertEqual(shown(), "repeat 0 single 1")
        c.send("single oneshot")
        XCTAssertEqual(shown(), "repeat 0 single oneshot")
        c.send("single 0")
        XCTAssertEqual(shown(), "repeat 0 single 0")
        try? c.session.run(.setLoop(.track))   // MPRIS LoopStatus Track
        XCTAssertEqual(shown(), "repeat 1 single 1")
        c.send("single 0")
        XCTAssertEqual(c.session.snapshot.loop, .playlist)
        XCTAssertEqual(c.send("single maybe"), "ACK [2@0] {single} Boolean (0/1) expected: maybe\n")
    }

    func testConsumeTakesPlayedSongsOutOfTheQueue() {
        let c = Conversation()
        c.send("add /a", "add /b", "add /c", "add /d", "consume 1", "play 0")
        XCTAssertEqual(c.pairs("status")["consume"], "1")
        c.session.loaded()
        c.send("next")   // skipped after being played: consumed, as MPD does
        XCTAssertEqual(c.session.queue.entries.map(\.uri), ["file:///b", "file:///c", "file:///d"])
        c.session.loaded()
        c.session.playIntoQueued()   // played to the end, c following without a gap
        XCTAssertEqual(c.session.queue.entries.map(\.uri), ["file:///c", "file:///d"])
        XCTAssertEqual(c.session.snapshot.current?.uri, "file:///c")
        c.session.feed(.failed(c.session.loads.last!, reason: "broken"))   // not played: kept
        XCTAssertEqual(c.session.queue.entries.map(\.uri), ["file:///c", "file:///d"])
        XCTAssertEqual(c.session.snapshot.current?.uri, "file:///d")
        c.session.loaded()
        c.session.feed(.endOfFile(c.session.loads.last!))   // the last one: playback stops
        XCTAssertEqual(c.session.queue.entries.map(\.uri), ["file:///c"])
        XCTAssertEqual(c.pairs("status")["state"], "stop")
        c.send("consume 0", "play 0")
        c.session.loaded()
        c.session.feed(.endOfFile(c.session.loads.last!))
        XCTAssertEqual(c.session.queue.count, 1, "off again")
    }

    func testSingleStopsAfterTheSongAndOneshotOnlyOnce() {
        let c = Conversation()
        c.send("add /a", "add /b", "add /c", "single oneshot", "play 0")
        c.session.loaded()
        XCTAssertEqual(c.session.engine.queuedNext, nil, "nothing is queued to follow")
        c.session.feed(.endOfFile(c.session.loads.last!))
        XCTAssertEqual(c.pairs("status")["state"], "stop")
        XCTAssertEqual(c.pairs("status")["song"], "0", "the song that ended stays current")
        XCTAssertEqual(c.pairs("status")["single"], "0", "oneshot is spent")
        c.send("single 1", "play 1")
        c.session.loaded()
        c.session.feed(.endOfFile(c.session.loads.last!))
        XCTAssertEqual(c.pairs("status")["state"], "stop")
        XCTAssertEqual(c.pairs("status")["single"], "1", "single stays on")
    }

    func testVolumeAndOptionsRefuseWhatReelCannotDo() {
        let c = Conversation()
        XCTAssertEqual(c.send("setvol 101"), "ACK [2@0] {setvol} Invalid volume value\n")
        c.send("setvol 40")
        XCTAssertEqual(c.pairs("getvol")["volume"], "40")
        c.send("volume -50")
        XCTAssertEqual(c.pairs("getvol")["volume"], "0")
        XCTAssertEqual(c.send("consume oneshot"), "ACK [2@0] {consume} Boolean (0/1) expected: oneshot\n")
        XCTAssertEqual(c.send("crossfade 0"), "OK\n")
        XCTAssertTrue(c.send("crossfade 5").hasPrefix("ACK [2@0] {crossfade} "))
        XCTAssertEqual(c.send("replay_gain_mode album"), "OK\n")
        XCTAssertEqual(c.pairs("replay_gain_status")["replay_gain_mode"], "album")
        XCTAssertTrue(c.send("replay_gain_mode auto").hasPrefix("ACK [2@0] "))
        XCTAssertEqual(c.send("disableoutput 0").prefix(12), "ACK [52@0] {")
        XCTAssertEqual(c.send("enableoutput 1"), "ACK [50@0] {enableoutput} No such audio output\n")
    }

    func testSeekStartsAnotherSongAtTheTime() {
        let c = Conversation()
        c.send("add /a", "add /b", "play 0")
        c.session.loaded()
        XCTAssertEqual(c.send("seek 1 30.5"), "OK\n")
        XCTAssertEqual(c.session.snapshot.current?.uri, "file:///b")
        XCTAssertEqual(c.session.position(), 30_500_000)
        c.session.loaded(TrackMetadata(length: 60_000_000), position: 30_500_000)
        XCTAssertEqual(c.send("seekcur -10"), "OK\n")
        XCTAssertEqual(c.session.position(), 20_500_000)
        XCTAssertEqual(c.send("seekcur 70"), "ACK [2@0] {seekcur} Seek position is past the end of the song\n")
        XCTAssertEqual(c.send("seek 0 -1"), "ACK [2@0] {seek} Negative seek position\n")
    }

    func testFilterExpressions() throws {
        let song = TrackMetadata(title: "Hells Bells", artists: ["AC/DC"], album: "Back in Black", genres: ["Rock"])
        func matches(_ args: [String], exact: Bool = true) throws -> Bool {
            try Filter.parse(args, exact: exact).matches(file: "/m/acdc/hells.ogg", song)
        }
        XCTAssertTrue(try matches([#"(artist == "AC/DC")"#]))
        XCTAssertFalse(try matches([#"(artist == "ac/dc")"#]))
        XCTAssertTrue(try matches([#"(artist == "ac/dc")"#], exact: false))
        XCTAssertTrue(try matches([#"((artist == 'AC/DC') AND (album starts_with "Back"))"#]))
        XCTAssertFalse(try matches([#"(!(genre contains "ock"))"#]))
        XCTAssertTrue(try matches([#"(composer != "Bach")"#].map { $0.replacingOccurrences(of: "composer", with: "genre") }))
        XCTAssertTrue(try matches([#"(base "/m/acdc")"#]))
        XCTAssertTrue(try matches(["any", "bells"], exact: false))
        XCTAssertTrue(try matches(["artist", "AC/DC", "title", "Hells Bells"]))
        XCTAssertThrowsError(try matches([#"(artist === "x")"#]))
        XCTAssertThrowsError(try matches([#"(artist == "x""#]))
        XCTAssertThrowsError(try matches(["artist"]))
        XCTAssertFalse(try matches(["mood", "calm"]), "a tag of MPD's that reel keeps no values for is empty")
        XCTAssertTrue(try matches(["mood", ""]))
        XCTAssertThrowsError(try matches(["nonsense", "calm"]))
    }
}
