import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

/// The Player interface's methods and their semantics, against the real daemon.
final class PlayerTests: DaemonTestCase {
    func testPlayPauseChangesAreSignalledWithThePositionTheyTookEffectAt() throws {
        try startPlaying([media.tones[0]])
        drainSignals()
        try player("PlayPause")
        let paused = try XCTUnwrap(waitForChange("PlaybackStatus"))
        XCTAssertEqual(paused["PlaybackStatus"]?.string, "Paused")
        let at = try XCTUnwrap(paused["Position"]?.int64)
        XCTAssertEqual(Double(at), Double(try position()), accuracy: 20_000)
        try player("PlayPause")
        XCTAssertEqual(waitForChange("PlaybackStatus")?["PlaybackStatus"]?.string, "Playing")
    }

    func testStopResetsThePositionAndPlayStartsOverAsMPRISSays() throws {
        try startDaemon([media.long[0]], ["--resume", "always"])
        try waitForStart()
        try seekCurrent(to: 20_000_000)
        try player("Stop")
        try waitForStatus("Stopped")
        XCTAssertEqual(try position(), 0)
        XCTAssertEqual(try get("CanSeek").bool, false)
        try player("Play")
        XCTAssertEqual(Double(try waitForStart()), 0, accuracy: 300_000, "Play after Stop starts over, even resuming always")
    }

    func testPauseNextPlayLogsNoErrorFromTheNullOutput() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try player("Pause")
        try waitForStatus("Paused")
        try player("Next")
        try waitForTitle("Tone 2")
        try player("Play")
        try waitForStatus("Playing")
        listen(for: 0.5)
        XCTAssertFalse(daemon!.text.contains("illegal state"), daemon!.text)
        XCTAssertFalse(daemon!.text.contains("mpv["), "mpv logged an error:\n\(daemon!.text)")
    }

    func testSeekedCarriesThePositionReached() throws {
        try startPlaying([media.tones[0]])
        try player("Pause")
        try player("Seek", [.int64(3_000_000)])
        let seeked = try XCTUnwrap(waitForSignal { $0.member == "Seeked" })
        let reached = try XCTUnwrap(seeked.arguments.first?.int64)
        XCTAssertEqual(Double(reached), 3_000_000, accuracy: 300_000)
        XCTAssertEqual(try position(), reached, "paused: Position is where the seek landed")
    }

    func testSeekBeforeZeroLandsAtZeroAndPastTheEndActsLikeNext() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try player("Pause")
        try player("Seek", [.int64(-60_000_000)])
        XCTAssertEqual(waitForSignal { $0.member == "Seeked" }?.arguments.first?.int64, 0)
        let first = try trackID()
        try player("Seek", [.int64(60_000_000)])
        try waitForTitle("Tone 2")
        XCTAssertNotEqual(try trackID(), first)
    }

    func testSetPositionMovesOnlyWithinTheCurrentTrack() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try player("Pause")
        let current = try trackID()
        let other = try tracks()[1]
        try player("SetPosition", [.objectPath(other), .int64(4_000_000)])
        try player("SetPosition", [.objectPath(current), .int64(-1)])
        try player("SetPosition", [.objectPath(current), .int64(60_000_000)])
        try player("SetPosition", [.objectPath("/not/ours"), .int64(1_000_000)])
        XCTAssertLessThan(try position(), 1_000_000, "all four were ignored")
        XCTAssertFalse(pendingSignals().contains { $0.member == "Seeked" })
        try player("SetPosition", [.objectPath(current), .int64(5_000_000)])
        XCTAssertEqual(waitForSignal { $0.member == "Seeked" }?.arguments.first?.int64, 5_000_000)
        XCTAssertEqual(try position(), 5_000_000)
    }

    func testPreviousRestartsAfterThreeSecondsOtherwiseGoesBack() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try player("Next")
        try waitForStart()
        let second = try trackID()
        try player("SetPosition", [.objectPath(second), .int64(4_000_000)])
        _ = waitForSignal { $0.member == "Seeked" }
        try player("Previous")
        let restart = try XCTUnwrap(waitForSignal { $0.member == "Seeked" })
        XCTAssertLessThan(try XCTUnwrap(restart.arguments.first?.int64), 100_000)
        XCTAssertEqual(try trackID(), second, "restarted, same track")
        try player("Previous")
        try waitForTitle("Tone 1")
    }

    func testNextPlaysOnAndCanGoNextFollowsTheQueue() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        XCTAssertEqual(try get("CanGoNext").bool, true)
        try player("Next")
        XCTAssertEqual(waitForChange("CanGoNext")?["CanGoNext"]?.bool, false)
        try waitForStart()
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 2")
        try player("Next")
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 2", "Next on the last entry does nothing")
        try set("LoopStatus", .string("Playlist"))
        XCTAssertEqual(waitForChange("LoopStatus")?["CanGoNext"]?.bool, true, "one signal carries both")
    }

    func testTheQueuePlaysOnAtTheEndOfAnEntryAndStopsAtTheEnd() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try player("SetPosition", [.objectPath(try trackID()), .int64(7_800_000)])
        try waitForTitle("Tone 2")
        try waitForStart()
        try player("SetPosition", [.objectPath(try trackID()), .int64(7_800_000)])
        try waitForStatus("Stopped")
        XCTAssertEqual(try position(), 0)
    }

    func testLoopTrackRepeatsTheEntry() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try set("LoopStatus", .string("Track"))
        let id = try trackID()
        try player("SetPosition", [.objectPath(id), .int64(7_800_000)])
        _ = waitForSignal { $0.member == "Seeked" }
        let restart = try waitForStart(timeout: 10)
        XCTAssertLessThan(restart, 100_000)
        XCTAssertEqual(try trackID(), id)
        XCTAssertEqual(try status(), "Playing")
    }

    func testRateIsPitchCorrectedRateZeroPausesAndRateEmitsSeeked() throws {
        try startPlaying([media.tones[0]])
        drainSignals()
        try set("Rate", .double(2))
        let changed = try XCTUnwrap(waitForChange("Rate"))
        XCTAssertEqual(changed["Rate"]?.double, 2)
        XCTAssertNotNil(changed["Position"])
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" }, "playerctl ignores Rate; Seeked re-syncs it")
        try set("Rate", .double(0))
        try waitForStatus("Paused")
        XCTAssertEqual(try get("Rate").double, 2, "Rate never reads 0")
    }

    func testVolumeIsClamped() throws {
        try startDaemon([media.tones[0]])
        try set("Volume", .double(0.5))
        XCTAssertEqual(waitForChange("Volume")?["Volume"]?.double, 0.5)
        try set("Volume", .double(9))
        XCTAssertEqual(try get("Volume").double, 1.5)
        try set("Volume", .double(-2))
        XCTAssertEqual(try get("Volume").double, 0)
    }

    func testOpenUriAppendsAndPlays() throws {
        try startPlaying([media.tones[0]])
        try player("OpenUri", [.string(media.tones[2].absoluteString)])
        try waitForTitle("Tone 3")
        try waitForStart()
        XCTAssertEqual(try tracks().count, 2)
    }

    func testAnEntryThatFailsIsReportedAndTheQueueMovesOn() throws {
        try startDaemon([media.tones[0], media.broken, media.tones[1]])
        try waitForStart()
        try player("Next")
        let error = try XCTUnwrap(waitForSignal(timeout: 10) {
            $0.member == "PropertiesChanged" && $0.changedProperties?["LastError"] != nil
        }?.changedProperties?["LastError"]?.string)
        XCTAssertTrue(error.contains("broken.ogg"), error)
        try waitForStart()
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 2")
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try tracks().count, 3, "the failed entry stays in the queue")
        XCTAssertTrue(daemon!.text.contains("broken.ogg"), "and a log line names it")
    }

    func testSteadyPlaybackEmitsNoSignals() throws {
        try startPlaying([media.tones[0]])
        drainSignals()
        usleep(1_500_000)   // time must pass for steady playback to be steady
        let chatter = pendingSignals().filter { $0.path == MPRIS.objectPath }
        XCTAssertEqual(chatter.map { $0.member ?? "" }, [])
    }
}

