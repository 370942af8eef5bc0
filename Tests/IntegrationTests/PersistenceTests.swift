import Foundation
import ReelDBus
import ReelHarness
import ReelCore
import ReelLibrary
import ReelMPRIS
import XCTest

/// The library with the real daemon: resume, restart after kill -9,
/// local-first sources, and a damaged database.
final class PersistenceTests: DaemonTestCase {
    func testAfterKill9ItComesBackWithTheSameQueueEntryAndPositionPaused() throws {
        try startPlaying([media.long[0], media.long[1], media.tones[0]])
        try player("Next")
        try waitForTitle("Long 2")
        try waitForStart()
        try seekCurrent(to: 20_000_000)
        listen(for: 1.2)   // playing: positions are stored once a second
        let before = try position()
        let queue = try tracks().count
        killDaemon()

        try startDaemon()
        try waitForStart()
        XCTAssertEqual(try status(), "Paused")
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Long 2")
        XCTAssertEqual(try tracks().count, queue)
        XCTAssertEqual(Double(try position()), Double(before), accuracy: 1_500_000)
    }

    func testPlayingAnItemAgainResumesWhereItStopped() throws {
        // A minute-long file resumes once resume-min-length is 30 s (the default, 10 minutes, is for talk).
        try startDaemon([media.long[0]], ["--resume-min-length", "30"])
        try waitForStart()
        try seekCurrent(to: 30_000_000)
        try player("Pause")
        try waitForStatus("Paused")
        try player("OpenUri", [.string(media.long[0].absoluteString)])
        let start = try waitForStart()
        XCTAssertEqual(Double(start), 30_000_000, accuracy: 200_000)
        XCTAssertTrue(daemon!.text.contains("from 30 s"), daemon!.text)
    }

    func testAShortSongStartsOverWhenPlayedAgainUnderTheDefaultRule() throws {
        try startPlaying([media.long[0]])
        try seekCurrent(to: 30_000_000)
        try player("Pause")
        try waitForStatus("Paused")
        try player("OpenUri", [.string(media.long[0].absoluteString)])
        XCTAssertEqual(Double(try waitForStart()), 0, accuracy: 200_000, "a one-minute file resumed")
        XCTAssertFalse(daemon!.text.contains("from 30 s"), daemon!.text)
    }

    func testACleanExitStoresQueueSettingsAndPosition() throws {
        try startPlaying([media.long[0], media.long[1]])
        try set("LoopStatus", .string("Playlist"))
        try set("Volume", .double(0.5))
        try seekCurrent(to: 12_000_000)
        try player("Pause")
        daemon!.stop()   // SIGTERM
        try startDaemon()
        try waitForStart()
        XCTAssertEqual(try get("LoopStatus").string, "Playlist")
        XCTAssertEqual(try get("Volume").double, 0.5)
        XCTAssertEqual(Double(try position()), 12_000_000, accuracy: 100_000)
    }

    func testArgumentsAppendToTheRestoredQueueAndFreshStartsEmpty() throws {
        try startPlaying([media.long[0]])
        daemon!.stop()
        try startDaemon([media.tones[1]])
        try waitForTitle("Tone 2")
        try waitForStart()
        XCTAssertEqual(try tracks().count, 2)
        XCTAssertEqual(try status(), "Playing")
        daemon!.stop()
        try startDaemon([], ["--fresh"])
        XCTAssertEqual(try tracks().count, 0)
    }

    func testLocalFirstDecidedEachTimeAnEntryStarts() throws {
        let server = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                      ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", media.dir.path, "0"],
                                      busAddress: nil, home: home)
        defer { server.stop() }
        let remote = "http://127.0.0.1:\(try waitForPort(server))/long1.ogg"
        let local = home.appendingPathComponent("downloaded.ogg")
        try FileManager.default.copyItem(at: media.long[0], to: local)

        try startDaemon()
        try player("OpenUri", [.string(remote)])
        try waitForStart()
        XCTAssertTrue(daemon!.text.contains("playing \(remote)"), daemon!.text)
        // The remote item is downloaded later: it gains a local path.
        try Library(path: libraryPath).add(ProbedItem(localPath: local.path, remoteURL: remote))
        try call(MPRIS.reel, "Add", [.strings([remote]), .boolean(true)])
        try waitForStart()
        XCTAssertTrue(daemon!.text.contains("playing \(local.absoluteString)"), daemon!.text)
        // The local file goes away: the remote URL plays again.
        try FileManager.default.removeItem(at: local)
        try call(MPRIS.reel, "Add", [.strings([remote]), .boolean(true)])
        try waitForStart()
        XCTAssertEqual(daemon!.text.components(separatedBy: "playing \(remote)").count - 1, 2, daemon!.text)
        XCTAssertEqual(try status(), "Playing")
    }

    func testADamagedLibraryIsKeptByteForByteAndReported() throws {
        let url = URL(fileURLWithPath: libraryPath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var bytes = Data("SQLite format 3\0".utf8)
        bytes.append(Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        try bytes.write(to: url)
        try startPlaying([media.tones[0]])
        XCTAssertEqual(try status(), "Playing", "it plays without a library")
        let problem = try XCTUnwrap(get("LibraryError", MPRIS.reel).string)
        XCTAssertTrue(problem.contains(libraryPath), problem)
        let (_, line) = try reel("status")
        XCTAssertTrue(line.contains("[library:") && line.contains("library.sqlite3"), line)
        daemon!.stop()
        XCTAssertEqual(try Data(contentsOf: url), bytes)
        XCTAssertFalse(FileManager.default.fileExists(atPath: libraryPath + "-wal"))
    }
}

extension PersistenceTests {
    /// GoTo an entry whose item has no source left (its file deleted, no URL):
    /// it fails, and the entry after it plays once, then the one after that.
    /// The engine asked for [load A, queue B]; A's failure moved it on to
    /// [load B, queue C]: the queueing of B, performed after, must not win.
    func testAnEntryWithoutASourceUnderGaplessLetsTheNextPlayOnce() throws {
        let gone = home.appendingPathComponent("gone.ogg")
        try FileManager.default.copyItem(at: media.tones[0], to: gone)
        try Library(path: libraryPath).add(ProbedItem(title: "Gone", localPath: gone.path))
        try startPlaying([media.tones[3], gone, media.tones[1], media.tones[2]])
        let ids = try tracks()
        try FileManager.default.removeItem(at: gone)
        drainSignals()
        try call(MPRIS.trackList, "GoTo", [.objectPath(ids[1])])
        try waitForTitle("Tone 2")
        try waitForStart()
        try player("SetPosition", [.objectPath(ids[2]), .int64(7_700_000)])
        // Tone 2 ends 0.3 s later: what follows is Tone 3, not Tone 2 again from its start (a Seeked to 0).
        let next = waitForSignal { message in
            (message.member == "Seeked" && (message.arguments.first?.int64 ?? .max) < 1_000_000)
                || (message.member == "PropertiesChanged" && message.changedProperties?["Metadata"] != nil)
        }
        XCTAssertEqual(next?.changedProperties?["Metadata"]?.dictionary?["xesam:title"]?.string, "Tone 3",
                       "after Tone 2 came \(next.map { "\($0.member ?? "?") \($0.arguments)" } ?? "nothing")")
        XCTAssertEqual(try trackID(), ids[3])
        XCTAssertTrue(daemon!.text.contains("no playable source"), daemon!.text)
    }
}
