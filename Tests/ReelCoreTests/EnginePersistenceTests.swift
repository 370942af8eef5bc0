import XCTest
@testable import ReelCore

/// What the engine asks the library to store, and how it resumes.
final class EnginePersistenceTests: XCTestCase {
    func saved(_ h: Harness) -> [MediaTime] {
        h.effects.compactMap { if case .store(.savePosition(_, let p)) = $0 { p } else { nil } }
    }

    func entry(resumeAt: MediaTime, length: MediaTime?) -> QueueEntry {
        QueueEntry(id: EntryID(1), uri: "file:///x", metadata: TrackMetadata(length: length), resumeAt: resumeAt)
    }

    func testResumeStartsAtTheStoredPositionUnlessNearTheEnd() {
        XCTAssertEqual(Engine.resumePoint(entry(resumeAt: 0, length: 100_000_000)).start, 0)
        XCTAssertTrue(Engine.resumePoint(entry(resumeAt: 30_000_000, length: 100_000_000)) == (30_000_000, false))
        XCTAssertTrue(Engine.resumePoint(entry(resumeAt: 91_000_000, length: 100_000_000)) == (0, true), "last 10 s")
        XCTAssertTrue(Engine.resumePoint(entry(resumeAt: 960_000_000, length: 1_000_000_000)) == (0, true), "last 5 %")
        XCTAssertTrue(Engine.resumePoint(entry(resumeAt: 900_000_000, length: 1_000_000_000)) == (900_000_000, false))
        XCTAssertTrue(Engine.resumePoint(entry(resumeAt: 5_000_000, length: nil)) == (5_000_000, false), "a stream")
    }

    func testALiveStreamKeepsNoPositionToResumeAt() {
        var h = Harness(uris: ["http://radio.example/stream"], play: true)
        h.finishLoad(length: 0, seekable: false)
        h.advance(ms: 3000)
        h.command(.pause)
        h.command(.stop)
        XCTAssertEqual(saved(h), [], "a position was stored for a stream that cannot seek")
        XCTAssertEqual(h.engine.checkpoint(now: h.now), [])
    }

    func testPlayingAStoredEntryLoadsAtItsPosition() {
        var h = Harness()
        h.engine.resumePolicy = .always
        h.command(.add(entries: [NewEntry(uri: "file:///a", itemID: 7, metadata: TrackMetadata(length: 60_000_000),
                                          resumeAt: 20_000_000)], after: nil, atStart: false, play: true))
        XCTAssertEqual(h.load?.start, 20_000_000)
        h.finishLoad(length: 60_000_000, at: 20_000_000)
        XCTAssertEqual(h.position, 20_000_000 + Harness.heardAfter)
        XCTAssertEqual(h.engine.queue.current?.itemID, 7)
    }

    func testAFinishedEntryStartsOverAndCountsAPlay() {
        var h = Harness()
        h.engine.resumePolicy = .always
        h.command(.add(entries: [NewEntry(uri: "file:///a", metadata: TrackMetadata(length: 60_000_000),
                                          resumeAt: 55_000_000)], after: nil, atStart: false, play: true))
        XCTAssertEqual(h.load?.start, 0)
        XCTAssertTrue(h.effects.contains(.store(.finished(h.id(1)))))
    }

    func testPositionIsSavedOnPauseStopSeekAndTrackChange() {
        var h = Harness(uris: ["file:///1", "file:///2"], play: true)
        h.finishLoad()
        h.advance(ms: 1960)
        h.command(.pause)
        XCTAssertEqual(saved(h), [2_000_000])
        h.command(.play)
        h.hear(from: 2_000_000)
        h.advance(ms: 960)
        h.command(.seek(by: 4_000_000))
        XCTAssertEqual(saved(h), [], "the seek is stored when it lands")
        h.event(.restarted(h.token, position: 7_000_000))
        XCTAssertEqual(saved(h), [7_000_000])
        h.hear(from: 7_000_000)
        h.advance(ms: 460)
        h.command(.next)
        XCTAssertEqual(h.effects.first, .store(.savePosition(h.id(1), 7_500_000)), "the entry left behind")
        h.finishLoad()
        h.advance(ms: 260)
        h.command(.stop)
        XCTAssertEqual(saved(h), [300_000], "the library keeps where it stopped")
        XCTAssertEqual(h.engine.queue.entries[1].resumeAt, 0, "Play after Stop starts over")
    }

