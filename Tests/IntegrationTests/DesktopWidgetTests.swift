import Foundation
import ReelDBus
import ReelHarness
import ReelMPRIS
import XCTest

/// The desktops' own media widgets as clients: GNOME Shell 43's media card,
/// headless on the test's bus. Run by `make test-desktops`, which installs
/// the desktops (REEL_DESKTOPS=1); `make test` skips them.
final class DesktopWidgetTests: DaemonTestCase {
    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["REEL_DESKTOPS"] != nil else {
            throw XCTSkip("desktop widgets run under make test-desktops")
        }
        try super.setUpWithError()
    }

    /// Polls `read` until `match` holds or `timeout` passes; the last value read.
    func eventually<T>(_ read: () throws -> T, until match: (T) -> Bool, timeout: Double = 10) rethrows -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var value = try read()
        while !match(value), Date() < deadline {
            listen(for: 0.1)
            value = try read()
        }
        return value
    }

    func testGNOMEShellsMediaCardShowsReelAndItsButtonsDriveIt() throws {
        let shell = try GnomeShell(sessionBus: bus.address)
        defer { shell.stop() }
        try startPlaying([media.tones[0], media.tones[1]])
        let shown = try eventually({ try shell.cards() }, until: { $0.first?.title == "Tone 1" })
        XCTAssertEqual(shown, [GnomeShell.Card(title: "Tone 1", artists: ["Reel Test"], status: "Playing")])

        try shell.press("playPause")
        try waitForStatus("Paused")
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { $0.first?.status == "Paused" }).first?.status, "Paused")
        try shell.press("playPause")
        try waitForStatus("Playing")

        try shell.press("next")
        try waitForTitle("Tone 2")
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { $0.first?.title == "Tone 2" }).first?.title, "Tone 2")

        // A cleared queue cannot play: GNOME hides the card.
        XCTAssertEqual(try reel("clear").0, 0)
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { $0.isEmpty }), [])
        // Something queued again brings it back.
        XCTAssertEqual(try reel("add", media.tones[2].path).0, 0)
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { !$0.isEmpty }).count, 1)
    }
}
