import Foundation
import XCTest

/// A test with a fresh directory of its own, removed afterwards, and a
/// library path in it.
class TempDirTestCase: XCTestCase {
    var dir: URL!
    var path: String { dir.appendingPathComponent("reel/library.sqlite3").path }

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }
}
