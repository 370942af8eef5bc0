import XCTest
@testable import ReelCore

/// Chapters: the one heard, the deadline of the next, moving between them, and the keys.
final class EngineChapterTests: XCTestCase {
    static let chapters = [Chapter(start: 0, title: "Intro"), Chapter(start: 60_000_000, title: "Interview"),
                           Chapter(start: 300_000_000, title: "Outro")]
    static let episodeLength: MediaTime = 20 * 60_000_000

    /// Plays an episode of three chapters (20 min, so Next moves by chapter), then a song.
    func playing(from start: MediaTime = 0, length: MediaTime = episodeLength) -> Harness {
        var h = Harness(uris: ["file:///episode.m4b", "file:///song.ogg"], play: true)
        h.event(.loaded(h.token, TrackMetadata(title: "Episode 1", length: length, chapters: Self.chapters), seekable: true))
        h.event(.restarted(h.token, position: start))
        h.hear(from: start)
        return h
    }

    func testTheChapterHeardIsInTheSnapshotAndChangesAtTheDeadline() throws {
        var h = playing(from: 59_000_000)
        XCTAssertEqual(h.engine.snapshot.chapter, 0)
        let due = try XCTUnwrap(h.engine.deadline, "the next chapter's start is a deadline")
        XCTAssertEqual(h.engine.position(at: due), 60_000_000 - Engine.chapterSlack,
                       "it is when the chapter starts to be heard (within the slack of a landing)")
        h.now = due - 1
        h.tick(ms: 0)
        XCTAssertEqual(h.engine.snapshot.chapter, 0, "a µs before")
        h.now = due
        h.tick(ms: 0)
        XCTAssertEqual(h.engine.snapshot.chapter, 1)
        XCTAssertEqual(h.engine.position(at: h.engine.deadline!), 300_000_000 - Engine.chapterSlack, "then the next one's")
    }

    func testASeekThatLandsAMicrosecondShortIsInTheChapterSoughtTo() {
        var h = playing(from: 70_000_000)
        h.command(.pause)
        h.command(.goToChapter(.number(3)))
        h.event(.restarted(h.token, position: 299_999_999))   // mpv's seconds, rounded to µs
        XCTAssertEqual(h.engine.snapshot.chapter, 2)
    }

    func testNoChapterDeadlineWhilePaused() {
        var h = playing(from: 59_000_000)
        h.command(.pause)
        XCTAssertEqual(h.engine.deadline, h.now + Engine.settleDelay, "only the paused position's settling")
        h.tick(ms: 200)
        XCTAssertNil(h.engine.deadline)
        XCTAssertEqual(h.engine.snapshot.chapter, 0)
    }

    func testChapterCommandsSeekToChapterStarts() {
        var h = playing(from: 70_000_000)
        XCTAssertNil(h.command(.goToChapter(.next)))
        XCTAssertEqual(h.backend.seeks.last, 300_000_000)
        XCTAssertEqual(h.engine.snapshot.chapter, 2, "the chapter sought to, at once")
        XCTAssertEqual(h.command(.goToChapter(.next)), .invalidArgument("this is the last chapter"))
        XCTAssertNil(h.command(.goToChapter(.number(1))))
        XCTAssertEqual(h.backend.seeks.last, 0)
        XCTAssertEqual(h.command(.goToChapter(.number(4))), .invalidArgument("there is no chapter 4; the track has 3"))
        XCTAssertEqual(h.command(.goToChapter(.number(0))), .invalidArgument("there is no chapter 0; the track has 3"))
    }

    func testPreviousChapterRestartsAChapterPlayedForMoreThanThreeSeconds() {
        var h = playing(from: 62_000_000)
        h.command(.goToChapter(.previous))
        XCTAssertEqual(h.backend.seeks.last, 0, "2 s into a chapter: the one before")
        h = playing(from: 64_000_000)
        h.command(.goToChapter(.previous))
        XCTAssertEqual(h.backend.seeks.last, 60_000_000, "4 s into it: its start")
    }

    func testNextAndPreviousMoveByChapterInALongEntryThenByEntry() {
        var h = playing(from: 70_000_000)
        h.command(.next)
        XCTAssertEqual(h.backend.seeks.last, 300_000_000)
        XCTAssertEqual(h.currentID, h.id(1))
        h.command(.next)
        XCTAssertEqual(h.currentID, h.id(2), "from the last chapter, the next entry")

        h = playing(from: 61_000_000)
        h.command(.previous)
        XCTAssertEqual(h.backend.seeks.last, 0)
        h = Harness(uris: ["file:///song.ogg", "file:///episode.m4b"], play: true)
        h.finishLoad()
        h.command(.goTo(h.id(2)))
        h.event(.loaded(h.token, TrackMetadata(length: Self.episodeLength, chapters: Self.chapters), seekable: true))
        h.event(.restarted(h.token, position: 1_000_000))
        h.hear(from: 1_000_000)
        h.command(.previous)
        XCTAssertEqual(h.currentID, h.id(1), "in the first chapter's first seconds: the entry before")
    }

