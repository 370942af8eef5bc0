import ReelCore
@testable import ReelMPV
import XCTest

/// mpv's events, as plain values, turned into the engine's: no libmpv, no clock.
final class MPVTranslatorTests: XCTestCase {
    let first = LoadToken(entry: EntryID(1), serial: 1)
    let second = LoadToken(entry: EntryID(2), serial: 2)
    let remote = "http://127.0.0.1:9/a.ogg"

    /// A translator with `first` loaded as mpv's entry 10 and started.
    func playing(_ uri: String = "file:///a.ogg", options: FileOptions = FileOptions(), paused: Bool = false) -> MPVTranslator {
        var state = MPVTranslator(networkTimeout: 15)
        state.loading(paused: paused)
        state.replaced(by: MPVEntry(token: first, uri: uri, options: options), id: 10)
        XCTAssertEqual(state.translate(.startFile(entry: 10), at: 0), [.event(.started(first))])
        return state
    }

    func opened(_ state: inout MPVTranslator, seekable: Bool = true, length: MediaTime? = 60_000_000) {
        var metadata = TrackMetadata()
        metadata.length = length
        _ = state.translate(.fileLoaded(OpenedFile(seekable: seekable, metadata: metadata, sizeKnown: true, embeddedArt: false)), at: 0)
    }

    func testAQueuedEntryStartsAndEndsUnderItsOwnLoad() {
        var state = playing()
        state.queued(MPVEntry(token: second, uri: "file:///b.ogg"), id: 11)
        XCTAssertEqual(state.translate(.endFile(entry: 10, .endOfFile), at: 0), [.event(.endOfFile(first))])
        XCTAssertEqual(state.translate(.startFile(entry: 11), at: 0), [.event(.started(second))])
        XCTAssertEqual(state.currentToken, second)
        // An entry that is not ours (a playlist's, mpv's own) is nobody's business.
        XCTAssertEqual(state.translate(.endFile(entry: 99, .endOfFile), at: 0), [])
        XCTAssertEqual(state.translate(.startFile(entry: 99), at: 0), [])
        XCTAssertEqual(state.translate(.pausedForCache(true), at: 0), [])
    }

    func testAReplacingLoadLeavesTheOldEntriesEventsUnheard() {
        var state = playing()
        state.queued(MPVEntry(token: second, uri: "file:///b.ogg"), id: 11)
        let third = LoadToken(entry: EntryID(3), serial: 3)
        state.loading(paused: false)
        state.replaced(by: MPVEntry(token: third, uri: "file:///c.ogg"), id: 12)
        XCTAssertEqual(state.translate(.endFile(entry: 10, .other), at: 0), [])
        XCTAssertEqual(state.translate(.endFile(entry: 11, .endOfFile), at: 0), [])
        XCTAssertEqual(state.translate(.startFile(entry: 12), at: 0), [.event(.started(third))])
        // Dropping the queued entry forgets it too.
        state.queued(MPVEntry(token: second, uri: "file:///b.ogg"), id: 13)
        state.kept([12])
        XCTAssertEqual(state.translate(.endFile(entry: 13, .endOfFile), at: 0), [])
    }

    func testAFailureIsExplainedByTheFirstLineLoggedWhileOpening() {
        var state = playing()
        _ = state.translate(.log("HTTP error 404 Not Found", video: false), at: 0)
        _ = state.translate(.log("Failed to open", video: false), at: 0)
        XCTAssertEqual(state.translate(.endFile(entry: 10, .error("loading failed", cache: nil)), at: 0), [])
        XCTAssertEqual(state.takeFailure(), .failed(first, reason: "loading failed: HTTP error 404 Not Found"))
        XCTAssertNil(state.takeFailure())
    }

    func testALineLoggedAfterTheEndOfAFailedFileExplainsIt() {
        var state = playing()
        _ = state.translate(.log("a video output complains", video: true), at: 0)
        _ = state.translate(.endFile(entry: 10, .error("unrecognized file format", cache: nil)), at: 0)
        _ = state.translate(.log("Failed to recognize file format.", video: false), at: 0)
        _ = state.translate(.log("a later line", video: false), at: 0)
        XCTAssertEqual(state.takeFailure(), .failed(first, reason: "unrecognized file format: Failed to recognize file format."))
    }

