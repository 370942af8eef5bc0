import XCTest
@testable import ReelMPD

final class ReplyTests: XCTestCase {
    func testNumbersAreWrittenAsStringWritesThem() {
        let values: [Int64] = [0, 7, 9, 10, 99, 100, 1_234_567_890, -1, -10, -9_999, Int64.max, Int64.min, Int64.max - 1,
                               1_000_000_000_000_000_000, 999_999_999_999_999_999]
        for value in values {
            var reply = Reply()
            reply.add("n", value)
            XCTAssertEqual(reply.text, "n: \(String(value))\n")
        }
        var reply = Reply()
        reply.add("id", UInt64.max)
        reply.add("small", Int32.min)
        reply.add("byte", UInt8(255))
        XCTAssertEqual(reply.text, "id: 18446744073709551615\nsmall: -2147483648\nbyte: 255\n")
    }

    func testSecondsHaveThreeDecimalsAsMPDWritesThem() {
        let cases: [(Int64, String)] = [(0, "0.000"), (999, "0.000"), (1_000, "0.001"), (10_000, "0.010"), (123_456, "0.123"),
                                        (1_000_000, "1.000"), (61_234_999, "61.234"), (86_400_000_000, "86400.000"), (-5_000_000, "0.000")]
        for (micros, text) in cases {
            var reply = Reply()
            reply.addSeconds("elapsed", micros)
            XCTAssertEqual(reply.text, "elapsed: \(text)\n")
            XCTAssertEqual(Reply.seconds(micros), text)
        }
    }

    func testAValueCannotEndItsLine() {
        var reply = Reply()
        reply.add("Title", "one\ntwo\r\nthree")
        reply.add("Artist", "Björk\u{2028}Guðmundsdóttir")   // a Unicode line separator ends no MPD line
        reply.add("Album", "")
        XCTAssertEqual(reply.text, "Title: one two  three\nArtist: Björk\u{2028}Guðmundsdóttir\nAlbum: \n")
    }
}
