import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

/// A widget that models the position from signals alone must stay within
/// 20 ms of the Position property after every kind of change.
final class PositionSyncTests: DaemonTestCase {
    static let tolerance: Int64 = 20_000
    private var widget = WidgetModel()
    private var applied = 0

    /// Replays the signals received since the last call into the widget, then
    /// compares its estimate with a fresh Position read.
    func drift() throws -> Int64 {
        listen(for: 0)
        for (message, at) in timeline[applied...] { widget.apply(message, at: at) }
        applied = timeline.count
        let t0 = monotonicNow()
        let truth = try position()
        let t1 = monotonicNow()
        return abs(widget.estimate(at: (t0 + t1) / 2) - truth)
    }

    func assertInSync(after what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        listen(for: 0.3)   // long enough for a wrong rate or a missed anchor to show
        let d = try drift()
        XCTAssertLessThanOrEqual(d, Self.tolerance, "widget off by \(d) µs after \(what)", file: file, line: line)
    }

    func testAWidgetStaysWithin20msThroughEveryKindOfChange() throws {
        try startDaemon([media.tones[0], media.tones[1]])
        widget.reset(properties: try client.getAllProperties(Self.name, MPRIS.objectPath, MPRIS.player), at: monotonicNow())
        applied = timeline.count
        try waitForStart()
        try assertInSync(after: "the start")

        try player("Pause")
        try assertInSync(after: "pause")
        try player("Play")
        try assertInSync(after: "resume")

        try player("Pause")
        try player("Seek", [.int64(2_000_000)])
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        try assertInSync(after: "a seek while paused")
        try player("Play")
        try assertInSync(after: "resume after a paused seek")

        try player("Seek", [.int64(-1_000_000)])
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        try assertInSync(after: "a seek while playing")

        try seekCurrent(to: 1_500_000)
        try assertInSync(after: "SetPosition")

        try set("Rate", .double(1.5))
        try assertInSync(after: "a rate change to 1.5")
        try set("Rate", .double(0.5))
        try assertInSync(after: "a rate change to 0.5")
        try player("Pause")
        try assertInSync(after: "pause at rate 0.5")
        try player("Play")
        try assertInSync(after: "resume at rate 0.5")
        try set("Rate", .double(1))

        try player("Next")
        try waitForStart()
        try assertInSync(after: "a track change")

        try player("Stop")
        try assertInSync(after: "stop")
    }

    func testPlayerctlStyleWidgetsStayInSyncAtNormalRate() throws {
        // playerctl ignores Rate; after a rate change back to 1 the Seeked
        // that comes with it must put it right again.
        widget = WidgetModel(usesRate: false)
        try startDaemon([media.tones[0]])
        widget.reset(properties: try client.getAllProperties(Self.name, MPRIS.objectPath, MPRIS.player), at: monotonicNow())
        applied = timeline.count
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
