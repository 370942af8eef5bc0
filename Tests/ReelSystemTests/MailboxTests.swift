import Glibc
import ReelSystem
import XCTest

final class MailboxTests: XCTestCase {
    private func readable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }

    func testAPostFromAnotherThreadWakesThePollAndIsTakenOnce() throws {
        let mailbox = try Mailbox<Int>()
        XCTAssertFalse(readable(mailbox.fd))
        Threads.start(name: "reel-test") { for i in 0..<100 { mailbox.post(i) } }
        var entry = pollfd(fd: mailbox.fd, events: Int16(POLLIN), revents: 0)
        var taken: [Int] = []
        while taken.count < 100 {
            XCTAssertEqual(poll(&entry, 1, 10_000), 1, "woken")
            taken += mailbox.take()
        }
        XCTAssertEqual(taken, Array(0..<100))
        // The writer may have woken the pipe once more after the last take: that is harmless.
        mailbox.post(100)
        XCTAssertEqual(mailbox.take(), [100])
        XCTAssertFalse(readable(mailbox.fd), "taking drains its own pipe")
    }

    func testMailboxesSharingAPipeLeaveItToItsOwner() throws {
        let pipe = try WakeupPipe()
        let a = Mailbox<String>(waking: pipe), b = Mailbox<String>(waking: pipe)
        a.post("a")
        b.post("b")
        XCTAssertEqual(a.take(), ["a"])
        XCTAssertTrue(readable(pipe.readFD), "a shared pipe stays readable for its owner")
        XCTAssertEqual(b.take(), ["b"])
        pipe.drain()
        XCTAssertFalse(readable(pipe.readFD))
    }

    func testAFullPipeNeverBlocksAWriter() throws {
        let pipe = try WakeupPipe()
        for _ in 0..<200_000 { pipe.wake() }   // far more than a pipe holds
        pipe.drain()
        XCTAssertFalse(readable(pipe.readFD))
        XCTAssertEqual(fcntl(pipe.writeFD, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC, "children never inherit it")
    }

    func testBaseDirectoriesFollowXDGAndIgnoreRelativeValues() {
        XCTAssertEqual(Paths.base(.data, environment: ["XDG_DATA_HOME": "/d"]), "/d")
        XCTAssertEqual(Paths.base(.cache, environment: ["XDG_CACHE_HOME": "relative"]), Paths.home + "/.cache")
        XCTAssertEqual(Paths.base(.config, environment: [:]), Paths.home + "/.config")
    }

    func testCStringsAreANullTerminatedArrayOfCopies() {
        let joined = withCStrings(["ls", "-l", "é"]) { argv -> [String] in
            var out: [String] = []
            var i = 0
            while let p = argv[i] { out.append(String(cString: p)); i += 1 }
            return out
        }
        XCTAssertEqual(joined, ["ls", "-l", "é"])
    }
}
