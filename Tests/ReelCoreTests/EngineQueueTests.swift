import XCTest
@testable import ReelCore

final class EngineQueueTests: XCTestCase {
    let uris = ["file:///1.ogg", "file:///2.ogg", "file:///3.ogg"]

    func testTheEntriesOfOneFileShareTheTagsTheyLearn() {
        var h = Harness(uris: ["file:///same.ogg", "file:///same.ogg", "file:///same.ogg"])
        let tags = TrackMetadata(title: "Same", artists: ["Band"], length: 60_000_000)
        for n in 1...3 { _ = h.engine.learn(tags, for: h.id(n), now: h.now) }
        let stored = h.engine.queue.entries.map(\.metadata)
        XCTAssertEqual(stored, [tags, tags, tags])
        XCTAssertTrue(stored.allSatisfy { $0.sharesStorage(with: tags) }, "one box for all three, not three copies")
        var changed = stored[1]
        changed.album = "Live"
        XCTAssertEqual(stored[1].album, nil, "a change makes a new box")
        XCTAssertEqual(changed.title, "Same")
        XCTAssertFalse(changed.sharesStorage(with: tags))
    }

    func testAtTheEndTheBackendGoesOnToTheQueuedEntry() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(2), "the next entry waits in the backend")
        h.playIntoQueued(tail: 300_000)
        XCTAssertNil(h.load, "no load: the backend went on by itself")
        XCTAssertEqual(h.currentID, h.id(1), "the end of entry 1 is still being heard")
        h.tick(ms: 300)
        XCTAssertEqual(h.currentID, h.id(2))
    }

    func testWithNothingQueuedTheEndLoadsTheNextEntry() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.setShuffle(true))   // the queued entry is replaced...
        h.backend.queued = nil         // ...but the backend had already finished without it
        h.event(.endOfFile(h.token))
        h.event(.idle)
        guard let (token, _, _, paused) = h.load, !paused else { return XCTFail("\(h.effects)") }
        XCTAssertNotEqual(token.entry, h.id(1))
    }

    func testTheEndOfTheLastEntryStopsWithLoopNone() {
        var h = Harness(uris: uris, play: true)
        h.command(.goTo(h.id(3)))
        h.finishLoad()
        XCTAssertFalse(h.engine.snapshot.canGoNext, "CanGoNext is false on the last entry with LoopStatus None")
        h.event(.endOfFile(h.token))
        XCTAssertEqual(h.playbackEffects, [.backend(.unload)])
        XCTAssertEqual(h.status, "Stopped")
    }

    func testLoopPlaylistWrapsAndLoopTrackRepeats() {
        var h = Harness(uris: uris, play: true)
        h.command(.setLoop(.playlist))
        h.command(.goTo(h.id(3)))
        h.finishLoad()
        XCTAssertTrue(h.engine.snapshot.canGoNext)
        h.playIntoQueued()
        h.tick(ms: 300)
        XCTAssertEqual(h.currentID, h.id(1))
        h.command(.setLoop(.track))
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(1), "loop track queues the entry itself")
        let before = h.token
        h.playIntoQueued()
        h.tick(ms: 300)
        XCTAssertEqual(h.token.entry, h.id(1), "loop track replays the entry")
        XCTAssertEqual(h.engine.state.phase, .playing(h.token))
        XCTAssertNotEqual(h.token, before, "with a new load token")
    }

    func testNextWithLoopTrackStillMovesOn() {
        var h = Harness(uris: uris, play: true)
        h.command(.setLoop(.track))
        h.finishLoad()
        h.command(.next)
        XCTAssertEqual(h.token.entry, h.id(2))
    }

    func testNextKeepsPausedAndStoppedAsTheyAre() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.pause)
        h.command(.next)
        guard let (_, _, _, paused) = h.load, paused else { return XCTFail("paused next must load paused") }
        XCTAssertEqual(h.status, "Paused")
        h.command(.stop)
        h.command(.next)
        XCTAssertEqual(h.playbackEffects, [], "stopped: only the current entry moves")
        XCTAssertEqual(h.currentID, h.id(3))
        XCTAssertEqual(h.status, "Stopped")
    }

    func testLateEventsOfAnEarlierEntryAreDropped() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        let first = h.token
        h.command(.next)
        h.event(.endOfFile(first))
        XCTAssertEqual(h.playbackEffects, [], "a late end-of-file from track 1 must not skip track 2")
        h.event(.failed(first, reason: "late"))
        XCTAssertEqual(h.playbackEffects, [])
        h.event(.position(first, 9_000_000))
        XCTAssertEqual(h.playbackEffects, [])
        XCTAssertEqual(h.token.entry, h.id(2))
        XCTAssertNil(h.engine.lastError)
    }

    func testAFailingEntryIsReportedAndTheQueueMovesOn() {
        var h = Harness(uris: uris, play: true)
        h.event(.failed(h.token, reason: "unrecognized file format"))
        XCTAssertEqual(h.token.entry, h.id(2))
        XCTAssertEqual(h.engine.queue.entries[0].lastError, "unrecognized file format")
        XCTAssertEqual(h.engine.lastError, "1.ogg: unrecognized file format")
        XCTAssertTrue(h.effects.contains { if case .log = $0 { true } else { false } })
    }

    func testWhenEveryEntryFailsPlaybackStopsInsteadOfSpinning() {
        var h = Harness(uris: uris, play: true)
        h.command(.setLoop(.playlist))
        for _ in 0..<3 { h.event(.failed(h.token, reason: "broken")) }
        XCTAssertEqual(h.status, "Stopped")
        XCTAssertNil(h.backend.token)
    }

    func testRemovingTheCurrentEntryPlaysTheNextOne() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        let removed = h.id(1)
        h.command(.remove(removed))
        XCTAssertEqual(h.playbackEffects.last, .announce(.trackRemoved(removed)))
        XCTAssertEqual(h.token.entry, h.engine.queue.entries[0].id)
        XCTAssertEqual(h.engine.queue.entries.count, 2)
    }

    func testRemovingTheLastRemainingEntryStops() {
        var h = Harness(uris: ["file:///only.ogg"], play: true)
        h.finishLoad()
        h.command(.remove(h.id(1)))
        XCTAssertEqual(h.playbackEffects, [.backend(.unload), .announce(.trackRemoved(EntryID(1)))])
        XCTAssertEqual(h.status, "Stopped")
        XCTAssertNil(h.currentID)
    }

    func testUnknownTracksAreRefused() {
        var h = Harness(uris: uris)
        XCTAssertEqual(h.command(.remove(EntryID(99))), .noSuchTrack(EntryID(99)))
        XCTAssertEqual(h.command(.goTo(EntryID(99))), .noSuchTrack(EntryID(99)))
        XCTAssertEqual(h.command(.add(uris: ["file:///x"], after: EntryID(99), atStart: false, play: false)),
                       .noSuchTrack(EntryID(99)))
        XCTAssertEqual(h.engine.queue.entries.count, 3)
    }

    func testAddAnnouncesEachTrackAfterItsPredecessor() {
        var h = Harness(uris: uris)
        h.command(.add(uris: ["file:///4", "file:///5"], after: nil, atStart: false, play: false))
        XCTAssertEqual(h.playbackEffects, [.announce(.trackAdded(EntryID(4), after: EntryID(3))), .announce(.trackAdded(EntryID(5), after: EntryID(4)))])
        h.command(.add(uris: ["file:///0"], after: nil, atStart: true, play: false))
        XCTAssertEqual(h.playbackEffects, [.announce(.trackAdded(EntryID(6), after: nil))])
    }

    func testOpenUriStyleAddPlaysTheNewEntry() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.add(uris: ["file:///new.ogg"], after: nil, atStart: false, play: true))
        XCTAssertEqual(h.backend.uri, "file:///new.ogg")
        XCTAssertEqual(h.status, "Playing")
    }

    func testClearStopsAndReplacesTheTrackList() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.clear)
        XCTAssertEqual(h.playbackEffects, [.backend(.unload), .announce(.trackListReplaced)])
        XCTAssertTrue(h.engine.queue.isEmpty)
        XCTAssertEqual(h.status, "Stopped")
    }

    func testShufflePlaysEveryEntryOnceAndPreviousWalksBack() {
        var h = Harness(uris: (1...8).map { "file:///\($0).ogg" }, play: true)
        h.finishLoad()
        h.command(.setShuffle(true))
        var played = [h.token.entry]
        while h.engine.snapshot.canGoNext {
            h.command(.next)
            h.finishLoad()
            played.append(h.token.entry)
        }
        XCTAssertEqual(played.count, 8)
        XCTAssertEqual(Set(played).count, 8)
        var back = [h.token.entry]
        while back.count < 8 {
            h.command(.previous)
            h.finishLoad()
            back.append(h.token.entry)
        }
        XCTAssertEqual(back, played.reversed())
    }

    func testMetadataChangesAreAnnouncedOnlyWhenSomethingChanged() {
        var h = Harness(uris: uris, play: true)
        h.event(.loaded(h.token, TrackMetadata(title: "T", artists: ["A"], length: 1_000_000), seekable: true))
        XCTAssertEqual(h.playbackEffects, [.announce(.trackMetadataChanged(h.id(1)))])
        XCTAssertEqual(h.engine.learn(TrackMetadata(artURL: "file:///cover.jpg"), for: h.id(1), now: h.now),
                       [.announce(.trackMetadataChanged(h.id(1))), .store(.learned(h.id(1)))])
        XCTAssertEqual(h.engine.learn(TrackMetadata(artURL: "file:///cover.jpg"), for: h.id(1), now: h.now), [], "same art: nothing to say")
    }

    /// ffprobe on a live station may give the length of what it read: once the station opens
    /// unseekable and without a length, that guess goes, before or after it opened.
    func testAStationHasNoLengthWhateverAProbeGuessed() {
        var h = Harness(uris: ["http://radio.example/live.mp3"], play: false)
        _ = h.engine.learn(TrackMetadata(length: 889_229), for: h.id(1), now: h.now)
        h.command(.play)
        h.event(.loaded(h.token, TrackMetadata(title: "Radio"), seekable: false))
        XCTAssertNil(h.engine.queue[h.id(1)]?.metadata.length)
        XCTAssertTrue(h.effects.contains(.announce(.trackMetadataChanged(h.id(1)))))
        h.event(.restarted(h.token, position: 0))
        _ = h.engine.learn(TrackMetadata(length: 889_229), for: h.id(1), now: h.now)
        XCTAssertNil(h.engine.queue[h.id(1)]?.metadata.length, "a probe that answers late guesses no better")
        XCTAssertEqual(h.engine.queue[h.id(1)]?.metadata.title, "Radio")
    }
}

