import XCTest
@testable import ReelCore

/// The sleep timer: counting playing time, the fade, the pause and where playback resumes.
final class EngineSleepTests: XCTestCase {
    func playing(length: MediaTime = 600_000_000) -> Harness {
        var h = Harness(uris: ["file:///talk.ogg", "file:///next.ogg"], play: true)
        h.engine.sleepFade = 2_000_000
        h.finishLoad(length: length)
        return h
    }

    /// Runs the clock to the engine's deadlines, up to `ms`, collecting the volumes sent.
    func run(_ h: inout Harness, ms: Int64) -> [Double] {
        let end = h.now + ms * 1000
        var volumes: [Double] = []
        while let due = h.engine.deadline, due <= end {
            h.now = max(due, h.now)
            h.tick(ms: 0)
            volumes += h.effects.compactMap { if case .backend(.setVolume(let v)) = $0 { v } else { nil } }
            if h.engine.sleep == nil { break }
        }
        if h.now < end, h.engine.sleep != nil { h.now = end; h.tick(ms: 0) }
        return volumes
    }

    func testATimerFadesOverItsLastSecondsThenPausesWhereTheFadeBegan() throws {
        var h = playing()
        XCTAssertNil(h.command(.setSleep(.after(5_000_000))))
        XCTAssertEqual(h.engine.snapshot.sleep, .after(5_000_000))
        let start = h.position
        let volumes = run(&h, ms: 6_000)
        XCTAssertEqual(h.status, "Paused")
        XCTAssertNil(h.engine.snapshot.sleep, "a timer that went off is off")
        XCTAssertGreaterThanOrEqual(volumes.count, 15, "a step every 100 ms over 2 s: \(volumes)")
        XCTAssertEqual(volumes.first ?? 0, 1, accuracy: 0.06)
        XCTAssertEqual(Array(volumes.dropLast()), volumes.dropLast().sorted(by: >), "down")
        XCTAssertEqual(volumes.last, 1, "then back to the user's volume once paused")
        XCTAssertLessThan(volumes.dropLast().last ?? 1, 0.1)
        XCTAssertEqual(h.backend.volume, 1)
        XCTAssertEqual(h.engine.snapshot.volume, 1, "Volume never showed the fade")
        // It paused 5 s of playing after it was set, and went back to where the fade began, 3 s in.
        XCTAssertEqual(h.backend.seeks.last, start + 3_000_000)
        XCTAssertTrue(h.effects.contains(.store(.savePosition(h.id(1), start + 3_000_000))), "\(h.effects)")
        XCTAssertEqual(h.position, start + 3_000_000)
    }

    func testTimePausedDoesNotCountAndAPauseInTheFadeRestoresTheVolume() {
        var h = playing()
        h.command(.setSleep(.after(5_000_000)))
        h.tick(ms: 1_000)
        h.command(.pause)
        h.advance(ms: 60_000)
        h.tick(ms: 0)
        XCTAssertEqual(h.engine.sleepLeft(at: h.now), 4_000_000, "a minute paused left 4 s of playing")
        h.command(.play)
        h.hear(from: h.position)
        _ = run(&h, ms: 3_000)   // into the fade
        XCTAssertLessThan(h.backend.volume, 1)
        h.command(.pause)
        XCTAssertEqual(h.backend.volume, 1, "paused in the fade: the volume is back")
        XCTAssertNotNil(h.engine.snapshot.sleep)
        h.command(.setSleep(nil))
        XCTAssertNil(h.engine.snapshot.sleep)
        XCTAssertNil(h.engine.sleepLeft(at: h.now))
    }

    func testEndOfChapterAndEndOfTrackPauseThere() {
        var h = Harness(uris: ["file:///book.m4b", "file:///next.ogg"], play: true)
        h.engine.sleepFade = 1_000_000
        h.event(.loaded(h.token, TrackMetadata(length: 20_000_000, chapters: [Chapter(start: 0, title: "A"),
                                                                               Chapter(start: 8_000_000, title: "B")]),
                        seekable: true))
        h.event(.restarted(h.token, position: 0))
        h.hear(from: 0)
        h.command(.setSleep(.endOfChapter))
        XCTAssertEqual(Double(h.engine.sleepLeft(at: h.now)!), 8_000_000 - 40_000, accuracy: 1_000)
        _ = run(&h, ms: 9_000)
        XCTAssertEqual(h.status, "Paused")
        XCTAssertEqual(h.backend.seeks.last, 7_000_000 - Engine.chapterSlack, "back to where the fade began, a second before the chapter's end")
        XCTAssertEqual(h.currentID, h.id(1))

        h.command(.setSleep(.endOfTrack))
        h.command(.play)
        h.event(.restarted(h.token, position: 7_000_000))
        h.hear(from: 7_000_000)
        _ = run(&h, ms: 14_000)
        XCTAssertEqual(h.status, "Paused")
        XCTAssertEqual(h.currentID, h.id(1), "paused before the next entry")
        XCTAssertEqual(Double(h.backend.seeks.last!), 18_950_000, accuracy: 2_000)
    }

