import XCTest
@testable import ReelCore

/// (state, command) → (state, effects) for play, pause, stop and their friends.
final class EngineTransportTests: XCTestCase {
    let uris = ["file:///1.ogg", "file:///2.ogg", "file:///3.ogg"]

    func testAddWithoutPlayMakesTheFirstEntryCurrentAndLoadsNothing() {
        let h = Harness(uris: uris)
        XCTAssertEqual(h.status, "Stopped")
        XCTAssertEqual(h.currentID, h.id(1))
        XCTAssertNil(h.backend.token)
        XCTAssertTrue(h.engine.snapshot.canPlay)
        XCTAssertFalse(h.engine.snapshot.canSeek)
    }

    func testPlayFromStoppedLoadsTheCurrentEntry() {
        var h = Harness(uris: uris)
        h.command(.play)
        guard let (token, uri, start, paused) = h.load, start == 0 && !paused else { return XCTFail("\(h.effects)") }
        XCTAssertEqual(token.entry, h.id(1))
        XCTAssertEqual(uri, "file:///1.ogg")
        XCTAssertEqual(h.engine.state.phase, .loading(token, play: true))
        XCTAssertEqual(h.status, "Playing", "a load meant to play reads Playing")
    }

    func testLoadedThenRestartedAnnouncesTheStartAndRunsOnceTheAudioIsHeard() {
        var h = Harness(uris: uris, play: true)
        h.event(.loaded(h.token, TrackMetadata(title: "One", length: 5_000_000), seekable: true))
        XCTAssertEqual(h.engine.state.phase, .playing(h.token))
        XCTAssertEqual(h.playbackEffects, [.announce(.trackMetadataChanged(h.id(1)))])
        XCTAssertEqual(h.engine.queue.current?.metadata.title, "One")
        h.advance(ms: 30)
        h.event(.restarted(h.token, position: 0))
        XCTAssertEqual(h.playbackEffects, [.announce(.seeked(0))])
        XCTAssertTrue(h.engine.snapshot.canSeek)
        h.advance(ms: 1300)
        XCTAssertEqual(h.position, 0, "nothing heard yet: the position holds")
        h.event(.position(h.token, 0))
        h.advance(ms: 200)
        h.event(.position(h.token, 100_000))
        XCTAssertEqual(h.position, 0, "one sample that moved is not yet proof")
        h.advance(ms: 50)
        h.event(.position(h.token, 150_000))
        XCTAssertEqual(h.playbackEffects, [.announce(.settled(150_000))], "heard to start 100 ms ago; widgets are widgetsTold")
        h.advance(ms: 1000)
        XCTAssertEqual(h.position, 1_150_000)
    }