    func testAutoResumesLongEntriesFeedEpisodesAndVideosNotShortMusic() {
        let policy = ResumePolicy.standard
        func entry(_ uri: String = "file:///x.ogg", length: MediaTime?, feed: Bool = false) -> QueueEntry {
            QueueEntry(id: EntryID(1), uri: uri, metadata: TrackMetadata(length: length), resumeAt: 30_000_000, prefersResume: feed)
        }
        XCTAssertEqual(Engine.resumePoint(entry(length: 60_000_000), policy: policy).start, 0, "a song starts over")
        XCTAssertEqual(Engine.resumePoint(entry(length: 599_000_000), policy: policy).start, 0)
        XCTAssertEqual(Engine.resumePoint(entry(length: 600_000_000), policy: policy).start, 30_000_000, "10 minutes resume")
        XCTAssertEqual(Engine.resumePoint(entry(length: 60_000_000, feed: true), policy: policy).start, 30_000_000, "an episode")
        XCTAssertEqual(Engine.resumePoint(entry(length: nil), policy: policy).start, 30_000_000, "length unknown")
        XCTAssertEqual(Engine.resumePoint(entry(length: 120_000_000), policy: .auto(minLength: 60_000_000)).start, 30_000_000)
        XCTAssertEqual(Engine.resumePoint(entry(length: 3_600_000_000), policy: .never).start, 0)
        XCTAssertEqual(Engine.resumePoint(entry(length: 60_000_000), policy: .always).start, 30_000_000)
        XCTAssertTrue(NewEntry(uri: "file:///films/a%20film.MKV").prefersResume, "a video")
        XCTAssertFalse(NewEntry(uri: "file:///music/a.flac").prefersResume)
    }

    func testPlayAfterStopStartsOverAndNextOrPreviousStartShortMusicAtItsBeginning() {
        var h = Harness()
        let long = TrackMetadata(length: 1_800_000_000), song = TrackMetadata(length: 60_000_000)
        h.command(.add(entries: [NewEntry(uri: "file:///talk.ogg", metadata: long, resumeAt: 600_000_000),
                                 NewEntry(uri: "file:///song.ogg", metadata: song, resumeAt: 6_900_000)],
                       after: nil, atStart: false, play: true))
        XCTAssertEqual(h.load?.start, 600_000_000, "a long entry resumes")
        h.finishLoad(length: 1_800_000_000, at: 600_000_000)
        h.advance(ms: 1000)
        h.command(.stop)
        h.command(.play)
        XCTAssertEqual(h.load?.start, 0, "MPRIS: Play after Stop starts over")
        h.finishLoad(length: 1_800_000_000)
        h.command(.next)
        XCTAssertEqual(h.load?.start, 0, "a 60 s song starts at its beginning, not at 6.9 s")
        h.finishLoad(length: 60_000_000)
        h.advance(ms: 1000)
        h.command(.next)   // wraps nowhere: the song was the last; back to it with Previous
        h.command(.goTo(h.id(1)))
        XCTAssertEqual(h.load?.start, 40_000, "the long talk resumes where Next left it")
        h.finishLoad(length: 1_800_000_000, at: 40_000)
        h.command(.next)
        XCTAssertEqual(h.load?.start, 0, "the song starts over, whatever was stored for it")
    }

    func testWhilePlayingThePositionIsSavedAtMostOnceASecond() {
        var h = Harness(uris: ["file:///1"], play: true)
        h.finishLoad()
        var saves = 0
        for _ in 0..<40 {   // 4 s of 100 ms samples
            h.advance(ms: 100)
            h.event(.position(h.token, h.position))
            saves += saved(h).count
        }
        XCTAssertEqual(saves, 4)
    }

    func testEndOfFileMarksTheEntryFinished() {
        var h = Harness(uris: ["file:///1", "file:///2"], play: true)
        h.finishLoad()
        h.advance(ms: 9000)
        let first = h.id(1)
        h.event(.endOfFile(h.token))
        XCTAssertTrue(h.effects.contains(.store(.finished(first))))
        XCTAssertFalse(h.effects.contains { if case .store(.savePosition(first, _)) = $0 { true } else { false } })
        XCTAssertEqual(h.engine.queue[first]?.resumeAt, 0)
    }

    func testCheckpointSavesTheCurrentPosition() {
        var h = Harness(uris: ["file:///1"], play: true)
        XCTAssertEqual(h.engine.checkpoint(now: h.now), [], "nothing started yet: nothing to store")
        h.finishLoad()
        h.advance(ms: 1194)
        XCTAssertEqual(h.engine.checkpoint(now: h.now), [.store(.savePosition(h.id(1), 1_234_000))])
    }

