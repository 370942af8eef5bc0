import Foundation
import ReelDBus
import ReelHarness
import XCTest

/// A server that stops sending mid-file: playback shows Buffering, the cache
/// gives up on the connection after the network timeout and resumes from its
/// last byte, and a widget is back in sync afterwards.
final class StallTests: DaemonTestCase {
    func testAfterABufferingStallTheWidgetIsBackInSync() throws {
        // Uncompressed, so that the stall (at 1 MB, 5 s in) comes well after opening.
        let served = home.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=20:sample_rate=48000", "-ac", "2",
                          served.appendingPathComponent("tone.wav").path])
        let origin = try Origin(serving: served, home: home)
        defer { origin.stop() }
        var control = Origin.Control()
        control.stallAfter = 1_000_000
        control.faultTimes = 2
        try origin.set(control)
        try startDaemon([], ["--network-timeout", "2", "--readahead", "64K"])
        try startWidget()
        try player("OpenUri", [.string(origin.url("tone.wav"))])
        try waitForStart()
        XCTAssertNotNil(waitForSignal(timeout: 20) { $0.changedProperties?["PlaybackStatus"]?.string == "Paused"
            || $0.changedProperties?["Activity"]?.string == "buffering" }, "no buffering shown during the stall")
        // The stall ends with a Seeked that re-anchors the widget to the real position.
        XCTAssertNotNil(waitForSignal(timeout: 15) { $0.member == "Seeked" }, "no Seeked after the stall")
        try assertInSync(after: "the stall")
        XCTAssertFalse(daemon!.text.contains("cannot play"), daemon!.text)
        XCTAssertGreaterThanOrEqual(origin.requests.count, 2, "resumed with a new request: \(origin.requests)")
    }
}