    func testPauseFreezesThePositionWhereItTookEffect() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.advance(ms: 2000)
        let paused = h.position
        h.command(.pause)
        XCTAssertEqual(h.playbackEffects, [.backend(.setPaused(true))])
        XCTAssertEqual(h.status, "Paused")
        h.advance(ms: 5000)
        XCTAssertEqual(h.position, paused)
        h.command(.play)
        XCTAssertEqual(h.playbackEffects, [.backend(.setPaused(false))])
        h.advance(ms: 30)
        XCTAssertEqual(h.position, paused, "held until the audio is heard again")
        h.hear(from: paused)
        XCTAssertEqual(h.position, paused + Harness.heardAfter)
        XCTAssertEqual(h.playbackEffects, [.announce(.settled(paused + Harness.heardAfter))],
                       "widgets ran from the resume, 30 ms too early: Seeked puts them right")
        h.advance(ms: 250)
        XCTAssertEqual(h.position, paused + Harness.heardAfter + 250_000)
    }

    func testAResumeHeardAtOnceSendsNoExtraSeeked() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.pause)
        let paused = h.position
        h.command(.play)
        h.hear(from: paused)
        XCTAssertEqual(h.playbackEffects, [])
        XCTAssertEqual(h.position, paused + Harness.heardAfter)
    }

    /// mpv's PipeWire output plays on to the end of the graph's cycle: its samples
    /// after a pause climb, then hold where the sound stopped; 200 ms after the
    /// pause the engine asks for that, and holds there, with a Seeked for widgets
    /// when that is more than 8 ms from what they were told.
    func testAPauseSettlesWhereTheBackendSaysTheSoundStopped() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.advance(ms: 2000)
        h.command(.pause)
        let paused = h.position
        XCTAssertEqual(h.engine.deadline, h.now + Engine.settleDelay)
        h.event(.position(h.token, paused + 5_000))
        XCTAssertEqual(h.position, paused + 5_000, "a sample while paused is where the sound got to")
        XCTAssertEqual(h.playbackEffects, [], "within 8 ms of what widgets show: no Seeked")
        h.tick(ms: 200)
        XCTAssertEqual(h.playbackEffects, [.backend(.reportPosition)])
        XCTAssertEqual(h.engine.deadline, nil, "asked once")
        h.event(.position(h.token, paused + 26_000))
        XCTAssertEqual(h.position, paused + 26_000)
        XCTAssertEqual(h.playbackEffects, [.announce(.settled(paused + 26_000))])
        h.command(.play)
        h.hear(from: paused + 26_000)
        XCTAssertEqual(h.position, paused + 26_000 + Harness.heardAfter)
    }

    /// A seek while paused (or a seek and then a pause, as the sleep timer does) lands where it
    /// was asked: mpv's paused samples after it read short by the output's buffer, and are not taken.
    func testAfterASeekPausedSamplesAreNotTaken() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.advance(ms: 2000)
        h.command(.pause)
        h.command(.seek(by: -1_000_000))
        let target = h.position
        h.event(.restarted(h.token, position: target))
        XCTAssertEqual(h.engine.deadline, nil, "nothing to ask")
        h.event(.position(h.token, target - 150_000))
        XCTAssertEqual(h.position, target)

        h.command(.play)
        h.hear(from: target)
        h.command(.seek(by: -500_000))
        h.command(.pause)
        XCTAssertEqual(h.engine.deadline, nil)
        h.event(.restarted(h.token, position: target - 500_000 + Harness.heardAfter))
        h.event(.position(h.token, target + 900_000))
        XCTAssertEqual(h.position, target - 500_000 + Harness.heardAfter)
    }

    /// Before its audio was heard (a first start on a suspended PulseAudio sink, whose
    /// samples run ahead of what is heard), a paused load's samples are not taken.
    func testAPauseBeforeTheAudioWasEverHeardIgnoresSamples() {
        var h = Harness(uris: uris, play: true)
        let token = h.token
        h.event(.loaded(token, TrackMetadata(length: 10_000_000), seekable: true))
        h.event(.restarted(token, position: 0))
        h.advance(ms: 250)
        h.event(.position(token, 100_000))
        h.command(.pause)
        XCTAssertEqual(h.position, 0)
        XCTAssertEqual(h.engine.deadline, nil)
        h.event(.position(token, 100_000))
        XCTAssertEqual(h.position, 0)
    }

    /// A 0.1 s play between pauses: paused before a second sample confirmed the
    /// start, the position moves by what the one sample that moved implies.
    func testAShortPlayCountsFromTheOneSampleThatMoved() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.pause)
        let paused = h.position
        h.command(.play)
        h.advance(ms: 50)
        h.event(.position(h.token, paused + 10_000))   // heard from 40 ms after the resume
        XCTAssertEqual(h.position, paused, "one sample confirms nothing yet")
        h.advance(ms: 50)
        h.command(.pause)
        XCTAssertEqual(h.position, paused + 60_000)

        // No sample in the play: from the resume, as widgets were told.
        let again = h.position
        h.command(.play)
        h.advance(ms: 100)
        h.command(.pause)
        XCTAssertEqual(h.position, again + 100_000)
    }

    func testPlayPauseToggles() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.playPause)
        XCTAssertEqual(h.status, "Paused")
        h.command(.playPause)
        XCTAssertEqual(h.status, "Playing")
    }

    func testPauseWhileLoadingKeepsTheLoadButHoldsIt() {
        var h = Harness(uris: uris, play: true)
        h.command(.pause)
        XCTAssertEqual(h.engine.state.phase, .loading(h.token, play: false))
        XCTAssertEqual(h.playbackEffects, [.backend(.setPaused(true))])
        h.finishLoad()
        XCTAssertEqual(h.engine.state.phase, .paused(h.token))
        XCTAssertFalse(h.engine.tracker.anchor.running)
    }

    func testStopUnloadsAndResetsThePosition() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.advance(ms: 4000)
        h.command(.stop)
        XCTAssertEqual(h.playbackEffects, [.backend(.unload)])
        XCTAssertNil(h.backend.queued, "nothing stays queued")
        XCTAssertEqual(h.status, "Stopped")
        XCTAssertEqual(h.position, 0)
        XCTAssertEqual(h.currentID, h.id(1), "stop keeps the current entry")
        h.command(.stop)
        XCTAssertEqual(h.playbackEffects, [], "stopping twice does nothing")
    }

    func testCommandsOnAnEmptyQueueDoNothing() {
        var h = Harness()
        for command in [Command.play, .pause, .playPause, .stop, .next, .previous, .seek(by: 1_000_000)] {
            XCTAssertNil(h.command(command))
            XCTAssertEqual(h.playbackEffects, [], "\(command)")
        }
        XCTAssertFalse(h.engine.snapshot.canPlay)
        XCTAssertFalse(h.engine.snapshot.canPause)
    }

    /// On a stream that cannot seek (elsewhere the change restarts the sound, below).
    func testRateRebasesTheAnchorAndAnnouncesTheCurrentPosition() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad(seekable: false)
        h.advance(ms: 1000)
        let before = h.position
        h.command(.setRate(2))
        XCTAssertEqual(h.playbackEffects, [.backend(.setRate(2)), .announce(.seeked(before))])
        h.advance(ms: 500)
        XCTAssertEqual(h.position, before + 1_000_000)
        XCTAssertEqual(h.engine.snapshot.rate, 2)
    }

    /// The output's buffer at the old rate, and mpv 0.35's tempo filter, which drifts across a
    /// change between two rates other than 1: a restart where the sound is heard leaves neither.
    func testAChangeOfRateRestartsWhereTheSoundIsHeard() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.advance(ms: 1000)
        var heard = h.position
        h.command(.setRate(1.5))
        XCTAssertEqual(h.playbackEffects, [.backend(.setRate(1.5)), .backend(.seek(to: heard)), .announce(.seeked(heard))])
        h.advance(ms: 100)
        XCTAssertEqual(h.position, heard, "held until the restart is heard")
        h.event(.restarted(h.token, position: heard))
        h.hear(from: heard)
        h.advance(ms: 1000)
        heard = h.position
        h.command(.setRate(2))
        XCTAssertEqual(h.backend.seeks.last, heard)
        h.event(.restarted(h.token, position: heard))
        h.command(.setRate(1))
        XCTAssertEqual(h.backend.seeks.count, 3, "to 1 as well: the buffer was made at 2")
        XCTAssertEqual(h.backend.seeks.last, heard)
    }

    func testAChangeOfRateUnderThePreviousEntrysTailDoesNotSeekTheNextOne() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.playIntoQueued()
        h.command(.setRate(2))
        XCTAssertEqual(h.backend.seeks, [], "mpv's file is the next entry")
    }

    func testAChangeOfRateWhileStoppedOrOnAStreamThatCannotSeekDoesNotSeek() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad(seekable: false)
        h.command(.setRate(1.5))
        h.command(.setRate(2))
        XCTAssertEqual(h.backend.seeks, [])
        h.command(.stop)
        h.command(.setRate(3))
        XCTAssertEqual(h.backend.seeks, [])
    }

    func testAChangeOfRateIntoSnapserverDoesNotSeek() {
        var h = Harness(uris: uris, play: true)
        h.engine.outputDelay = 1_000_000
        h.finishLoad()
        h.command(.setRate(1.5))
        XCTAssertEqual(h.backend.seeks, [], "the rooms would hear the second in the pipes again")
    }

    func testRateZeroPausesAndRateNeverReadsZero() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.setRate(0))
        XCTAssertEqual(h.status, "Paused")
        XCTAssertEqual(h.engine.snapshot.rate, 1)
    }

    func testBadRatesAreRefusedAndChangeNothing() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        for bad in [Double.nan, -1, .infinity, 0.1, 8] {
            guard case .invalidArgument? = h.command(.setRate(bad)) else { return XCTFail("rate \(bad) accepted") }
        }
        XCTAssertEqual(h.engine.snapshot.rate, 1)
        XCTAssertEqual(h.status, "Playing")
    }

    func testVolumeIsClampedAndNaNRefused() {
        var h = Harness(uris: uris)
        h.command(.setVolume(3))
        XCTAssertEqual(h.engine.snapshot.volume, Engine.maximumVolume)
        h.command(.setVolume(-1))
        XCTAssertEqual(h.engine.snapshot.volume, 0)
        XCTAssertNotNil(h.command(.setVolume(.nan)))
        XCTAssertEqual(h.engine.snapshot.volume, 0)
    }

    // MARK: An output that plays out its buffer (Snapcast)

    func testAPauseHoldsWhereAnOutputThatCannotHoldItsBufferWillStop() {
        var h = Harness(uris: uris, play: true)
        h.engine.outputDelay = 1_066_000
        h.finishLoad()
        h.advance(ms: 2000)
        let now = h.position
        h.command(.pause)
        XCTAssertEqual(h.position, now + 1_066_000, "the rooms play on for snapserver's buffer: that is where they stop")
        h.advance(ms: 3000)
        XCTAssertEqual(h.position, now + 1_066_000)
    }

    func testAnOutputsProblemIsTheLastErrorWhileItLasts() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.event(.outputProblem("snapserver is not reading /tmp/snapfifo"))
        XCTAssertEqual(h.engine.snapshot.lastError, "snapserver is not reading /tmp/snapfifo")
        XCTAssertEqual(h.effects, [.log("the audio output stopped: snapserver is not reading /tmp/snapfifo")])
        h.event(.outputProblem("snapserver is not reading /tmp/snapfifo"))
        XCTAssertEqual(h.effects, [], "said once")
        h.event(.outputProblem(nil))
        XCTAssertNil(h.engine.snapshot.lastError)
        XCTAssertEqual(h.effects, [.log("the audio output takes audio again")])
    }


    func testBehindSnapserverASeekRunsWhenTheRoomsReachTheTargetAsTheSamplesForetold() {
        var h = Harness(uris: uris, play: true)
        h.engine.outputDelay = 1_066_000
        h.finishLoad()
        let token = h.backend.token!
        h.advance(ms: 1000)
        h.command(.setPosition(h.id(1), 5_000_000))
        h.event(.restarted(token, position: 5_000_000))
        // The rooms still play what was sent before the seek: samples climb from 3.95 s.
        for step in 0..<3 {
            h.advance(ms: 50)
            h.event(.position(token, 3_950_000 + MediaTime(step) * 50_000))
        }
        let heardAt = h.now + 950_000   // the last sample said 4.05 s
        XCTAssertEqual(h.engine.deadline, heardAt, "the moment the rooms reach 5 s")
        h.tick(ms: 500)
        XCTAssertEqual(h.position, 5_000_000, "held while the rooms play what came before")
        h.tick(ms: 450)
        XCTAssertEqual(h.effects, [.announce(.settled(5_000_000))], "running from when the rooms reach it")
        h.advance(ms: 100)
        XCTAssertEqual(h.position, 5_100_000)
    }


    func testSetPausedIsMPDsPauseRule() {
        var h = Harness(uris: ["file:///1.ogg"], play: false)
        h.command(.setPaused(false))
        XCTAssertEqual(h.engine.snapshot.status, .stopped, "pause 0 leaves a stopped player stopped")
        h.command(.play)
        h.finishLoad()
        h.command(.setPaused(true))
        XCTAssertEqual(h.engine.snapshot.status, .paused)
        h.command(.setPaused(true))
        XCTAssertEqual(h.engine.snapshot.status, .paused, "twice is once")
        h.command(.setPaused(false))
        XCTAssertEqual(h.engine.snapshot.status, .playing)
        XCTAssertEqual(PlaybackStatus.playing.mpdState, "play")
        XCTAssertEqual(PlaybackStatus.stopped.rawValue, "Stopped")
    }
}