    func testRestoreBringsBackQueueSettingsAndAPausedCurrentEntry() {
        var engine = Engine(seed: 1)
        var settings = Settings()
        settings.loop = .playlist
        settings.shuffle = true
        settings.rate = 1.5
        // As stored: ids 5, 6, 7 (ids survive restarts), ranks in that order, shuffle keys 3, 2, 1.
        let entries = (1...3).map { (n: Int) -> (QueueEntry, Queue.Place) in
            let resume: MediaTime = n == 2 ? 4_000_000 : 0
            return (QueueEntry(id: EntryID(UInt64(4 + n)), uri: "file:///\(n)", metadata: TrackMetadata(), itemID: Int64(n),
                               resumeAt: resume), Queue.Place(rank: Int64(n) * 10, shuffleKey: Int64(4 - n)))
        }
        let stored = Queue(restoring: entries.reversed(), current: EntryID(6), nextID: 8, shuffle: true)
        let effects = engine.restore(stored, settings: settings, now: 0)
        XCTAssertEqual(engine.queue.entries.map(\.itemID), [1, 2, 3])
        XCTAssertEqual(engine.queue.playOrder.map { engine.queue[$0]!.itemID }, [3, 2, 1])
        XCTAssertEqual(engine.queue.nextID, 8, "new entries continue the stored ids")
        XCTAssertEqual(engine.settings, settings)
        XCTAssertTrue(effects.contains(.backend(.setRate(1.5))))
        XCTAssertTrue(effects.contains { if case .backend(.load(_, "file:///2", 4_000_000, nil, true, _)) = $0 { true } else { false } })
        XCTAssertEqual(engine.snapshot.status, .paused)
    }
}

/// The queue's rows and state reach the store as one effect a turn (`Engine.saveQueue`).
final class EngineQueueSaveTests: XCTestCase {
    func save(_ effects: [Effect]) -> QueueSave? {
        effects.compactMap { if case .store(.queue(let save)) = $0 { save } else { nil } }.first
    }

    func testATurnsChangesMakeOneSaveAndThenThereIsNothingToSave() throws {
        var h = Harness(uris: ["file:///a", "file:///b", "file:///c"])
        let first = try XCTUnwrap(save(h.engine.saveQueue()))
        XCTAssertEqual(first.rows.map(\.uri).sorted(), ["file:///a", "file:///b", "file:///c"])
        XCTAssertEqual(first.state?.current, h.id(1).raw)
        XCTAssertEqual(first.state?.nextID, h.engine.queue.nextID)
        XCTAssertEqual(h.engine.saveQueue(), [], "nothing changed since")
        h.command(.remove(h.id(2)))
        let removed = try XCTUnwrap(save(h.engine.saveQueue()))
        XCTAssertEqual(removed.removed, [2])
        XCTAssertTrue(removed.rows.isEmpty)
        XCTAssertNil(removed.state, "the current entry, the next id and the settings stand")
        h.command(.setShuffle(true))
        let shuffled = try XCTUnwrap(save(h.engine.saveQueue()))
        XCTAssertEqual(shuffled.shuffleKeys?.ids, h.engine.queue.ids)
        XCTAssertEqual(shuffled.state?.settings.shuffle, true)
    }

    func testARestoredQueueIsNotWrittenBackAsItWasRead() {
        var h = Harness()
        let stored = Queue(restoring: [(QueueEntry(id: EntryID(4), uri: "file:///a", metadata: TrackMetadata()),
                                        Queue.Place(rank: 1, shuffleKey: 0))],
                           current: EntryID(4), nextID: 5, shuffle: false)
        h.record(h.engine.restore(stored, settings: Settings(), now: h.now))
        XCTAssertEqual(h.engine.saveQueue(), [])
    }

    func testAttachingItemsNamesThemAndKeepsWhatTheEntriesLearnt() {
        var h = Harness(uris: ["file:///a", "file:///b"], play: true)
        h.finishLoad(length: 5_000_000)
        _ = h.engine.saveQueue()
        let effects = h.engine.attach(items: [(h.id(1), 70), (h.id(2), 71)])
        XCTAssertEqual(h.engine.queue.entries.map(\.itemID), [70, 71])
        XCTAssertEqual(effects, [.store(.learned(h.id(1)))], "only the played entry learnt its tags")
        XCTAssertEqual(save(h.engine.saveQueue())?.rows.compactMap(\.itemID).sorted(), [70, 71], "the rows name their items")
    }
}
