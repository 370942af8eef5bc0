import XCTest
@testable import ReelCore

final class EngineSeekTests: XCTestCase {
    let uris = ["file:///1.ogg", "file:///2.ogg"]

    func playing() -> Harness {
        var h = Harness(uris: uris, play: true)
        h.finishLoad(length: 10_000_000)
        return h
    }

    func testSeekedGoesOutWhenTheSeekLandsWithTheRealPosition() {
        var h = playing()
        h.advance(ms: 960)
        h.command(.seek(by: 2_000_000))
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 3_000_000))], "no Seeked before the seek completes")
        XCTAssertEqual(h.position, 3_000_000, "the target, held: never ahead of what is heard")
        h.advance(ms: 5)
        h.event(.position(h.token, 1_004_000))
        XCTAssertEqual(h.playbackEffects, [], "positions from before the landing are not truth")
        h.event(.restarted(h.token, position: 2_990_000))
        XCTAssertEqual(h.playbackEffects, [.announce(.seeked(2_990_000))])
        h.hear(from: 2_990_000)
        XCTAssertEqual(h.playbackEffects, [], "heard at once: widgets already run from the landing")
        h.advance(ms: 100)
        XCTAssertEqual(h.position, 3_130_000)
    }

    func testALoadThatRestartsBeforeZeroAnnouncesZero() {
        var h = Harness(uris: uris, play: false)
        h.command(.goTo(h.id(2)))
        h.command(.pause)
        h.event(.loaded(h.token, TrackMetadata(length: 10_000_000), seekable: true))
        h.event(.restarted(h.token, position: -186_179))   // mpv, a Vorbis file's encoder delay
        XCTAssertEqual(h.playbackEffects, [.announce(.seeked(0))], "MPRIS has no negative positions")
        XCTAssertEqual(h.position, 0)
    }

    func testASeekWhileTheFileOpensIsSentOnceItHasStarted() {
        var h = Harness(uris: uris, play: true)
        h.command(.seek(by: 4_000_000))
        XCTAssertEqual(h.playbackEffects, [], "mpv cannot seek in a file it is opening")
        XCTAssertEqual(h.position, 4_000_000, "the target, held")
        h.command(.seek(by: -1_500_000))
        XCTAssertEqual(h.position, 2_500_000, "a second seek counts from the first")
        h.event(.loaded(h.token, TrackMetadata(length: 10_000_000), seekable: true))
        h.event(.restarted(h.token, position: 0))
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 2_500_000))], "no Seeked for the start, the seek goes out")
        h.event(.restarted(h.token, position: 2_500_000))
        XCTAssertEqual(h.playbackEffects, [.announce(.seeked(2_500_000))])
    }

    /// MPRIS's CanSeek holds while an entry that will seek opens, so that playerctl's `position`
    /// right after a `goto` is sent, and the seek waits for the start.
    func testAnEntryExpectedToSeekCanSeekWhileItOpens() {
        var h = Harness(uris: ["file:///1.ogg", "https://example.org/live", "https://example.org/episode.mp3"])
        h.engine.queue.update(h.id(3)) { $0.metadata.length = 60_000_000 }   // probed, downloaded or cached
        h.command(.goTo(h.id(1)))
        XCTAssertTrue(h.engine.snapshot.canSeek, "a local file")
        XCTAssertNil(h.command(.setPosition(h.id(1), 10_000_000)))
        XCTAssertEqual(h.playbackEffects, [], "it waits for the start")
        h.finishLoad(length: 30_000_000)
        XCTAssertEqual(h.backend.seeks.last, 10_000_000, "and goes out once it has started")
        h.command(.goTo(h.id(2)))
        XCTAssertFalse(h.engine.snapshot.canSeek, "a stream of unknown length may be live")
        h.command(.goTo(h.id(3)))
        XCTAssertTrue(h.engine.snapshot.canSeek, "a remote file of known length")
        h.event(.loaded(h.token, TrackMetadata(length: 60_000_000), seekable: false))
        XCTAssertFalse(h.engine.snapshot.canSeek, "the backend's word replaces the guess")
    }

    /// A fuzzing client's Seek by nearly Int64.max while a file of unknown length opened
    /// crashed reeld (an overflow in following chapters). It goes out, capped, once the file has
    /// started, and mpv ends the file.
    func testAHugeSeekWhileAFileOpensIsCapped() {
        var h = Harness(uris: ["file:///1.ogg", "file:///2.ogg"], play: true)
        h.command(.seek(by: .max - 1))
        h.advance(ms: 100)
        XCTAssertEqual(h.position, Engine.farthestPosition)
        _ = h.engine.tick(now: h.now)
        h.finishLoad(length: 30_000_000)
        XCTAssertEqual(h.backend.seeks.last, Engine.farthestPosition)
        XCTAssertNil(h.command(.setPosition(h.id(1), .max)))
    }

    func testASeekWhileAStreamOpensIsDroppedWhenItCannotSeek() {
        var h = Harness(uris: uris, play: true)
        h.command(.seek(by: 4_000_000))
        h.event(.loaded(h.token, TrackMetadata(), seekable: false))
        h.event(.restarted(h.token, position: 0))
        XCTAssertEqual(h.playbackEffects, [.announce(.seeked(0))])
        XCTAssertEqual(h.position, 0)
    }

    func testSeekBeforeZeroLandsAtZero() {
        var h = playing()
        h.advance(ms: 1000)
        h.command(.seek(by: -5_000_000))
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 0))])
    }

    func testSeekPastTheEndActsLikeNext() {
        var h = playing()
        h.command(.seek(by: 60_000_000))
        guard let (token, _, _, paused) = h.load, !paused else { return XCTFail("\(h.effects)") }
        XCTAssertEqual(token.entry, h.id(2))
    }

    func testSetPositionIgnoresStaleTracksAndOutOfRangePositions() {
        var h = playing()
        h.command(.setPosition(h.id(2), 1_000_000))
        XCTAssertEqual(h.playbackEffects, [], "not the current track")
        h.command(.setPosition(h.id(1), -1))
        XCTAssertEqual(h.playbackEffects, [], "negative")
        h.command(.setPosition(h.id(1), 10_000_001))
        XCTAssertEqual(h.playbackEffects, [], "past the length")
        h.command(.setPosition(h.id(1), 4_000_000))
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 4_000_000))])
    }

    func testSeekingAnUnseekableStreamDoesNothing() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad(seekable: false)
        h.command(.seek(by: 1_000_000))
        XCTAssertEqual(h.playbackEffects, [])
        XCTAssertFalse(h.engine.snapshot.canSeek)
    }

    func testJitterIsIgnoredAndAPersistentDepartureReanchors() {
        var h = playing()
        h.advance(ms: 1000)
        for jitter: MediaTime in [PositionTracker.tolerance, -25_000, 30_000, -18_000, 16_000, 3_000] {
            h.advance(ms: 50)
            h.event(.position(h.token, h.position + jitter))
            XCTAssertEqual(h.playbackEffects, [], "jitter of \(jitter) µs: no signal during steady playback")
        }
        for late: MediaTime in [-48_000, -52_000, -50_000] {
            h.advance(ms: 50)
            h.event(.position(h.token, h.position + late))
        }
        let truth = h.position
        XCTAssertEqual(h.playbackEffects, [.announce(.settled(truth))], "three samples 50 ms behind: that is real")
        h.advance(ms: 10)
        XCTAssertEqual(h.position, truth + 10_000)
    }

    func testAJumpIsTakenAtOnce() {
        var h = playing()
        h.advance(ms: 1000)
        h.event(.position(h.token, 5_000_000))
        XCTAssertEqual(h.playbackEffects, [.announce(.settled(5_000_000))])
    }

    func testBufferingHoldsTheAnchorAndResumingAnnouncesIt() {
        var h = playing()
        h.advance(ms: 960)
        h.event(.buffering(h.token, true))
        XCTAssertEqual(h.engine.state.phase, .buffering(h.token))
        XCTAssertEqual(h.status, "Playing")
        h.advance(ms: 3000)
        XCTAssertEqual(h.position, 1_000_000)
        h.event(.buffering(h.token, false))
        XCTAssertEqual(h.playbackEffects, [.announce(.seeked(1_000_000))])
        h.hear(from: 1_000_000)
        h.advance(ms: 100)
        XCTAssertEqual(h.position, 1_140_000)
    }

    func testPreviousRestartsAfterThreeSecondsAndGoesBackBefore() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.next)
        h.finishLoad()
        h.advance(ms: 3500)
        h.command(.previous)
        XCTAssertEqual(h.engine.queue.currentID, h.id(2))
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 0))], "more than 3 s in: restart")
        h.event(.restarted(h.token, position: 0))
        h.advance(ms: 1000)
        h.command(.previous)
        guard let (token, _, _, paused) = h.load, !paused else { return XCTFail("\(h.effects)") }
        XCTAssertEqual(token.entry, h.id(1))
    }

    func testPreviousOnTheFirstEntryRestartsIt() {
        var h = playing()
        h.advance(ms: 1000)
        h.command(.previous)
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 0))])
    }
}