    func testTheCachesReasonStandsAlone() {
        var state = playing(remote)
        _ = state.translate(.endFile(entry: 10, .error("loading failed", cache: "the server answered 403 Forbidden")), at: 0)
        _ = state.translate(.log("Failed to open reelcache://1", video: false), at: 0)
        XCTAssertEqual(state.takeFailure(), .failed(first, reason: "the server answered 403 Forbidden"))
    }

    func testARemoteFileThatFailsAfterTheNetworkTimeoutTimedOut() {
        var state = MPVTranslator(networkTimeout: 2)
        state.replaced(by: MPVEntry(token: first, uri: remote), id: 10)
        _ = state.translate(.startFile(entry: 10), at: 5_000_000)
        _ = state.translate(.endFile(entry: 10, .error("loading failed", cache: nil)), at: 6_900_000)
        XCTAssertEqual(state.takeFailure(), .failed(first, reason: "timed out connecting to 127.0.0.1: no answer in 2 s"))
        // Sooner than the timeout, it is mpv's own failure.
        state.replaced(by: MPVEntry(token: second, uri: remote), id: 11)
        _ = state.translate(.startFile(entry: 11), at: 10_000_000)
        _ = state.translate(.endFile(entry: 11, .error("loading failed", cache: nil)), at: 11_000_000)
        _ = state.translate(.log("Connection refused", video: false), at: 11_000_000)
        XCTAssertEqual(state.takeFailure(), .failed(second, reason: "loading failed: Connection refused"))
    }

    func testAPlaylistIsTakenOutOfMPVsPlaylistAndFails() {
        var state = playing()
        XCTAssertEqual(state.translate(.endFile(entry: 10, .redirect(first: 20, count: 3)), at: 0),
                       [.removeEntries(first: 20, count: 3)])
        XCTAssertEqual(state.takeFailure(), .failed(first, reason: "is a playlist, not media: queue it with reel add or OpenUri, which add its entries"))
    }

    func testARestartIsToldOnlyOnceNoSeekIsLeftUnanswered() {
        var state = playing()
        state.seeking(to: 5_000_000)
        state.seekSent()
        state.seeking(to: 9_000_000)
        state.seekSent()
        _ = state.translate(.seekAnswered, at: 0)
        // The first seek landed; the second replaces it.
        XCTAssertEqual(state.translate(.restarted(position: 5_000_000), at: 0), [])
        _ = state.translate(.seekAnswered, at: 0)
        XCTAssertEqual(state.translate(.restarted(position: 9_000_000), at: 0), [.event(.restarted(first, position: 9_000_000))])
        // An answer too many does not hide the next restart.
        _ = state.translate(.seekAnswered, at: 0)
        XCTAssertEqual(state.translate(.restarted(position: 9_100_000), at: 0), [.event(.restarted(first, position: 9_100_000))])
    }

    func testWhilePausedASeeksTargetIsThePositionUntilTheResume() {
        var state = playing(paused: true)
        state.seeking(to: 30_000_000)
        // mpv reads short by its audio buffer meanwhile.
        XCTAssertEqual(state.translate(.position(29_850_000, clock: .audio, sinkDelay: nil), at: 0),
                       [.event(.position(first, 30_000_000))])
        XCTAssertEqual(state.position(mpv: 29_850_000), 30_000_000)
        state.setPaused(false)
        XCTAssertEqual(state.translate(.position(30_020_000, clock: .audio, sinkDelay: nil), at: 0),
                       [.event(.position(first, 30_020_000))])
    }

    func testATrimmedFilesTimesAreTheFilesOwn() {
        // A silence from 1 s to 3 s is cut from 1.15 s to 2.85 s: mpv's 3.3 s is the file's 5 s.
        let trim = Trim(silences: Silences([Silence(start: 1_000_000, end: 3_000_000)!]))!
        var state = playing(options: FileOptions(trim: trim))
        opened(&state, length: 8_300_000)
        XCTAssertEqual(state.translate(.position(3_300_000, clock: .audio, sinkDelay: nil), at: 0), [.event(.position(first, 5_000_000))])
        XCTAssertEqual(state.translate(.restarted(position: 3_300_000), at: 0), [.event(.restarted(first, position: 5_000_000))])
        XCTAssertEqual(state.timeline(5_000_000), 3_300_000)
        XCTAssertEqual(state.position(mpv: 500_000), 500_000)
    }

