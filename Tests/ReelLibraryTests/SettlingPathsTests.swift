import XCTest
@testable import ReelLibrary

/// When what a watch saw is scanned: after its writes settle, a copy in progress waited for.
final class SettlingPathsTests: XCTestCase {
    let quiet = SettlingPaths.quiet

    func testAPathIsDueOnceQuietAndOnlyOnce() {
        var paths = SettlingPaths()
        paths.touched("/m/a.ogg", writing: nil, at: 0)
        XCTAssertEqual(paths.due(at: quiet - SettlingPaths.together - 1), [])
        XCTAssertEqual(paths.nextCheck, quiet)
        XCTAssertEqual(paths.due(at: quiet), ["/m/a.ogg"])
        XCTAssertEqual(paths.due(at: quiet * 10), [])
        XCTAssertTrue(paths.isEmpty)
        XCTAssertNil(paths.nextCheck)
    }

    func testAFileBeingWrittenWaitsForItsClose() {
        var paths = SettlingPaths()
        paths.touched("/m/big.flac", writing: true, at: 0)
        paths.touched("/m/big.flac", writing: true, at: 1_000_000)
        XCTAssertEqual(paths.due(at: 1_000_000 + quiet * 5), [], "open for writing: not read half-written")
        paths.touched("/m/big.flac", writing: false, at: 3_000_000)
        XCTAssertEqual(paths.due(at: 3_000_000 + quiet), ["/m/big.flac"])
    }

    func testAFileLeftOpenIsReadAfterALongQuiet() {
        var paths = SettlingPaths()
        paths.touched("/m/held.ogg", writing: true, at: 0)
        XCTAssertEqual(paths.due(at: SettlingPaths.openQuiet - SettlingPaths.together - 1), [])
        XCTAssertEqual(paths.due(at: SettlingPaths.openQuiet), ["/m/held.ogg"])
    }

    func testANewFolderWaitsForWhatIsWrittenInItAndCoversIt() {
        var paths = SettlingPaths()
        paths.touched("/m/New", writing: nil, at: 0)
        paths.touched("/m/New/1.ogg", writing: true, at: 100_000)
        paths.touched("/m/New/1.ogg", writing: false, at: 200_000)
        paths.touched("/m/New/2.ogg", writing: true, at: 300_000)
        XCTAssertEqual(paths.due(at: 200_000 + quiet), [], "2.ogg is still being written: the folder waits")
        paths.touched("/m/New/2.ogg", writing: false, at: 900_000)
        XCTAssertEqual(paths.due(at: 900_000 + quiet), ["/m/New"], "one scan of the folder, not one a file")
        XCTAssertTrue(paths.isEmpty)
    }

    func testAFileRenamedAwayWhileOpenDoesNotHoldItsFolder() {
        var paths = SettlingPaths()
        paths.touched("/m/A", writing: nil, at: 0)
        paths.touched("/m/A/part.tmp", writing: true, at: 0)   // a download's temporary file...
        paths.touched("/m/A/part.tmp", writing: false, at: 10)  // ...renamed into place
        paths.touched("/m/A/song.ogg", writing: false, at: 10)
        XCTAssertEqual(paths.due(at: quiet + 10), ["/m/A"])
    }

    func testARenamesTwoEndsAreDueTogether() {
        var paths = SettlingPaths()
        paths.touched("/m/Old", writing: nil, at: 0)
        paths.touched("/m/New", writing: nil, at: 30)
        XCTAssertEqual(paths.due(at: quiet), ["/m/New", "/m/Old"])
    }

    func testSiblingsAreDueApartAndANameThatOnlyStartsTheSameIsNotBelow() {
        var paths = SettlingPaths()
        paths.touched("/m/A", writing: nil, at: 0)
        paths.touched("/m/AB/x.ogg", writing: true, at: 0)
        XCTAssertEqual(paths.due(at: quiet), ["/m/A"], "/m/AB is not below /m/A")
    }
}
