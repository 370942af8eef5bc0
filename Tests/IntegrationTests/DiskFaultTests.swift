import Foundation
import ReelCore
import ReelHarness
import ReelMPRIS
import ReelSystem
import XCTest

/// The library's disk fails under the daemon: it turns read-only, or fills
/// up. The fault is reported once, nothing is lost, and writes resume by
/// themselves when it clears. The library lives on a tmpfs of its own.
final class DiskFaultTests: DaemonTestCase {
    var disk: ScratchDisk!

    override func setUpWithError() throws {
        try super.setUpWithError()
        disk = try ScratchDisk(size: 2 << 20)
        guard disk.isMounted else { throw XCTSkip("disk faults need a tmpfs of their own, which takes root") }
    }

    override func tearDown() {
        super.tearDown()
        disk = nil
    }

    var environment: [String: String] { ["XDG_DATA_HOME": disk.dir.path] }

    func libraryError(_ match: @escaping (String) -> Bool, timeout: Double = 10) -> String? {
        waitForSignal(timeout: timeout) { $0.changedProperties?["LibraryError"]?.string.map(match) == true }?
            .changedProperties?["LibraryError"]?.string
    }

    func testALibraryOnADiskThatTurnedReadOnlyIsReportedOnceAndWritesResumeWhenItClears() throws {
        try startDaemon([media.long[0]], ["--paused"], environment: environment)
        daemon?.stop()   // a clean run leaves a sound library behind
        try disk.makeReadOnly()
        try startDaemon([], [], environment: environment)
        try player("Play")
        let error = try XCTUnwrap(libraryError { !$0.isEmpty }, "a failed write was not reported")
        XCTAssertTrue(error.contains("cannot write") && error.contains("readonly"), error)
        XCTAssertTrue(try reel("status").1.contains("[library: cannot write"))
        listen(for: 3)   // three more seconds of positions that cannot be stored
        XCTAssertEqual(daemon!.text.components(separatedBy: "cannot write").count - 1, 1, "one line, no flood:\n\(daemon!.text)")
        try disk.makeWritable()
        XCTAssertNotNil(libraryError({ $0.isEmpty }, timeout: 10), "writes did not resume")
        let reached = try position()
        try player("Pause")
        daemon?.stop()
        try startDaemon([], [], environment: environment)
        XCTAssertGreaterThanOrEqual(try position(), reached - 1_500_000, "the position was stored once the disk let it")
    }

    func testAScanThatFillsTheDiskStopsWithTheReasonKeepsWhatItWroteAndGoesOnOnceThereIsRoom() throws {
        let first = home.appendingPathComponent("first"), more = home.appendingPathComponent("more")
        for (dir, count, start) in [(first, 20, 0), (more, 60, 100)] {
            let (status, out) = try runTool(Binaries.scripts.appendingPathComponent("make-collection"),
                                            [dir.path, String(count), "--first", String(start)], timeout: 60)
            XCTAssertEqual(status, 0, out)
        }
        try startDaemon([], [], environment: environment)
        XCTAssertTrue(try reel("lib", "add", first.path).1.hasPrefix("added 20"))
        try disk.fill()
        let (status, out) = try reel(timeout: 60, "lib", "add", more.path)
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("cannot write the library") && out.contains("full"), out)
        XCTAssertEqual(try reel("lib", "ls").1.split(separator: "\n").count, 20, "nothing already in the library is lost")
        try disk.free()
        let (_, again) = try reel(timeout: 60, "lib", "add", more.path)
        XCTAssertTrue(again.hasPrefix("added 60"), again)
        XCTAssertEqual(try reel("lib", "ls").1.split(separator: "\n").count, 80)
    }

    func testAfterADiskFullTheQueueIsSavedAgainWithEveryEntry() throws {
        try startDaemon([media.tones[0], media.tones[1]], ["--paused"], environment: environment)
        listen(for: 0.5)
        try disk.fill()
        let (status, output) = try reel("add", media.tones[2].path)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(try XCTUnwrap(libraryError { !$0.isEmpty }).contains("full"))
        try disk.free()
        try reel("add", media.tones[3].path)
        try reel("next")
        try reel("loop", "playlist")
        XCTAssertNotNil(libraryError({ $0.isEmpty }, timeout: 10), "writes did not resume")
        daemon?.process.terminate()
        XCTAssertEqual(daemon?.waitForExit(), 0)
        try startDaemon([], [], environment: environment)
        let urls = try call(MPRIS.reel, "QueuePage", [.uint32(0), .int32(-1)])[2].array?
            .compactMap { if case .structure(let fields) = $0 { fields.last?.string } else { nil } }
        XCTAssertEqual(urls, media.tones.map(\.absoluteString), "the entry added while the disk was full is kept")
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 2")
        XCTAssertEqual(try get("LoopStatus"), .string("Playlist"))
    }

    func testRemoteFilesPlayUncachedWhileTheCachesDiskIsFull() throws {
        let origin = try Origin(serving: media.dir, home: home)
        defer { origin.stop() }
        try startDaemon([], [], environment: ["XDG_CACHE_HOME": disk.dir.path])
        listen(for: 0.5)   // the cache opens just after the name is taken
        XCTAssertFalse(daemon!.text.contains("without the cache"), daemon!.text)
        try disk.fill()
        try player("OpenUri", [.string(origin.url(media.long[0].lastPathComponent))])
        try waitForStart()
        listen(for: 0.5)
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try get("LastError", MPRIS.reel).string, "")
        XCTAssertTrue(daemon!.text.contains("streaming remote files without caching them"), daemon!.text)
        try disk.free()
        try player("OpenUri", [.string(origin.url(media.long[1].lastPathComponent))])
        try waitForStart()
        // The cache lists a file once its first bytes are written, which may come after the start (seen once here).
        let listed = try waitForCacheListing(media.long[1].lastPathComponent)
        XCTAssertTrue(listed.contains(media.long[1].lastPathComponent), "cached again once there is room: \(listed)")
    }
}

