import XCTest
@testable import ReelCore

final class QueueTests: XCTestCase {
    var rng = SplitMix64(seed: 7)

    func testIDsAreUniqueAndNeverReused() {
        var q = Queue()
        let a = q.insert(uris: ["file:///a.ogg", "file:///a.ogg"], rng: &rng)
        XCTAssertNotEqual(a[0].id, a[1].id, "the same file queued twice gets two ids")
        q.remove(a[1].id)
        let b = q.insert(uris: ["file:///b.ogg"], rng: &rng)
        XCTAssertGreaterThan(b[0].id, a[1].id, "a removed id is never handed out again")
    }

    func testInsertAfterAndAtStart() {
        var q = Queue()
        let first = q.insert(uris: ["file:///1", "file:///3"], rng: &rng)
        q.insert(uris: ["file:///2"], after: first[0].id, rng: &rng)
        q.insert(uris: ["file:///0"], atStart: true, rng: &rng)
        XCTAssertEqual(q.entries.map(\.uri), ["file:///0", "file:///1", "file:///2", "file:///3"])
    }

    func testNeighboursWrapOnlyWhenAsked() {
        var q = Queue()
        let e = q.insert(uris: ["file:///1", "file:///2", "file:///3"], rng: &rng)
        XCTAssertEqual(q.entry(after: e[1].id, wrap: false), e[2].id)
        XCTAssertNil(q.entry(after: e[2].id, wrap: false))
        XCTAssertEqual(q.entry(after: e[2].id, wrap: true), e[0].id)
        XCTAssertNil(q.entry(before: e[0].id, wrap: false))
        XCTAssertEqual(q.entry(before: e[0].id, wrap: true), e[2].id)
    }

    func testShuffleIsAPermutationStartingAtTheCurrentEntry() {
        var q = Queue()
        let e = q.insert(uris: (1...20).map { "file:///\($0)" }, rng: &rng)
        q.setCurrent(e[5].id)
        q.setShuffle(true, rng: &rng)
        let order = q.playOrder
        XCTAssertEqual(Set(order), Set(e.map(\.id)))
        XCTAssertEqual(order.count, e.count)
        XCTAssertEqual(order.first, e[5].id)
        XCTAssertNotEqual(order, e.map(\.id), "20 entries are not left in order")
        // Walking forward then back retraces the permutation.
        var walked = [order[0]]
        while let next = q.entry(after: walked.last!, wrap: false) { walked.append(next) }
        XCTAssertEqual(walked, order)
        var back = [walked.last!]
        while let prev = q.entry(before: back.last!, wrap: false) { back.append(prev) }
        XCTAssertEqual(back, order.reversed())
        q.setShuffle(false, rng: &rng)
        XCTAssertEqual(q.playOrder, e.map(\.id))
    }

    func testEntriesAddedWhileShuffledGoAheadOfTheCurrentOne() {
        var q = Queue()
        let e = q.insert(uris: ["file:///1", "file:///2", "file:///3"], rng: &rng)
        q.setCurrent(e[1].id)
        q.setShuffle(true, rng: &rng)
        let added = q.insert(uris: ["file:///4"], rng: &rng)
        let order = q.playOrder
        XCTAssertEqual(order.count, 4)
        XCTAssertGreaterThan(order.firstIndex(of: added[0].id)!, order.firstIndex(of: e[1].id)!)
    }

    func testFallbackTitleIsTheDecodedFileName() {
        XCTAssertEqual(QueueEntry.fallbackTitle(for: "file:///music/My%20Song.ogg"), "My Song.ogg")
        XCTAssertEqual(QueueEntry.fallbackTitle(for: "https://example.org/a/b.mp3?token=1"), "b.mp3")
    }
}
