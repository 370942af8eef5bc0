import XCTest
@testable import ReelCore

/// A feed's settings for its episodes: rate, skipped intro and outro, the voice filter; music keeps none.
final class EngineEpisodeTests: XCTestCase {
    static let talk = EpisodeSettings(rate: 1.5, skipIntro: 30_000_000, skipOutro: 15_000_000, voiceBoost: true)

    /// A song, then an episode of a feed with `talk`'s settings (20 min long), then a song.
    func queue(play: Bool = true) -> Harness {
        var h = Harness()
        var episode = NewEntry(uri: "https://example.org/ep.mp3", metadata: TrackMetadata(length: 1_200_000_000))
        episode.episode = Self.talk
        h.command(.add(entries: [NewEntry(uri: "file:///song1.ogg"), episode, NewEntry(uri: "file:///song2.ogg")],
                       after: nil, atStart: false, play: play))
        return h
    }

    func testAnEpisodeStartsAfterItsIntroEndsBeforeItsOutroAtItsFeedsRate() throws {
        var h = queue()
        h.finishLoad()
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(2), "the episode follows without a gap")
        XCTAssertEqual(h.backend.queued?.start, 30_000_000, "after its intro")
        XCTAssertEqual(h.backend.queued?.rate, 1.5, "at its own rate")
        h.command(.goTo(h.id(2)))
        let load = try XCTUnwrap(h.effects.compactMap { if case .backend(.load(_, _, let s, let e, _, _)) = $0 { (s, e) } else { nil } }.first)
        XCTAssertEqual(load.0, 30_000_000)
        XCTAssertEqual(load.1, 1_185_000_000)
        XCTAssertTrue(h.effects.contains(.backend(.setVoiceBoost(h.token, true))), "\(h.effects)")
        XCTAssertEqual(h.backend.rate, 1.5)
        XCTAssertEqual(h.engine.snapshot.rate, 1.5)
        XCTAssertEqual(h.position, 30_000_000)
        h.finishLoad(length: 1_200_000_000, at: 30_000_000)
        h.command(.next)
        XCTAssertEqual(h.backend.rate, 1, "the song after plays at the session's rate")
        XCTAssertEqual(h.engine.snapshot.rate, 1)
        XCTAssertFalse(h.effects.contains { if case .backend(.setVoiceBoost) = $0 { true } else { false } })
    }

    func testARateSetDuringAnEpisodeLastsForItOnly() {
        var h = queue()
        h.command(.goTo(h.id(2)))
        h.finishLoad(length: 1_200_000_000, at: 30_000_000)
        h.command(.setRate(2))
        XCTAssertEqual(h.engine.snapshot.rate, 2)
        XCTAssertEqual(h.engine.settings.rate, 1, "the session's rate stays")
        h.command(.next)
        XCTAssertEqual(h.engine.snapshot.rate, 1)
        h.command(.previous)   // the episode again, at its feed's rate
        XCTAssertEqual(h.engine.snapshot.rate, 1.5)
    }

    func testAResumeLaterThanTheIntroAndAChosenStartAreKept() throws {
        var h = queue(play: false)
        h.command(.startAt(h.id(2), 5_000_000))
        XCTAssertEqual(h.load?.start, 5_000_000, "a start the user chose (MPD's seek) is theirs")
        var e = EpisodeSettings(skipIntro: 30_000_000)
        XCTAssertEqual(e.start(from: 45_000_000, length: 100_000_000), 45_000_000)
        XCTAssertEqual(e.start(from: 10_000_000, length: 100_000_000), 30_000_000)
        XCTAssertEqual(e.start(from: 0, length: 20_000_000), 0, "too short for its intro: whole")
        e.skipOutro = 10_000_000
        XCTAssertEqual(e.end(length: 100_000_000, rangeEnd: nil), 90_000_000)
        XCTAssertEqual(e.end(length: 100_000_000, rangeEnd: 50_000_000), 50_000_000)
        XCTAssertNil(e.end(length: nil, rangeEnd: nil), "an unknown length cannot lose its outro")
        XCTAssertEqual(EpisodeSettings.none.start(from: 0, length: 5), 0)
    }

    func testNewSettingsReachQueuedEntriesAndTheLoadedEpisodesRate() {
        var h = Harness(uris: ["https://example.org/a.mp3", "https://example.org/b.mp3"], play: true)
        h.finishLoad()
        XCTAssertNotNil(h.backend.queued, "the same rate: gapless")
        h.command(.setEpisodeSettings([h.id(1): EpisodeSettings(rate: 1.25), h.id(2): EpisodeSettings(rate: 1.25)]))
        XCTAssertEqual(h.backend.rate, 1.25)
        XCTAssertEqual(h.engine.snapshot.rate, 1.25)
        XCTAssertFalse(h.seekedPositions.isEmpty, "widgets are told the new motion")
        XCTAssertNotNil(h.backend.queued, "both at 1.25: still gapless")
        h.command(.setEpisodeSettings([h.id(2): EpisodeSettings(rate: 2)]))
        XCTAssertTrue(h.effects.contains { if case .backend(.queueNext(_, _, _, _, 2)) = $0 { true } else { false } },
                      "queued again at its new rate: \(h.effects)")
        h.command(.setRate(1.75))
        XCTAssertFalse(h.effects.contains { if case .backend(.queueNext) = $0 { true } else { false } },
                       "a rate set for this episode alone leaves the next one's")
    }

    /// A song, then gaplessly an episode at 1.5: the backend plays it at its rate from its first
    /// sample, and Position runs at 1.5 from when it is heard, with no load of its own.
    func testAGaplessTransitionIntoAnotherRateRunsAtItFromItsFirstSample() throws {
        var h = Harness()
        var episode = NewEntry(uri: "https://example.org/ep.mp3", metadata: TrackMetadata(length: 600_000_000))
        episode.episode = EpisodeSettings(rate: 1.5)
        h.command(.add(entries: [NewEntry(uri: "file:///song.ogg"), episode], after: nil, atStart: false, play: true))
        h.finishLoad(length: 10_000_000)
        let queued = try XCTUnwrap(h.backend.queued)
        h.playIntoQueued(tail: 300_000, length: 600_000_000)
        XCTAssertNil(h.load, "no load of its own")
        XCTAssertFalse(h.effects.contains(.backend(.setRate(1.5))), "the backend took the rate with the file")
        let due = try XCTUnwrap(h.engine.incoming?.audibleAt)
        XCTAssertEqual(due - h.now, 200_000, "the 300 ms of the song still to be heard, counted at the episode's rate")
        h.now = due
        h.tick(ms: 0)
        XCTAssertEqual(h.currentID, h.id(2))
        XCTAssertEqual(h.engine.snapshot.rate, 1.5)
        h.advance(ms: 1_000)
        XCTAssertEqual(h.position, queued.start + 1_500_000, "a second heard is a second and a half of it")

        // The queue ends there; what is played next plays at its own rate, not the episode's.
        h.event(.endOfFile(h.token))
        XCTAssertEqual(h.status, "Stopped")
        h.command(.add(uris: ["file:///other.ogg"], after: nil, atStart: false, play: true))
        XCTAssertEqual(h.backend.rate, 1, "the session's rate, with the load")
    }

    func testAnOutroLearntAfterTheLoadIsCutByTheEngine() throws {
        var h = Harness()
        var episode = NewEntry(uri: "https://example.org/ep.mp3")   // its length unknown until it opens
        episode.episode = EpisodeSettings(skipOutro: 10_000_000)
        h.command(.add(entries: [episode, NewEntry(uri: "https://example.org/next.mp3")], after: nil, atStart: false, play: true))
        let ends: [MediaTime?] = h.effects.compactMap { if case .backend(.load(_, _, _, let end, _, _)) = $0 { end } else { nil } }
        XCTAssertEqual(ends, [nil], "the backend cannot be told where the outro starts")
        h.finishLoad(length: 60_000_000)
        let due = try XCTUnwrap(h.engine.deadline)
        XCTAssertEqual(h.engine.position(at: due), 50_000_000, "the outro's start is a deadline")
        h.now = due
        h.tick(ms: 0)
        XCTAssertEqual(h.currentID, h.id(2), "on to the next entry")
        XCTAssertEqual(h.engine.queue[h.id(1)]?.resumeAt, 0)
        XCTAssertTrue(h.effects.contains(.store(.finished(h.id(1)))), "played: \(h.effects)")
    }
}