final class EngineMoveTests: XCTestCase {
    let uris = ["file:///1.ogg", "file:///2.ogg", "file:///3.ogg"]

    func testMovingTheQueuedEntryAwayQueuesTheNewNextOne() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        let (second, third) = (h.id(2), h.id(3))
        XCTAssertEqual(h.backend.queued?.token.entry, second)
        XCTAssertNil(h.command(.move(second, to: 2)))
        XCTAssertEqual(h.engine.queue.entries.map(\.uri), ["file:///1.ogg", "file:///3.ogg", "file:///2.ogg"])
        XCTAssertEqual(h.backend.queued?.token.entry, third, "the gapless window follows the new order")
        XCTAssertEqual(h.effects.compactMap { effect -> Announcement? in if case .announce(let a) = effect { a } else { nil } },
                       [.trackRemoved(second), .trackAdded(second, after: third)])
    }

    func testAMoveToNowhereIsRefusedAndChangesNothing() {
        var h = Harness(uris: uris)
        let revision = h.engine.queue.revision
        XCTAssertEqual(h.command(.move(h.id(1), to: 3)), .invalidArgument("there is no position 3 in a queue of 3"))
        XCTAssertEqual(h.command(.move(EntryID(99), to: 0)), .noSuchTrack(EntryID(99)))
        XCTAssertNil(h.command(.move(h.id(1), to: 0)))
        XCTAssertEqual(h.engine.queue.revision, revision)
    }

    func testStartAtLoadsAnotherEntryFromThatPositionAndKeepsPause() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        h.command(.pause)
        let third = h.id(3)
        XCTAssertNil(h.command(.startAt(third, 20_000_000)))
        guard let (token, _, start, paused) = h.load else { return XCTFail("\(h.effects)") }
        XCTAssertEqual(token.entry, third)
        XCTAssertEqual(start, 20_000_000)
        XCTAssertTrue(paused, "a paused player stays paused")
    }

    func testStartAtTheCurrentEntrySeeks() {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        XCTAssertNil(h.command(.startAt(h.id(1), 5_000_000)))
        XCTAssertNil(h.load)
        XCTAssertEqual(h.backend.seeks, [5_000_000])
    }
}