    func testTheLengthOfAFileIsTheFilesAndAStationHasNone() {
        let trim = Trim(silences: Silences([Silence(start: 1_000_000, end: 3_000_000)!]))!
        var state = playing(options: FileOptions(trim: trim))
        var metadata = TrackMetadata()
        metadata.length = 8_300_000
        XCTAssertEqual(state.translate(.fileLoaded(OpenedFile(seekable: true, metadata: metadata, sizeKnown: true, embeddedArt: true)), at: 0),
                       [.event(.loaded(first, { var m = metadata; m.length = 10_000_000; return m }(), seekable: true, embeddedArt: true))])
        // A station mpv reads itself: the duration is what it has read so far.
        var station = playing(remote)
        metadata.length = 4_000_000
        let loaded = station.translate(.fileLoaded(OpenedFile(seekable: false, metadata: metadata, sizeKnown: false, embeddedArt: false)), at: 0)
        XCTAssertEqual(loaded, [.event(.loaded(first, TrackMetadata(), seekable: false))])
    }

    func testAtAnotherRateTheAudioClockIsReadBehindByTheTempoFiltersLead() {
        var state = playing()
        state.setRate(1.5)
        XCTAssertEqual(state.translate(.position(10_000_000, clock: .audio, sinkDelay: nil), at: 0), [.event(.position(first, 9_960_000))])
        XCTAssertEqual(state.position(mpv: 10_000_000), 9_960_000)
        state.setRate(2)   // the filter is kept, and its count with it
        XCTAssertEqual(state.position(mpv: 10_000_000), 10_000_000 - 45_000 + 25_000 / 3)
        state.seeking(to: 5_000_000)   // mpv starts the filter again
        XCTAssertEqual(state.position(mpv: 10_000_000), 9_955_000)
        state.setRate(1)
        XCTAssertEqual(state.position(mpv: 10_000_000), 10_000_000)
    }

    func testTheVideoClockServesOnlyWhileTheAudioClockIsSilent() {
        var state = playing()
        XCTAssertEqual(state.translate(.position(1_000_000, clock: .video, sinkDelay: nil), at: 0), [.event(.position(first, 1_000_000))])
        XCTAssertEqual(state.translate(.position(1_010_000, clock: .audio, sinkDelay: nil), at: 0), [.event(.position(first, 1_010_000))])
        XCTAssertEqual(state.translate(.position(1_040_000, clock: .video, sinkDelay: nil), at: 0), [])
        // The audio track went away (a video shown alone): frames tell the time again.
        XCTAssertEqual(state.translate(.position(nil, clock: .audio, sinkDelay: nil), at: 0), [])
        XCTAssertEqual(state.translate(.position(1_080_000, clock: .video, sinkDelay: nil), at: 0), [.event(.position(first, 1_080_000))])
        // A new file starts on no clock of its own yet.
        _ = state.translate(.position(1_100_000, clock: .audio, sinkDelay: nil), at: 0)
        state.queued(MPVEntry(token: second, uri: "file:///b.ogg"), id: 11)
        _ = state.translate(.startFile(entry: 11), at: 0)
        XCTAssertEqual(state.translate(.position(0, clock: .video, sinkDelay: nil), at: 0), [.event(.position(second, 0))])
    }

    func testBehindASinkTheHeardPositionIsTheSampleLessTheDelay() {
        var state = playing()
        XCTAssertEqual(state.translate(.position(2_000_000, clock: .audio, sinkDelay: 400_000), at: 10_000_000),
                       [.event(.position(first, 1_600_000))])
    }

    func testASinkLostWhilePlayingStallsAndPlaysAgainFromWhereItWasHeard() {
        var state = playing()
        _ = state.translate(.position(5_000_000, clock: .audio, sinkDelay: 300_000), at: 1_000_000)
        XCTAssertEqual(state.sinkLost("snapserver is gone"),
                       [.holdPaused(true), .event(.outputProblem("snapserver is gone")), .event(.buffering(first, true))])
        XCTAssertTrue(state.holdsPaused)
        // Told again, only the problem changes.
        XCTAssertEqual(state.sinkLost("connection refused"), [.event(.outputProblem("connection refused"))])
        XCTAssertEqual(state.sinkBack(seekable: true),
                       [.seek(4_700_000), .holdPaused(false), .event(.outputProblem(nil)), .event(.buffering(first, false))])
        XCTAssertFalse(state.holdsPaused)
        XCTAssertEqual(state.sinkBack(seekable: true), [])
    }