    func testABadTimeIsRefused() {
        var h = playing()
        XCTAssertEqual(h.command(.setSleep(.after(0))), .invalidArgument("the sleep timer needs a time of more than 0"))
        XCTAssertNil(h.engine.snapshot.sleep)
    }

    func testALiveStreamHasNoEndToSleepAt() {
        var h = Harness(uris: ["https://radio.example.org/live"], play: true)
        h.event(.loaded(h.token, TrackMetadata(), seekable: false))
        h.event(.restarted(h.token, position: 0))
        let refusal = CommandError.invalidArgument("what plays has no end (a live stream): give the sleep timer a time")
        XCTAssertEqual(h.command(.setSleep(.endOfTrack)), refusal)
        XCTAssertEqual(h.command(.setSleep(.endOfChapter)), refusal)
        XCTAssertNil(h.command(.setSleep(.after(60_000_000))))
    }

    func testEndOfTrackIsWhereAnEpisodeEndsAtItsFeedsRate() {
        var h = Harness()
        var episode = NewEntry(uri: "https://example.org/ep.mp3", metadata: TrackMetadata(length: 100_000_000))
        episode.episode = EpisodeSettings(rate: 2, skipOutro: 20_000_000)
        h.command(.add(entries: [episode], after: nil, atStart: false, play: true))
        h.finishLoad(length: 100_000_000)
        h.command(.pause)
        h.command(.setSleep(.endOfTrack))
        // Paused: the 80 s it plays to (its outro is skipped) less where it is and the margin, at twice the speed.
        XCTAssertEqual(h.engine.sleepLeft(at: h.now), (80_000_000 - Engine.sleepEndMargin - h.position) / 2)
    }
}

/// End of track on the last entry: it pauses there like on any other, and a timer never outlives
/// what it was set for.
extension EngineSleepTests {
    func testEndOfTrackOnTheLastEntryFadesAndPausesBeforeItsEnd() {
        var h = Harness(uris: ["file:///last.ogg"], play: true)
        h.engine.sleepFade = 1_000_000
        h.finishLoad(length: 20_000_000)
        XCTAssertNil(h.command(.setSleep(.endOfTrack)))
        let volumes = run(&h, ms: 25_000)
        XCTAssertEqual(h.status, "Paused", "the last entry pauses at its end too")
        XCTAssertFalse(volumes.isEmpty, "with a fade")
        XCTAssertEqual(Double(h.backend.seeks.last ?? 0), 18_950_000, accuracy: 2_000, "back to where the fade began")
        XCTAssertNil(h.engine.snapshot.sleep)
    }

    func testTheLastEntryEndingInTheFadePausesWhereTheFadeBegan() throws {
        var h = Harness(uris: ["file:///last.ogg"], play: true)
        h.engine.sleepFade = 1_000_000
        h.finishLoad(length: 20_000_000)
        h.command(.setSleep(.endOfTrack))
        // mpv ends the last file when its last sound is written: before the pause was due.
        h.now += 19_500_000 - h.position
        h.tick(ms: 0)
        XCTAssertLessThan(h.backend.volume, 1, "fading")
        h.event(.endOfFile(h.token))
        XCTAssertEqual(h.status, "Paused", "not Stopped")
        let load = try XCTUnwrap(h.load, "the entry is loaded again, paused")
        XCTAssertTrue(load.paused)
        XCTAssertEqual(Double(load.start), 18_950_000, accuracy: 2_000, "where the fade began")
        XCTAssertTrue(h.effects.contains(.store(.savePosition(h.id(1), load.start))), "\(h.effects)")
        XCTAssertFalse(h.effects.contains(.store(.finished(h.id(1)))), "not played to its end")
        XCTAssertEqual(h.backend.volume, 1)
        XCTAssertNil(h.engine.snapshot.sleep, "the timer went off")
        XCTAssertEqual(h.currentID, h.id(1))
    }

    func testATimerGoesWhenTheQueueEndsBeforeIt() {
        var h = Harness(uris: ["file:///last.ogg"], play: true)
        h.finishLoad(length: 20_000_000)
        h.command(.setSleep(.after(3_600_000_000)))
        h.event(.endOfFile(h.token))
        XCTAssertEqual(h.status, "Stopped")
        XCTAssertNil(h.engine.snapshot.sleep, "nothing is left to pause: it does not wait for what plays next")
        XCTAssertTrue(h.effects.contains(.log("sleep timer: off (the queue ended before it)")), "\(h.effects)")
    }
}
