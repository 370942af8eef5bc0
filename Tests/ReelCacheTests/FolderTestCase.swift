import Foundation
import ReelHarness
import XCTest

/// A test with a fresh folder of its own (`dir`), removed afterwards.
class FolderTestCase: XCTestCase {
    private var folder: TemporaryFolder!
    var dir: URL { folder.url }

    override func setUpWithError() throws { folder = try TemporaryFolder("reel-cache-test") }
    override func tearDown() { folder = nil }
}