    func testShortEntriesAndChapterKeysNeverMoveByEntry() {
        var h = playing(from: 70_000_000, length: 400_000_000)   // under the 10 min of the resume policy
        h.command(.next)
        XCTAssertEqual(h.currentID, h.id(2), "a short file with chapters: Next is the next entry")

        h = playing(from: 70_000_000)
        h.command(.setChapterKeys(.never))
        h.command(.next)
        XCTAssertEqual(h.currentID, h.id(2))
        XCTAssertNil(h.engine.snapshot.chapter, "the song has no chapters")
    }

    func testAnEntryWithoutChaptersRefusesChapterCommands() {
        var h = Harness(uris: ["file:///song.ogg"], play: true)
        h.finishLoad()
        XCTAssertEqual(h.command(.goToChapter(.next)), .invalidArgument("the track that plays has no chapters"))
        XCTAssertNil(h.engine.snapshot.chapter)
    }

    func testChaptersAreNormalizedAndFoundByPosition() {
        let list = Chapter.normalized([Chapter(start: 5, title: " B "), Chapter(start: -3, title: ""),
                                       Chapter(start: 5, title: "dup"), Chapter(start: 9, title: "C")])
        XCTAssertEqual(list, [Chapter(start: 0, title: "Chapter 1"), Chapter(start: 5, title: "B"), Chapter(start: 9, title: "C")])
        XCTAssertEqual(list.index(at: 0), 0)
        XCTAssertEqual(list.index(at: 4), 0)
        XCTAssertEqual(list.index(at: 5), 1)
        XCTAssertEqual(list.index(at: 100), 2)
        XCTAssertNil([Chapter(start: 10, title: "late")].index(at: 3), "before a late first chapter there is none")
        XCTAssertNil([Chapter]().index(at: 3))
        XCTAssertEqual(Chapter.normalized([Chapter(start: 0, title: "a\u{0}b\nc\t")]).first?.title, "a b c")
    }
}

/// Next and Previous by chapter are offered where they act: a lone episode's chapters count.
final class EngineChapterKeysTests: XCTestCase {
    func testALoneEpisodeWithChaptersCanGoNextUntilItsLastChapter() {
        var h = Harness(uris: ["file:///episode.m4b"], play: true)
        XCTAssertFalse(h.engine.snapshot.canGoNext, "nothing known yet: no chapters, nothing after")
        h.event(.loaded(h.token, TrackMetadata(title: "Episode 1", length: EngineChapterTests.episodeLength,
                                               chapters: EngineChapterTests.chapters), seekable: true))
        h.event(.restarted(h.token, position: 70_000_000))
        h.hear(from: 70_000_000)
        XCTAssertTrue(h.engine.snapshot.canGoNext, "Next moves to the third chapter")
        XCTAssertTrue(h.engine.snapshot.canGoPrevious)
        h.command(.next)
        XCTAssertEqual(h.backend.seeks.last, 300_000_000)
        h.event(.restarted(h.token, position: 300_000_000))
        h.hear(from: 300_000_000)
        XCTAssertEqual(h.engine.snapshot.chapter, 2)
        XCTAssertFalse(h.engine.snapshot.canGoNext, "in the last chapter of the last entry Next has nowhere to go")
        XCTAssertTrue(h.engine.snapshot.canGoPrevious)

        h.command(.setChapterKeys(.never))
        h.command(.seek(by: -250_000_000))
        h.event(.restarted(h.token, position: 50_000_000))
        h.hear(from: 50_000_000)
        XCTAssertFalse(h.engine.snapshot.canGoNext, "keys that never move by chapter cannot go next here")
    }

    func testChaptersPastTheEndOfTheFileAreLeftOutWithAReason() {
        let entry = NewEntry(uri: "https://example.org/ep.mp3", metadata: TrackMetadata(chapters: [Chapter(start: 0, title: "Hello"), Chapter(start: 20_000_000, title: "Middle"),
                                   Chapter(start: 100_000_000, title: "Later"), Chapter(start: 356_400_000_000, title: "99 h")]))
        var h = Harness()
        h.command(.add(entries: [entry], after: nil, atStart: false, play: true))
        h.event(.loaded(h.token, TrackMetadata(length: 40_000_000), seekable: true))
        XCTAssertEqual(h.engine.queue.entries[0].metadata.chapters.map(\.title), ["Hello", "Middle"])
        XCTAssertTrue(h.effects.contains(.log(#"ep.mp3: 2 chapters (the first "Later" at 1:40) left out: past the end of the file (0:40)"#)),
                      "\(h.effects)")
        h.event(.restarted(h.token, position: 0))
        XCTAssertEqual(h.command(.goToChapter(.number(3))), .invalidArgument("there is no chapter 3; the track has 2"))
    }

    func testAShortLoneFileWithChaptersCannotGoNext() {
        var h = Harness(uris: ["file:///song.m4a"], play: true)
        h.event(.loaded(h.token, TrackMetadata(length: 200_000_000, chapters: EngineChapterTests.chapters), seekable: true))
        h.event(.restarted(h.token, position: 0))
        h.hear(from: 0)
        XCTAssertFalse(h.engine.snapshot.canGoNext, "a short file's chapters are not moved through by Next")
    }
}
