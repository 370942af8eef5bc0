import Foundation
@testable import ReelCache
import XCTest

/// The cache's index when several processes (reeld, `reel cache`) open it at once.
final class CacheIndexTests: FolderTestCase {
    func openConcurrently(_ path: String) -> [String] {
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try CacheIndex(path: path) } catch { failures.add("\(error)") }
        }
        return failures.all
    }

    func testOpenersOfAFreshIndexDoNotCollide() throws {
        for round in 0..<5 {
            let path = dir.appendingPathComponent("fresh\(round).sqlite3").path
            XCTAssertEqual(openConcurrently(path), [])
            let index = try CacheIndex(path: path)
            XCTAssertNil(index.record(key: "k"))
        }
    }

    func testOpenersOfAnOldIndexAddEachColumnOnce() throws {
        for round in 0..<5 {
            let path = dir.appendingPathComponent("old\(round).sqlite3").path
            let old = Process()
            old.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            old.arguments = ["python3", "-c", """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.executescript('''CREATE TABLE resources (key TEXT PRIMARY KEY, url TEXT NOT NULL, ranges TEXT NOT NULL DEFAULT '',
                    length INTEGER, etag TEXT, last_modified TEXT, content_type TEXT, last_read INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE downloads (url TEXT PRIMARY KEY, added INTEGER NOT NULL);''')
                db.close()
                """, path]
            try old.run()
            old.waitUntilExit()
            XCTAssertEqual(old.terminationStatus, 0)
            XCTAssertEqual(openConcurrently(path), [], "every opener migrates or finds it migrated")
        }
    }

    final class Failures: @unchecked Sendable {
        // @unchecked: the list is only touched under `lock`.
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
    }
}