final class EngineStopAfterTests: XCTestCase {
    func testStoppingAfterTheEntryTakesTheQueuedOneBackAndStopsAtTheEnd() {
        var h = Harness(uris: ["file:///1.ogg", "file:///2.ogg"], play: true)
        h.finishLoad()
        XCTAssertNotNil(h.backend.queued, "entry 2 waits in the backend")
        h.command(.setStopAfter(.eachEntry))
        XCTAssertNil(h.backend.queued, "nothing may follow without a gap now")
        let first = h.id(1)
        h.event(.endOfFile(h.token))
        XCTAssertEqual(h.engine.snapshot.status, .stopped)
        XCTAssertEqual(h.currentID, first)
        XCTAssertEqual(h.engine.settings.stopAfter, .eachEntry)
    }

    func testLoopTrackWinsOverStoppingAndAFailureStillMovesOn() {
        var h = Harness(uris: ["file:///1.ogg", "file:///2.ogg"], play: true)
        h.command(.setStopAfter(.thisEntry))
        h.event(.failed(h.token, reason: "broken"))
        XCTAssertEqual(h.load?.0.entry, h.id(2), "a failed entry is not one that ended")
        h.command(.setLoop(.track))
        h.finishLoad()
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(2), "Loop Track queues the entry itself")
    }
}
