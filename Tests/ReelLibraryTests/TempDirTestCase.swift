import Foundation
import ReelHarness
import XCTest

/// A test with a fresh directory of its own, removed afterwards, and a
/// library path in it.
class TempDirTestCase: XCTestCase {
    var folder: TemporaryFolder!
    var dir: URL { folder.url }
    var path: String { dir.appendingPathComponent("reel/library.sqlite3").path }

    override func setUpWithError() throws { folder = try TemporaryFolder("reel-test") }
    override func tearDown() { folder = nil }
}
