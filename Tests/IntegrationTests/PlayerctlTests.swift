import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

/// playerctl, a real MPRIS client, drives and reads the daemon.
final class PlayerctlTests: DaemonTestCase {
    func testPlayerctlControlsAndReadsPlayback() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        XCTAssertEqual(try playerctl("status"), "Playing")
        XCTAssertEqual(try playerctl("metadata", "title"), "Tone 1")
        XCTAssertEqual(try playerctl("metadata", "artist"), "Reel Test")
        XCTAssertEqual(try playerctl("metadata", "album"), "Tones")
        XCTAssertEqual(try playerctl("metadata", "--format", "{{mpris:length}}"), "8000000")
        try playerctl("pause")
        try waitForStatus("Paused")
        XCTAssertEqual(try playerctl("status"), "Paused")
        try playerctl("position", "3")
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        XCTAssertEqual(try playerctl("position"), "3.000000")
        try playerctl("position", "1-")
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        XCTAssertEqual(try playerctl("position"), "2.000000")
        try playerctl("next")
        try waitForTitle("Tone 2")
        XCTAssertEqual(try playerctl("status"), "Paused", "Next keeps paused")
        try playerctl("play")
        try waitForStatus("Playing")
        try playerctl("previous")
        try waitForTitle("Tone 1")
        try playerctl("loop", "Playlist")
        XCTAssertEqual(try playerctl("loop"), "Playlist")
        try playerctl("shuffle", "On")
        XCTAssertEqual(try playerctl("shuffle"), "On")
        try playerctl("volume", "0.25")
        XCTAssertEqual(try playerctl("volume"), "0.250000")
        try playerctl("stop")
        try waitForStatus("Stopped")
        try playerctl("open", media.tones[2].absoluteString)
        try waitForTitle("Tone 3")
        XCTAssertEqual(try tracks().count, 3)
    }

    func testPlayerctlFollowSeesChanges() throws {
        try startPlaying([media.tones[0]])
        let follow = try ChildProcess(URL(fileURLWithPath: "/usr/bin/playerctl"), ["-p", "reel", "--follow", "status"],
                                      busAddress: bus.address, home: home)
        defer { follow.stop() }
        XCTAssertNotNil(waitForOutput(follow, "Playing"))
        try player("Pause")
        XCTAssertNotNil(waitForOutput(follow, "Paused"))
    }
}