extension EngineSeekTests {
    /// What held for one load (a seek in flight, its end reached) cannot leak
    /// into the next: it lives in the load, and a new load starts fresh.
    func testASeekInFlightDoesNotOutliveItsLoad() {
        var h = playing()
        h.command(.seek(by: 2_000_000))
        XCTAssertEqual(h.engine.state.load?.seekInFlight, true)
        h.command(.next)
        XCTAssertEqual(h.engine.state.load?.seekInFlight, false, "a new load has no seek in flight")
        XCTAssertEqual(h.engine.state.load?.seekable, true, "expected of a local file while it opens, not carried over")
        h.finishLoad(length: 10_000_000)
        XCTAssertEqual(h.engine.state.load?.pending, false)
        h.advance(ms: 500)
        XCTAssertEqual(h.position, 540_000, "it runs from its start")
        h.command(.stop)
        XCTAssertNil(h.engine.state.load, "stopped: nothing of the load is left")
    }

    func testAPausedSeekIsWhereItWentNotWhereTheServersLatencySaysIt() {
        var h = Harness(uris: ["file:///1.ogg"], play: true)
        h.finishLoad()
        h.command(.pause)
        h.command(.setPosition(h.id(1), 5_000_000))
        // PulseAudio: mpv's audio-pts is the target less the sink's latency, over a buffer it has not filled.
        h.event(.restarted(h.token, position: 4_910_000))
        XCTAssertEqual(h.position, 5_000_000)
        XCTAssertEqual(h.seekedPositions, [5_000_000])
        h.command(.setPosition(h.id(1), 2_000_000))
        h.event(.restarted(h.token, position: 8_000_000))
        XCTAssertEqual(h.position, 8_000_000, "mpv went elsewhere: its word holds")
    }
}