/// reel's own settings: ReplayGain and the video window, over D-Bus and the CLI.
final class SettingsTests: DaemonTestCase {
    func testReplayGainAndVideoAreReadWritePropertiesWithChangeSignals() throws {
        let config = home.appendingPathComponent("config/reel")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "replaygain = album\n".write(to: config.appendingPathComponent("reeld.conf"), atomically: true, encoding: .utf8)
        try startDaemon([media.tones[0]])
        XCTAssertEqual(try get("ReplayGain", MPRIS.reel), .string("album"), "the default from reeld.conf")
        XCTAssertEqual(try get("Video", MPRIS.reel), .boolean(false))
        try set("ReplayGain", .string("track"), MPRIS.reel)
        let changed = waitForSignal {
            $0.member == "PropertiesChanged" && $0.arguments.first?.string == MPRIS.reel
        }?.changedProperties
        XCTAssertEqual(changed?["ReplayGain"], .string("track"))
        assertError("org.freedesktop.DBus.Error.InvalidArgs") { try set("ReplayGain", .string("loud"), MPRIS.reel) }
        assertError("org.freedesktop.DBus.Error.InvalidArgs") { try set("Video", .string("on"), MPRIS.reel) }
        XCTAssertEqual(try reel("replaygain").1, "track")
        XCTAssertEqual(try reel("replaygain", "off").0, 0)
        XCTAssertEqual(try get("ReplayGain", MPRIS.reel), .string("off"))
        XCTAssertEqual(try reel("replaygain", "loud").0, 2, "a usage error")
        XCTAssertEqual(try reel("video").1, "off")
    }
}