    func testASinkLostWhilePausedHasNothingToPlayAgain() {
        var state = playing(paused: true)
        _ = state.translate(.position(5_000_000, clock: .audio, sinkDelay: 300_000), at: 1_000_000)
        XCTAssertEqual(state.sinkLost("gone"), [.holdPaused(true), .event(.outputProblem("gone"))])
        XCTAssertEqual(state.sinkBack(seekable: true), [.holdPaused(true), .event(.outputProblem(nil))])
        // A sink that was never connected holds mpv until it is.
        var fresh = MPVTranslator(networkTimeout: 15, sinkProblem: "not connected yet")
        XCTAssertTrue(fresh.holdsPaused)
        XCTAssertEqual(fresh.sinkBack(seekable: false), [.holdPaused(false), .event(.outputProblem(nil))])
    }

    func testTheCachesNewsReachTheLoadsOfItsURL() {
        var state = playing(remote)
        state.queued(MPVEntry(token: second, uri: remote), id: 11)
        // A stall while the file opens is the opening's, not playback's.
        XCTAssertEqual(state.translate(.stalled(true), of: remote), [])
        opened(&state)
        XCTAssertEqual(state.translate(.stalled(true), of: remote), [.buffering(first, true)])
        XCTAssertEqual(state.translate(.stalled(true), of: "http://other/"), [])
        XCTAssertEqual(state.translate(.failed("reset by peer"), of: remote),
                       [.failed(first, reason: "reset by peer"), .failed(second, reason: "reset by peer")])
        XCTAssertEqual(state.translate(.title("Song", station: "Radio"), of: remote),
                       [.streamTitle(first, title: "Song", station: "Radio"), .streamTitle(second, title: "Song", station: "Radio")])
    }

    func testOptionsAskedForALoadGoWithItsEntryAndTheOthersLapse() {
        var state = MPVTranslator(networkTimeout: 15)
        let trim = Trim(silences: Silences([Silence(start: 1_000_000, end: 3_000_000)!]))!
        state.ask(first, trim: trim)
        state.ask(first, voiceBoost: true)
        state.ask(second, voiceBoost: true)
        XCTAssertEqual(state.takeOptions(for: first), FileOptions(trim: trim, voiceBoost: true))
        XCTAssertEqual(state.takeOptions(for: second), FileOptions())
    }

    func testAnICYTitleIsTheStreamsAndOtherTagsAreNot() {
        var state = playing(remote)
        XCTAssertEqual(state.translate(.tags(["icy-title": "Now", "icy-name": ""]), at: 0),
                       [.event(.streamTitle(first, title: "Now", station: nil))])
        XCTAssertEqual(state.translate(.tags(["title": "x"]), at: 0), [])
    }

    /// Whether an entry to queue must first be cleared out of mpv's playlist (a wait for mpv's core).
    func testWhatIsQueuedAfterThePlayingFileIsKnown() {
        var state = MPVTranslator(networkTimeout: 15)
        state.loading(paused: false)
        state.replaced(by: MPVEntry(token: first, uri: "file:///a.ogg"), id: 10)
        XCTAssertTrue(state.nothingQueued, "replaced, not started yet")
        _ = state.translate(.startFile(entry: 10), at: 0)
        XCTAssertTrue(state.nothingQueued)
        state.queued(MPVEntry(token: second, uri: "file:///b.ogg"), id: 11)
        XCTAssertFalse(state.nothingQueued, "b waits after a")
        _ = state.translate(.endFile(entry: 10, .endOfFile), at: 0)
        XCTAssertFalse(state.nothingQueued, "a ended and b not started: mpv may be on its way to b")
        _ = state.translate(.startFile(entry: 11), at: 0)
        XCTAssertTrue(state.nothingQueued, "b plays, and nothing after it")
        XCTAssertEqual(state.appendedSinceClear, 1, "a is still in mpv's playlist, played")
        state.cleared()
        XCTAssertEqual(state.appendedSinceClear, 0)
    }
}
