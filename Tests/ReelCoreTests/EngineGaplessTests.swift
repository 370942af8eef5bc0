import XCTest
@testable import ReelCore

/// The backend's two-entry window: the next entry waits in it, and its start
/// becomes the track change when it is heard.
final class EngineGaplessTests: XCTestCase {
    let uris = ["file:///1.ogg", "file:///2.ogg", "file:///3.ogg"]

    func playing() -> Harness {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        return h
    }

    func testTheNextEntryIsQueuedOnceAndFollowsTheOrder() {
        var h = Harness(uris: uris, play: true)
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(2), "queued with the load")
        h.finishLoad()
        XCTAssertFalse(h.effects.contains { if case .backend(.queueNext) = $0 { true } else { false } }, "not again per event")
        h.command(.setLoop(.track))
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(1))
        h.command(.setLoop(.none))
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(2))
        h.command(.remove(h.id(2)))
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(2), "removing the queued entry queues the next (entry 3, now second)")
        h.command(.remove(h.id(2)))
        XCTAssertNil(h.backend.queued, "the last entry: nothing to queue")
        XCTAssertTrue(h.effects.contains(.backend(.unqueueNext)))
        h.command(.add(uris: ["file:///4.ogg"], play: false))
        XCTAssertEqual(h.backend.queued?.uri, "file:///4.ogg", "appending after the last entry queues it")
    }

    func testTheSwitchHappensWhenTheQueuedEntryIsHeard() {
        var h = playing()
        h.playIntoQueued(tail: 300_000, title: "Two")
        XCTAssertEqual(h.currentID, h.id(1))
        XCTAssertEqual(h.engine.queue[h.id(2)]?.metadata.title, "Two", "tags arrive before the switch")
        XCTAssertEqual(h.engine.deadline, h.now + 300_000)
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(3), "the one after it is queued at once")
        h.tick(ms: 299)
        XCTAssertEqual(h.currentID, h.id(1), "not before")
        h.tick(ms: 1)
        XCTAssertEqual(h.currentID, h.id(2))
        XCTAssertEqual(h.seekedPositions, [0])
        XCTAssertEqual(h.engine.state.phase, .playing(h.token))
        h.advance(ms: 500)
        XCTAssertEqual(h.position, 500_000, "running since it was heard")
        h.event(.position(h.token, 500_000))
        XCTAssertEqual(h.playbackEffects, [])
    }

    func testTheWindowGoesWithItsLoad() {
        var h = playing()
        h.playIntoQueued(tail: 300_000)
        let after = h.engine.queuedNext
        XCTAssertEqual(after?.token.entry, h.id(3), "queued after the incoming entry")
        h.tick(ms: 300)
        XCTAssertEqual(h.currentID, h.id(2))
        XCTAssertNil(h.engine.incoming)
        XCTAssertEqual(h.engine.queuedNext, after, "what was queued after the incoming entry stays queued")
        XCTAssertFalse(h.effects.contains { if case .backend(.queueNext) = $0 { true } else { false } }, "and is not queued again")
        _ = h.command(.stop)
        XCTAssertNil(h.engine.queuedNext, "a stop empties the window with the load")
        _ = h.command(.play)
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(3), "a new load queues anew")
        XCTAssertNotEqual(h.backend.queued?.token, after?.token)
    }

    func testSamplesBeforeTheStartRefineWhenItIsHeard() {
        var h = playing()
        h.playIntoQueued(tail: 300_000)
        for _ in 1...3 {   // each 20 ms later than predicted
            h.advance(ms: 50)
            h.event(.position(h.token, h.engine.incoming!.tracker!.position(at: h.now) - 20_000))
        }
        XCTAssertEqual(h.engine.deadline, h.now + 170_000)
    }

    func testAStrayZeroAsTheFileOpensDoesNotMoveTheSwitch() {
        var h = playing()
        h.playIntoQueued(tail: 200_000)
        h.event(.position(h.token, 0))   // mpv resets time-pos as a file opens, sometimes just after its restart
        h.tick(ms: 1)
        XCTAssertEqual(h.currentID, h.id(1), "still the end of entry 1")
        h.tick(ms: 199)
        XCTAssertEqual(h.currentID, h.id(2))
    }

    func testPauseDuringTheTailMakesTheQueuedEntryCurrentAndHeldAtItsStart() {
        var h = playing()
        h.playIntoQueued(tail: 300_000)
        h.advance(ms: 100)
        h.command(.pause)
        XCTAssertEqual(h.currentID, h.id(2))
        XCTAssertEqual(h.status, "Paused")
        XCTAssertEqual(h.position, 0)
        h.command(.play)
        h.advance(ms: 50)
        h.event(.position(h.token, -150_000))
        XCTAssertEqual(h.position, 0, "the tail plays again first")
        h.hear(from: 0)
        h.advance(ms: 100)
        h.event(.position(h.token, 0))
        h.advance(ms: 20)
        h.event(.position(h.token, 20_000))
        h.advance(ms: 20)
        h.event(.position(h.token, 40_000))
        XCTAssertEqual(h.position, 40_000)
    }

    func testNextDuringTheTailCutsItAndStartsTheQueuedEntry() {
        var h = playing()
        h.playIntoQueued(tail: 300_000)
        h.command(.next)
        XCTAssertEqual(h.currentID, h.id(2), "what the user hears next, not the one after")
        XCTAssertEqual(h.playbackEffects, [.backend(.seek(to: 0))])
        XCTAssertNil(h.load)
    }

    func testAQueuedEntryWithoutASourceIsSkippedWhenQueueing() {
        var h = Harness(uris: uris, play: true)
        let queued = h.backend.queued!.token
        h.event(.failed(queued, reason: "no playable source"))
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(3))
        XCTAssertEqual(h.engine.queue[h.id(2)]?.lastError, "no playable source")
        XCTAssertEqual(h.currentID, h.id(1), "the current entry plays on")
    }

    func testAQueuedEntryThatFailsInTheBackendIsPassedBy() {
        var h = playing()
        let broken = h.backend.queued!.token
        h.event(.endOfFile(h.token))
        h.event(.started(broken))
        let after = h.backend.queued!.token
        XCTAssertEqual(after.entry, h.id(3))
        h.event(.failed(broken, reason: "unrecognized file format"))
        XCTAssertNil(h.load, "the backend goes on to the entry after it by itself")
        h.event(.started(after))
        h.event(.restarted(after, position: -100_000))
        h.tick(ms: 100)
        XCTAssertEqual(h.currentID, h.id(3))
        XCTAssertEqual(h.engine.lastError, "2.ogg: unrecognized file format")
    }

    func testAStartForAnEntryRemovedMeanwhileLoadsWhatTheQueueSays() {
        var h = playing()
        let queued = h.backend.queued!.token
        h.command(.remove(h.id(2)))
        h.event(.endOfFile(h.token))
        h.event(.started(queued))
        XCTAssertEqual(h.load?.token.entry, h.id(2), "entry 3, now second")
    }

    func testLoopTrackRepeatsWithoutALoad() {
        var h = Harness(uris: ["file:///only.ogg"], play: true)
        h.command(.setLoop(.track))
        h.finishLoad()
        h.playIntoQueued(tail: 200_000)
        h.tick(ms: 200)
        XCTAssertEqual(h.currentID, h.id(1))
        XCTAssertEqual(h.seekedPositions, [0])
        XCTAssertEqual(h.backend.queued?.token.entry, h.id(1), "and again")
    }

    func testTheQueuedEntryStartsAtItsStoredPosition() {
        var h = Harness()
        h.command(.add(entries: [NewEntry(uri: "file:///a"),
                                 NewEntry(uri: "file:///b", metadata: TrackMetadata(length: 600_000_000), resumeAt: 42_000_000)],
                       after: nil, atStart: false, play: true))
        XCTAssertEqual(h.backend.queued?.start, 42_000_000)
        h.finishLoad()
        h.playIntoQueued(tail: 100_000)
        h.tick(ms: 100)
        XCTAssertEqual(h.position, 42_000_000)
    }
}
