import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

/// A widget that models the position from signals alone must stay within
/// 20 ms of the Position property after every kind of change.
final class PositionSyncTests: DaemonTestCase {
    func testAWidgetStaysWithin20msThroughEveryKindOfChange() throws {
        try startDaemon([media.tones[0], media.tones[1]])
        try checkWidgetThroughEveryKindOfChange()
    }

    func testPlayerctlStyleWidgetsStayInSyncAtNormalRate() throws {
        // playerctl ignores Rate; after a rate change back to 1 the Seeked
        // that comes with it must put it right again.
        try startDaemon([media.tones[0]])
        try startWidget(usesRate: false)
        try waitForStart()
        try set("Rate", .double(2))
        listen(for: 0.3)
        try set("Rate", .double(1))
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        try assertInSync(after: "a rate change and back")
        try player("Pause")
        try assertInSync(after: "pause")
        try player("Play")
        try assertInSync(after: "resume")
    }
}
