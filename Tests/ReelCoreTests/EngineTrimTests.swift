import XCTest
@testable import ReelCore

/// An episode whose feed trims silence: the backend is told the cuts, and the position jumps over
/// each one at the moment it is reached, in the file's own time.
final class EngineTrimTests: XCTestCase {
    /// A silence of 2 s at 10 s and one of 3 s at 20 s: cuts of 1.7 s at 10.15 s and 2.7 s at 20.15 s.
    static let silences = Silences([Silence(start: 10_000_000, end: 12_000_000)!, Silence(start: 20_000_000, end: 23_000_000)!])

    func queue(trim: Bool = true, silences: Silences? = EngineTrimTests.silences, play: Bool = true) -> Harness {
        var h = Harness()
        var episode = NewEntry(uri: "file:///talk.mp3", metadata: TrackMetadata(length: 60_000_000, silences: silences))
        episode.episode = EpisodeSettings(trimSilence: trim)
        h.command(.add(entries: [episode, NewEntry(uri: "file:///song.ogg")], after: nil, atStart: false, play: play))
        return h
    }

    func testTheBackendIsToldTheCutsBeforeTheLoad() throws {
        let h = queue()
        let trim = try XCTUnwrap(Trim(silences: Self.silences))
        let setTrim = h.effects.firstIndex(of: .backend(.setTrim(h.token, trim)))
        let load = h.effects.firstIndex { if case .backend(.load) = $0 { true } else { false } }
        XCTAssertNotNil(setTrim)
        XCTAssertLessThan(try XCTUnwrap(setTrim), try XCTUnwrap(load))
        XCTAssertEqual(h.engine.snapshot.timeSaved, 0)
        XCTAssertNil(queue(trim: false).engine.snapshot.timeSaved, "without trimming there is no saving to show")
        XCTAssertFalse(queue(trim: false).effects.contains { if case .backend(.setTrim) = $0 { true } else { false } })
    }

    func testThePositionJumpsOverACutWhenItIsReached() throws {
        var h = queue()
        h.finishLoad(length: 60_000_000, at: 9_000_000)
        let reached = try XCTUnwrap(h.engine.deadline, "the engine wakes when the cut is reached")
        XCTAssertEqual(h.engine.tracker.anchor.position(at: reached), 10_150_000)
        h.tick(ms: (reached - h.now) / 1000 + 5)
        XCTAssertEqual(h.position, 11_850_000 + 5_000, "the cut's end, and 5 ms on")
        XCTAssertEqual(h.seekedPositions, [h.position], "widgets learn the jump")
        XCTAssertTrue(h.effects.contains(.store(.timeSaved(h.id(1), 1_700_000))))
        XCTAssertEqual(h.engine.snapshot.timeSaved, 1_700_000)
        // The backend's samples, in the file's time, agree: nothing more is announced.
        h.advance(ms: 20)
        h.event(.position(h.token, h.position))
        XCTAssertTrue(h.seekedPositions.isEmpty)
    }

    func testASeekIntoACutGoesToItsEndAndPassesNoCut() throws {
        var h = queue()
        h.finishLoad(length: 60_000_000)
        h.command(.setPosition(h.id(1), 21_000_000))
        XCTAssertEqual(h.backend.seeks.last, 22_850_000, "inside the second cut: where it ends")
        h.event(.restarted(h.token, position: 22_850_000))
        h.hear(from: 22_850_000)
        h.tick(ms: 5_000)
        XCTAssertEqual(h.engine.snapshot.timeSaved, 0, "no cut was played through")
    }

    func testFoundSilencesOrTrimmingTurnedOnReloadTheEpisodeWhereItIsHeard() throws {
        var h = queue(silences: nil)
        h.finishLoad(length: 60_000_000, at: 5_000_000)
        h.advance(ms: 1_000)
        let first = h.token
        h.record(h.engine.learn(TrackMetadata(silences: Self.silences), for: h.id(1), now: h.now))
        XCTAssertNotEqual(h.token, first, "loaded again, with its cuts")
        XCTAssertEqual(try XCTUnwrap(h.load).start, 6_040_000, "from where it was heard")
        XCTAssertTrue(h.effects.contains(.backend(.setTrim(h.token, Trim(silences: Self.silences)!))))
        h.finishLoad(length: 60_000_000, at: 6_040_000)
        let second = h.token
        h.command(.setEpisodeSettings([h.id(1): EpisodeSettings(trimSilence: false)]))
        XCTAssertNotEqual(h.token, second, "trimming turned off: loaded again, whole")
        XCTAssertNil(h.engine.snapshot.timeSaved)
        XCTAssertFalse(h.effects.contains { if case .backend(.setTrim) = $0 { true } else { false } })
    }

    func testAScanThatFoundNoLongSilenceChangesNothing() {
        var h = queue(silences: nil)
        h.finishLoad(length: 60_000_000)
        let token = h.token
        h.record(h.engine.learn(TrackMetadata(silences: Silences()), for: h.id(1), now: h.now))
        XCTAssertEqual(h.token, token, "nothing to cut: no reload")
        XCTAssertEqual(h.engine.queue[h.id(1)]?.metadata.silences, Silences(), "known to have none")
        XCTAssertNil(h.engine.snapshot.timeSaved)
    }

    func testAnEpisodeStillOpeningIsLoadedAgainWithItsCutsFromItsStart() throws {
        var h = queue(silences: nil, play: false)
        h.command(.startAt(h.id(1), 4_000_000))
        let opening = h.token, paused = try XCTUnwrap(h.load).paused
        h.record(h.engine.learn(TrackMetadata(silences: Self.silences), for: h.id(1), now: h.now))
        XCTAssertNotEqual(h.token, opening)
        XCTAssertEqual(try XCTUnwrap(h.load).start, 4_000_000)
        XCTAssertEqual(try XCTUnwrap(h.load).paused, paused, "playing or paused as it was")
        XCTAssertNotNil(h.engine.state.load?.trim)
    }

    func testAnEpisodeThatTrimsIsNotQueuedToFollowWithoutAGap() {
        var h = Harness()
        var episode = NewEntry(uri: "file:///talk.mp3", metadata: TrackMetadata(length: 60_000_000, silences: Self.silences))
        episode.episode = EpisodeSettings(trimSilence: true)
        h.command(.add(entries: [NewEntry(uri: "file:///song.ogg"), episode], after: nil, atStart: false, play: true))
        h.finishLoad()
        XCTAssertNil(h.backend.queued, "its cuts belong to a load of its own")
    }
}
