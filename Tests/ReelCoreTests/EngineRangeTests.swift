import XCTest
@testable import ReelCore

/// Ranges (MPD's `rangeid`): the part of a queued entry that plays.
final class EngineRangeTests: XCTestCase {
    let uris = ["file:///1.ogg", "file:///2.ogg", "file:///3.ogg"]

    func range(_ start: MediaTime, _ end: MediaTime?) -> PlayRange { PlayRange(start: start, end: end)! }

    func playing() -> Harness {
        var h = Harness(uris: uris, play: true)
        h.finishLoad()
        return h
    }

    func testTheQueuedEntryIsQueuedAgainWithItsRange() {
        var h = playing()
        XCTAssertNil(h.command(.setRange(h.id(2), range(2_000_000, 3_000_000))))
        XCTAssertTrue(h.effects.contains {
            if case .backend(.queueNext(let token, "file:///2.ogg", 2_000_000, 3_000_000, _)) = $0 { token.entry == h.id(2) } else { false }
        }, "\(h.effects)")
        XCTAssertTrue(h.effects.contains(.announce(.trackMetadataChanged(h.id(2)))))
        XCTAssertNil(h.command(.setRange(h.id(2), range(2_000_000, 3_000_000))))
        XCTAssertTrue(h.effects.isEmpty, "the same range again changes nothing")
        XCTAssertNil(h.command(.setRange(h.id(2), nil)))
        XCTAssertTrue(h.effects.contains {
            if case .backend(.queueNext(_, "file:///2.ogg", 0, nil, _)) = $0 { true } else { false }
        }, "without a range it is queued whole: \(h.effects)")
    }

    func testTheEntryThatPlaysKeepsItsRangeAndANewEntryIsRefused() {
        var h = playing()
        XCTAssertEqual(h.command(.setRange(h.id(1), range(1_000_000, nil))),
                       .invalidArgument("Cannot edit the range of the entry that plays"))
        XCTAssertNil(h.engine.queue[h.id(1)]?.range)
        XCTAssertEqual(h.command(.setRange(EntryID(999), nil)), .noSuchTrack(EntryID(999)))
    }

    func testARangedEntryStartsAtItsRangeAndPreviousGoesBackThere() {
        var h = playing()
        h.command(.setRange(h.id(3), range(1_000_000, nil)))
        h.command(.goTo(h.id(3)))
        XCTAssertTrue(h.effects.contains {
            if case .backend(.load(_, "file:///3.ogg", 1_000_000, nil, false, _)) = $0 { true } else { false }
        }, "\(h.effects)")
        h.finishLoad(at: 1_000_000)
        h.advance(ms: 4_000)
        h.command(.previous)
        XCTAssertEqual(h.backend.seeks.last, 1_000_000, "Previous restarts the range, not the file")
    }

    func testARangeIsCutToTheFileAndMayNotStartPastIt() {
        var h = playing()   // entry 1 is 10 s long
        h.command(.goTo(h.id(2)))
        XCTAssertEqual(h.command(.setRange(h.id(1), range(11_000_000, nil))),
                       .invalidArgument("Invalid start offset"))
        XCTAssertNil(h.command(.setRange(h.id(1), range(2_000_000, 20_000_000))))
        XCTAssertEqual(h.engine.queue[h.id(1)]?.range, range(2_000_000, nil))
        XCTAssertEqual(h.engine.queue[h.id(1)]?.playedLength, 8_000_000)
    }

    func testARangeClampsWhereAnEntryResumes() {
        let r = range(2_000_000, 5_000_000)
        XCTAssertEqual(r.clamp(3_000_000), 3_000_000)
        XCTAssertEqual(r.clamp(1_000_000), 2_000_000)
        XCTAssertEqual(r.clamp(5_000_000), 2_000_000, "at its end: from its start")
        XCTAssertNil(PlayRange(start: 2, end: 2))
        XCTAssertNil(PlayRange(start: -1, end: nil))
        XCTAssertEqual(PlayRange.playedLength(nil, fileLength: 7), 7)
        XCTAssertEqual(PlayRange.playedLength(range(2, nil), fileLength: nil), nil)
        XCTAssertEqual(PlayRange.playedLength(range(2, 5), fileLength: nil), 3)
    }
}
