import ReelSnapcast
import ReelSystem
import XCTest

final class SnapcastTargetTests: XCTestCase {
    func testTheTargetsUsersWrite() throws {
        XCTAssertEqual(try SnapcastTarget.parse("snapcast").get(), .pipe("/tmp/snapfifo"))
        XCTAssertEqual(try SnapcastTarget.parse("snapcast:/run/snap/fifo").get(), .pipe("/run/snap/fifo"))
        XCTAssertEqual(try SnapcastTarget.parse("snapcast:pipe:///tmp/x").get(), .pipe("/tmp/x"))
        XCTAssertEqual(try SnapcastTarget.parse("snapcast:tcp://127.0.0.1:4953").get(),
                       .tcp(ListenAddress(host: "127.0.0.1", port: 4953)))
        XCTAssertEqual(try SnapcastTarget.parse("snapcast:tcp://kitchen").get(), .tcp(ListenAddress(host: "kitchen", port: 4953)))
        XCTAssertEqual(try SnapcastTarget.parse("snapcast:tcp://[::1]:5000").get().description, "snapcast:tcp://[::1]:5000")
    }

    func testWhatIsRefusedSaysWhy() {
        for bad in ["snapcats", "snapcast:", "snapcast:relative/fifo", "snapcast:tcp://host:99999", "snapcast:tcp://",
                    "snapcast:tcp://a b:1", "pulse"] {
            guard case .failure(let problem) = SnapcastTarget.parse(bad) else { return XCTFail("\(bad) was taken") }
            XCTAssertFalse(problem.description.isEmpty, bad)
        }
    }
}
