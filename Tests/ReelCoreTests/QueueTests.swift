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

    func testAnUntaggedEntryShowsItsFileNameWithoutStoringIt() {
        var q = Queue()
        let e = q.insert(uris: ["file:///music/My%20Song.ogg"], rng: &rng)
        XCTAssertNil(e[0].metadata.title, "a 100,000-entry queue would hold 100,000 copies")
        XCTAssertEqual(e[0].displayTitle, "My Song.ogg")
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

/// The queue's ranks, shuffle keys and change journal, which let it grow to
/// 100,000 entries with cheap changes.
final class QueueScaleTests: XCTestCase {
    func testInsertingAgainAndAgainAtOnePlaceRenumbersAndKeepsTheOrder() {
        var rng = SplitMix64(seed: 3)
        var q = Queue()
        let ends = q.insert(uris: ["file:///first", "file:///last"], rng: &rng)
        _ = q.takeChanges()
        var expected = ["file:///first"]
        // Each goes right after the first: the gap halves every time until it runs out.
        for n in 0..<80 {
            q.insert(uris: ["file:///\(n)"], after: ends[0].id, rng: &rng)
            expected.insert("file:///\(n)", at: 1)
        }
        expected.append("file:///last")
        XCTAssertEqual(q.entries.map(\.uri), expected)
        XCTAssertTrue(q.entries.indices.dropFirst().allSatisfy { q.place(at: $0 - 1).rank < q.place(at: $0).rank })
        for entry in q.entries { XCTAssertEqual(q.index(of: entry.id).map { q.entries[$0].id }, entry.id) }
        XCTAssertTrue(q.takeChanges().reranked, "ranks laid out afresh are written for every row")
    }

    func testAFewEntriesAddedWhileShuffledGoAheadOfTheCurrentOneToo() {
        var rng = SplitMix64(seed: 6)
        var q = Queue()
        let first = q.insert(uris: (0..<50).map { "file:///old\($0)" }, rng: &rng)
        q.setCurrent(first[10].id)
        q.setShuffle(true, rng: &rng)
        for _ in 0..<5 { _ = q.entry(after: q.currentID!, wrap: false).map { q.setCurrent($0) } }
        let played = Array(q.playOrder.prefix(6))
        var added: [EntryID] = []
        for n in 0..<30 { added += q.insert(uris: ["file:///new\(n)"], rng: &rng).map(\.id) }
        XCTAssertEqual(Array(q.playOrder.prefix(6)), played)
        XCTAssertEqual(Set(q.playOrder), Set(q.entries.map(\.id)))
        XCTAssertTrue(Set(added).isSubset(of: Set(q.playOrder.dropFirst(6))))
    }

    func testAThousandEntriesAddedWhileShuffledAllGoAheadOfTheCurrentOne() {
        var rng = SplitMix64(seed: 4)
        var q = Queue()
        let first = q.insert(uris: (0..<500).map { "file:///old\($0)" }, rng: &rng)
        q.setCurrent(first[250].id)
        q.setShuffle(true, rng: &rng)
        XCTAssertEqual(q.playOrder.first, first[250].id, "the current entry leads")
        for _ in 0..<10 { _ = q.entry(after: q.currentID!, wrap: false).map { q.setCurrent($0) } }
        let played = Array(q.playOrder.prefix(11))
        let added = q.insert(uris: (0..<1000).map { "file:///new\($0)" }, rng: &rng)
        let order = q.playOrder
        XCTAssertEqual(Set(order), Set(q.entries.map(\.id)), "a permutation")
        XCTAssertEqual(Array(order.prefix(11)), played, "what was played stays played")
        XCTAssertTrue(Set(added.map(\.id)).isDisjoint(with: Set(played)))
        // Walking the play order from the current entry meets every new entry.
        var seen = Set<EntryID>()
        var at = q.currentID!
        while let next = q.entry(after: at, wrap: false) { seen.insert(next); at = next }
        XCTAssertTrue(Set(added.map(\.id)).isSubset(of: seen))
    }

    func testTheJournalNamesOnlyWhatChanged() {
        var rng = SplitMix64(seed: 5)
        var q = Queue()
        let added = q.insert(uris: ["file:///a", "file:///b", "file:///c"], rng: &rng)
        XCTAssertEqual(q.takeChanges().upserted, Set(added.map(\.id)))
        q.update(added[0].id) { $0.resumeAt = 5_000_000 }
        XCTAssertTrue(q.takeChanges().isEmpty, "a resume point lives in the library item, not the queue row")
        q.update(added[0].id) { $0.itemID = 42 }
        XCTAssertEqual(q.takeChanges().upserted, [added[0].id], "the row names the item")
        q.remove(added[1].id)
        XCTAssertEqual(q.takeChanges(), QueueChanges(removed: [added[1].id]))
        q.setShuffle(true, rng: &rng)
        XCTAssertTrue(q.takeChanges().reshuffled)
        q.removeAll()
        XCTAssertEqual(q.takeChanges(), QueueChanges(cleared: true))
    }

    func testRestoringKeepsIdsAndIgnoresKeysThatDoNotOrderEveryEntry() {
        let entries = (1...3).map { (QueueEntry(id: EntryID(UInt64($0 * 10)), uri: "file:///\($0)", metadata: TrackMetadata()),
                                     Queue.Place(rank: Int64($0), shuffleKey: 0)) }
        let q = Queue(restoring: entries, current: EntryID(20), nextID: 5, shuffle: true)
        XCTAssertEqual(q.entries.map(\.id.raw), [10, 20, 30])
        XCTAssertEqual(q.nextID, 31, "never below an id in use")
        XCTAssertFalse(q.isShuffled, "equal keys order nothing: the engine lays a fresh order out")
        XCTAssertEqual(q.currentID, EntryID(20))
    }
}

final class QueueMoveTests: XCTestCase {
    var rng = SplitMix64(seed: 7)

    func testMoveKeepsIdsAndPlayOrderAndIsRecordedForTheStore() {
        var q = Queue()
        let e = q.insert(uris: ["file:///a", "file:///b", "file:///c"], rng: &rng)
        q.setShuffle(true, rng: &rng)
        let order = q.playOrder
        _ = q.takeChanges()
        XCTAssertTrue(q.move(e[2].id, to: 0))
        XCTAssertEqual(q.entries.map(\.id), [e[2].id, e[0].id, e[1].id])
        XCTAssertEqual(q.playOrder, order, "random play order is not the track list's")
        XCTAssertEqual(q.takeChanges().upserted, [e[2].id])
        XCTAssertEqual(q.index(of: e[2].id), 0)
        XCTAssertFalse(q.move(e[0].id, to: 3))
    }

    func testManyMovesIntoOneGapLayTheRanksOutAfresh() {
        var q = Queue()
        let e = q.insert(uris: (0..<3).map { "file:///\($0)" }, rng: &rng)
        // Each move halves the gap between the first two entries; 40 moves exhaust 2^32.
        for n in 0..<40 { XCTAssertTrue(q.move(n % 2 == 0 ? e[2].id : e[1].id, to: 1)) }
        XCTAssertEqual(Set(q.entries.map(\.id)), Set(e.map(\.id)))
        XCTAssertEqual(q.rankList, q.rankList.sorted())
        XCTAssertEqual(Set(q.rankList).count, 3)
        for (i, entry) in q.entries.enumerated() { XCTAssertEqual(q.index(of: entry.id), i) }
    }

    func testShufflingTheTrackListKeepsIdsRanksAndThePlayOrder() {
        var q = Queue()
        let e = q.insert(uris: (0..<10).map { "file:///\($0)" }, rng: &rng)
        q.setShuffle(true, rng: &rng)
        let order = q.playOrder
        let ranks = q.rankList
        _ = q.takeChanges()
        q.shuffleTrackList(2..<8, rng: &rng)
        XCTAssertEqual(q.entries.prefix(2).map(\.id), e.prefix(2).map(\.id), "outside the range nothing moves")
        XCTAssertEqual(q.entries.suffix(2).map(\.id), e.suffix(2).map(\.id))
        XCTAssertEqual(Set(q.entries[2..<8].map(\.id)), Set(e[2..<8].map(\.id)))
        XCTAssertNotEqual(q.entries[2..<8].map(\.id), e[2..<8].map(\.id), "six entries in their old order: 1 chance in 720")
        XCTAssertEqual(q.rankList, ranks, "the places stay; the entries move between them")
        XCTAssertEqual(q.playOrder, order, "random play order is not the track list's")
        for (i, entry) in q.entries.enumerated() { XCTAssertEqual(q.index(of: entry.id), i) }
        XCTAssertEqual(q.takeChanges().upserted.count, 6)
    }
}
