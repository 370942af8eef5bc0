import ReelSystem
import XCTest

final class PathsTests: XCTestCase {
    func testExtensionsAndFoldersAreThoseOfTheLastComponent() {
        XCTAssertEqual(Paths.fileExtension("/music/A.Band/Song.MP3"), "mp3")
        XCTAssertEqual(Paths.fileExtension("/music/A.Band/README"), "")
        XCTAssertEqual(Paths.fileExtension("/music/.hidden"), "")
        XCTAssertEqual(Paths.fileExtension("list.m3u8"), "m3u8")
        XCTAssertEqual(Paths.directory(of: "/a/b/c.ogg"), "/a/b")
        XCTAssertEqual(Paths.directory(of: "/c.ogg"), "/")
        XCTAssertEqual(Paths.directory(of: "/a/b/"), "/a")
        XCTAssertEqual(Paths.directory(of: "c.ogg"), ".")
    }

    func testCreateDirectoryMakesEveryMissingFolderAndSaysWhyItCannot() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reel-paths-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        try Paths.createDirectory(base + "/x/y/z", mode: 0o700)
        var info = stat()
        XCTAssertEqual(stat(base + "/x/y/z", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700)
        try Paths.createDirectory(base + "/x/y/z")
        XCTAssertTrue(FileManager.default.createFile(atPath: base + "/file", contents: Data()))
        XCTAssertThrowsError(try Paths.createDirectory(base + "/file/below")) { error in
            XCTAssertEqual("\(error)", "cannot create \(base)/file: a file is in the way")
        }
        XCTAssertTrue(Paths.home.hasPrefix("/"))
    }
}

final class ThreadsTests: XCTestCase {
    func testAThreadRunsItsBodyAndAConditionWakesItsWaiter() {
        let condition = Condition()
        let done = Shared(false)
        Threads.start(name: "reel-test") {
            condition.withLock {
                done.value = true
                condition.broadcast()
            }
        }
        condition.withLock {
            while !done.value { XCTAssertTrue(condition.wait(seconds: 10), "woken, not timed out") }
        }
        XCTAssertTrue(condition.withLock { done.value })
    }

    func testATimedWaitEndsWhenItsTimeRunsOut() {
        let condition = Condition()
        let started = Date()
        let woken = condition.withLock { condition.wait(seconds: 0.05) }
        XCTAssertFalse(woken)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.05)
        let past = condition.withLock { condition.wait(until: Date().addingTimeInterval(-1)) }
        XCTAssertFalse(past)
    }

    func testALockExcludes() {
        let lock = Lock()
        let count = Shared(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { lock.withLock { count.value += 1 } }
        }
        XCTAssertEqual(count.value, 80_000)
    }
}

/// A value the test guards with the lock under test.
final class Shared<T>: @unchecked Sendable {
    // @unchecked: every access in these tests is under the Lock or Condition being tested.
    var value: T
    init(_ value: T) { self.value = value }
}
