import XCTest
@testable import ReelCore

final class RankIndexTests: XCTestCase {
    func testFindsUpdatesAndForgetsRanksWhateverTheOrderOfIDs() {
        var index = RankIndex([(EntryID(7), 70), (EntryID(2), 20), (EntryID(5), 50)])
        XCTAssertEqual([2, 5, 7].map { index[EntryID($0)] }, [20, 50, 70], "restored pairs come in rank order, not id order")
        index.set(EntryID(9), rank: 15)
        index.set(EntryID(3), rank: 30)
        index.set(EntryID(5), rank: 55)
        XCTAssertEqual([2, 3, 5, 7, 9].map { index[EntryID($0)] }, [20, 30, 55, 70, 15])
        index.remove(EntryID(3))
        index.remove(EntryID(4))
        XCTAssertNil(index[EntryID(3)])
        XCTAssertNil(index[EntryID(1)])
        XCTAssertNil(index[EntryID(10)])
        XCTAssertEqual(index[EntryID(9)], 15)
        index.removeAll()
        XCTAssertNil(index[EntryID(2)])
    }
}
