import XCTest
@testable import ReelMPD

final class MessageBoardTests: XCTestCase {
    func testMessagesReachOnlySubscribersAndAreReadOnce() throws {
        var board = MessageBoard()
        try board.subscribe(1, to: "a")
        try board.subscribe(2, to: "a")
        try board.subscribe(2, to: "b")
        XCTAssertEqual(board.channels, ["a", "b"])
        XCTAssertEqual(try board.send("hi", to: "a").sorted(), [1, 2], "both had nothing unread")
        XCTAssertEqual(try board.send("again", to: "a").sorted(), [], "their idle was woken already")
        XCTAssertEqual(board.read(1).map(\.text), ["hi", "again"])
        XCTAssertEqual(board.read(1).count, 0)
        board.remove(2)
        XCTAssertEqual(board.channels, ["a"])
        XCTAssertThrowsError(try board.send("x", to: "b"))
    }

    func testBoundsAndNames() throws {
        var board = MessageBoard()
        for bad in ["", "a b", "ü", "a\n"] { XCTAssertThrowsError(try board.subscribe(1, to: bad), bad) }
        for n in 0..<MessageBoard.maxSubscriptions { try board.subscribe(1, to: "c\(n)") }
        XCTAssertThrowsError(try board.subscribe(1, to: "more"))
        for _ in 0..<MessageBoard.maxUnread { _ = try board.send("m", to: "c0") }
        XCTAssertThrowsError(try board.send("m", to: "c0"), "the only subscriber's list is full: nobody took it")
        _ = board.read(1)
        let big = String(repeating: "x", count: 60 << 10)
        for _ in 0..<4 { _ = try board.send(big, to: "c0") }
        XCTAssertThrowsError(try board.send(big, to: "c0"), "256 KiB unread at most")
        XCTAssertTrue(MessageBoard.isValid("Cantata-dynamic_1.0:x"))
    }
}