/// The cache's disk fails while a remote file plays (the kernel turns it
/// read-only): the file plays on, streamed past what was cached, and so do
/// new URLs, before and after a restart.
final class CacheDiskFaultTests: OriginTestCase {
    var disk: FailingDisk!

    override func tearDown() {
        // The daemon first: a disk it still holds files on does not unmount.
        super.tearDown()
        disk = nil
    }

    func testARemoteFilePlaysOnWhenTheCachesDiskFailsAndSoDoNewOnes() throws {
        disk = try FailingDisk()
        guard disk.isMounted else { throw XCTSkip("a failing disk needs root and a loop device") }
        try serve("first.wav", seconds: 12)    // 2.3 MB: the readahead holds 1.3 s of it
        try serve("second.wav", seconds: 12)
        let environment = ["XDG_CACHE_HOME": disk.dir.path]
        try startDaemon([], ["--readahead", "256K"], environment: environment)
        try player("OpenUri", [.string(origin.url("first.wav"))])
        try waitForStart()
        listen(for: 1)
        try disk.fail()
        // Far past what was cached (and past mpv's own buffer): the file plays on.
        let from = try position()
        listen(for: 4)
        XCTAssertEqual(try status(), "Playing", daemon!.text)
        XCTAssertEqual(try lastError(), "", daemon!.text)
        XCTAssertGreaterThan(try position() - from, 3_500_000, "the position stopped")
        // Awaited: on a loaded machine the log line is read some time after it was written.
        XCTAssertNotNil(waitForOutput(daemon!, "read-only"), "the fault is not said: \(daemon!.text)")
        XCTAssertEqual(daemon!.text.components(separatedBy: "read-only").count - 1, 1, "one line, no flood:\n\(daemon!.text)")

        // A new URL while the disk is read-only.
        try player("OpenUri", [.string(origin.url("second.wav"))])
        try waitForStart()
        listen(for: 1)
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try lastError(), "", daemon!.text)

        // And after a restart.
        daemon?.stop()
        try startDaemon([], ["--readahead", "256K"], environment: environment)
        try player("OpenUri", [.string(origin.url("first.wav"))])
        try waitForStart()
        listen(for: 2)
        XCTAssertEqual(try status(), "Playing", daemon!.text)
        XCTAssertEqual(try lastError(), "", daemon!.text)

        // Once the disk is mended, what plays is cached again.
        daemon?.stop()
        try disk.repair()
        try startDaemon([], ["--readahead", "256K"], environment: environment)
        try player("OpenUri", [.string(origin.url("second.wav"))])
        try waitForStart()
        listen(for: 1)
        XCTAssertEqual(try lastError(), "", daemon!.text)
        try reel("stop")   // the reader closes: what it fetched is claimed
        let listed = try waitForCacheListing("second.wav")
        XCTAssertTrue(listed.contains("second.wav"), "cached again once the disk can be written: \(listed)\n\(daemon!.text)")
    }

    func testTheSoundGoesOnWithoutAGapWhenTheCachesDiskFailsOnPulseAudio() throws {
        disk = try FailingDisk()
        guard disk.isMounted else { throw XCTSkip("a failing disk needs root and a loop device") }
        try serve("long.wav", seconds: 8)
        let server = try SoundServer(.pulse)
        defer { server.stop() }
        let recording = try server.record()
        try recording.waitUntilRunning()
        try startDaemon([], ["--ao", SoundServer.Kind.pulse.audioOutput, "--readahead", "256K"],
                        environment: server.environment.merging(["XDG_CACHE_HOME": disk.dir.path]) { _, b in b })
        try player("OpenUri", [.string(origin.url("long.wav"))])
        try waitForStart()
        listen(for: 1.5)
        let failed = monotonicNow()
        try disk.fail()
        listen(for: 3)   // past what the cache and mpv held when the disk failed
        XCTAssertEqual(try status(), "Playing", daemon!.text)
        recording.stop()
        // Heard as a user hears it: no silence from a second before the fault to the end of the recording.
        let gap = recording.gaps(from: failed - 1_000_000).first
        XCTAssertLessThanOrEqual(gap?.length ?? 0, 10_000, "silence \(((gap?.at ?? 0) - failed) / 1000) ms after the fault")
        XCTAssertFalse(recording.sounds(from: failed + 2_500_000).isEmpty, "nothing heard after the fault")
    }
}
