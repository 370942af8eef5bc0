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
}
