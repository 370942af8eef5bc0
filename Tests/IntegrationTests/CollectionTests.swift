import Foundation
import ReelCore
import ReelHarness
import ReelLibrary
import ReelMPRIS
import ReelSystem
import XCTest

/// A music collection as MPD users have one: generated songs in Artist/Album folders, scanned by
/// reel-scan, rescanned incrementally, followed by the watch, and read by MPD clients.
final class CollectionTests: DaemonTestCase {
    /// COUNT generated songs (mp3, ogg and flac in turn, 1 s each, tagged) under a new folder.
    func makeCollection(_ name: String, count: Int, coverEvery: Int = 0, first: Int = 0) throws -> URL {
        let dir = home.appendingPathComponent(name)
        let (status, out) = try runTool(Binaries.scripts.appendingPathComponent("make-collection"),
                                        [dir.path, String(count), "--cover-every", String(coverEvery), "--first", String(first)],
                                        timeout: 120)
        guard status == 0 else { throw TestFailure("make-collection failed: \(out)") }
        return dir
    }

    func items() throws -> [LibraryItem] { try Library(path: libraryPath).search("") }

    /// Reads the library file until `match` holds (the scan writes as it goes).
    @discardableResult
    func waitForLibrary(timeout: Double = 20, _ what: String, _ match: ([LibraryItem]) -> Bool) throws -> [LibraryItem] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let now = try? items(), match(now) { return now }
            guard Date() < deadline else { throw TestFailure("the library never had \(what): \((try? items().count) ?? -1) items") }
            listen(for: 0.05)
        }
    }

    func summary(_ out: String) -> String { String(out.split(separator: "\n").first ?? "") }

    func testAnImportIsIncrementalAndAMovedFolderKeepsItsHistory() throws {
        let music = try makeCollection("music", count: 30, coverEvery: 10)
        try startDaemon()
        var (status, out) = try reel("lib", "add", music.path)
        XCTAssertEqual(status, 0, out)
        XCTAssertEqual(summary(out), "added 30, already known 0", out)
        let first = try items()
        XCTAssertEqual(first.count, 30)
        let flac = try XCTUnwrap(first.first { $0.localPath?.hasSuffix(".flac") == true })
        XCTAssertEqual(flac.duration, 1_000_000)
        XCTAssertNotNil(flac.artist)
        XCTAssertNotNil(flac.album)

        (_, out) = try reel("lib", "add", music.path)
        XCTAssertEqual(summary(out), "added 0, already known 30", "nothing changed, nothing read: \(out)")

        // One file changed (another song's bytes), one gone, one folder moved.
        let songs = first.compactMap(\.localPath).sorted()
        let changed = songs[0], gone = songs[1]
        let other = try XCTUnwrap(songs.first { $0.hasSuffix(Paths.fileExtension(changed)) && $0 != changed && Paths.directory(of: $0) != Paths.directory(of: changed) })
        let otherTitle = try XCTUnwrap(first.first { $0.localPath == other }?.title)
        try FileManager.default.removeItem(atPath: changed)
        try FileManager.default.copyItem(atPath: other, toPath: changed)
        try FileManager.default.removeItem(atPath: gone)
        let album = Paths.directory(of: songs.last!)
        let moved = first.filter { $0.localPath.map(Paths.directory) == album }
        XCTAssertFalse(moved.isEmpty)
        let heard = try XCTUnwrap(moved.first)
        try Library(path: libraryPath).setPosition(400_000, for: heard.id)
        try FileManager.default.moveItem(atPath: album, toPath: music.appendingPathComponent("Moved here").path)

        (status, out) = try reel("lib", "add", music.path)
        XCTAssertEqual(status, 0, out)
        XCTAssertEqual(summary(out), "added 0, already known \(30 - 2 - moved.count), read again 1, moved \(moved.count), "
                       + "gone from disk, removed 1", out)
        let after = try items()
        XCTAssertEqual(after.count, 29)
        XCTAssertEqual(after.first { $0.localPath == changed }?.title, otherTitle, "the changed file was read again")
        XCTAssertNil(after.first { $0.localPath == gone })
        let movedItem = try XCTUnwrap(after.first { $0.id == heard.id }, "the moved file is the same item")
        XCTAssertTrue(movedItem.localPath?.contains("/Moved here/") == true, "\(movedItem.localPath ?? "")")
        XCTAssertEqual(movedItem.position, 400_000, "and keeps its resume position")

        (_, out) = try reel("lib", "add", "--rescan", music.path)
        XCTAssertEqual(summary(out), "added 0, already known 0, read again 29", "--rescan reads everything: \(out)")
    }

    func testFilesAreTakenByWhatTheyHoldAndWhatIsSkippedIsSaid() throws {
        let music = home.appendingPathComponent("odd")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        // Playable, but under names the old extension list did not have.
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "pcm_s16le", music.appendingPathComponent("a.w64").path])
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "tta", music.appendingPathComponent("b.tta").path])
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "pcm_s16le", "-f", "wav", music.appendingPathComponent("no extension").path])
        try "not music".write(to: music.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        try Data(repeating: 0x20, count: 3000).write(to: music.appendingPathComponent("blank.bin"))
        try startDaemon()
        let (status, out) = try reel("lib", "add", music.path)
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(summary(out).hasPrefix("added 3, already known 0"), out)
        XCTAssertTrue(out.contains("not media by their names: 1 .txt"), out)
        XCTAssertTrue(out.contains("blank.bin: not readable as media"), out)
        let (_, problems) = try reel("lib", "problems")
        XCTAssertTrue(problems.contains("blank.bin: not readable as media"), problems)
        XCTAssertFalse(problems.contains("notes.txt"), "a text file is not a problem: \(problems)")
    }

    func testAKillInTheMiddleLosesNothingWrittenAndTheNextStartGoesOn() throws {
        let music = try makeCollection("big", count: 1_500)
        try startDaemon()
        let importing = try reelAsync("lib", "add", music.path)
        let pid = try XCTUnwrap(daemon?.process.processIdentifier)
        _ = try waitForLibrary(timeout: 60, "a first batch") { !$0.isEmpty }
        // The scanners stopped where they are: the daemon is killed with a scan half done.
        for scanner in try childProcesses(of: pid) { kill(scanner, SIGSTOP) }
        let written = try items().count
        XCTAssertLessThan(written, 1_500, "killed before the end")
        killDaemon()
        _ = try? importing.wait(timeout: 10)
        XCTAssertGreaterThanOrEqual(try items().count, written, "nothing written is lost")

        try startDaemon()
        let all = try waitForLibrary(timeout: 60, "every song after the restart") { $0.count == 1_500 }
        XCTAssertEqual(Set(all.compactMap(\.localPath)).count, 1_500, "each once")
        let (_, out) = try reel("lib", "add", music.path)
        XCTAssertEqual(summary(out), "added 0, already known 1500", out)
    }

    /// The processes whose parent is `pid`.
    func childProcesses(of pid: Int32) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").dropFirst().first.flatMap { Int32($0) } == pid
        }
    }

    func testTheWatchSeesWhatChangesAndWaitsForACopyInProgress() throws {
        let music = try makeCollection("watched", count: 6)
        let spare = try makeCollection("spare", count: 6, first: 100)
        try startWithMPD([], ["--music-dir", music.path, "--watch", "yes"])
        try waitForLibrary("the folder scanned at start") { $0.count == 6 }
        XCTAssertTrue(try get("LibraryWatch", MPRIS.reel).string?.hasPrefix("watching ") == true)
        let mpd = try connect(socketPath)
        _ = try mpd.command("status")

        // A new album, copied in.
        let sparePaths = try FileManager.default.subpathsOfDirectory(atPath: spare.path).filter { $0.hasSuffix(".ogg") || $0.hasSuffix(".mp3") }.sorted()
        let newAlbum = music.appendingPathComponent("New Artist/New Album")
        try FileManager.default.createDirectory(at: newAlbum, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: spare.appendingPathComponent(sparePaths[0]).path,
                                         toPath: newAlbum.appendingPathComponent("01 New.\(Paths.fileExtension(sparePaths[0]))").path)
        XCTAssertEqual(try mpd.command("idle database", timeout: 20), ["changed: database", "OK"], "MPD clients hear of it")
        try waitForLibrary("the copied file") { $0.count == 7 }

        // A copy still in progress: half the bytes, the file still open.
        let source = try Data(contentsOf: spare.appendingPathComponent(sparePaths[1]))
        let slow = newAlbum.appendingPathComponent("02 Slow.\(Paths.fileExtension(sparePaths[1]))")
        XCTAssertTrue(FileManager.default.createFile(atPath: slow.path, contents: nil))
        let handle = try FileHandle(forWritingTo: slow)
        try handle.write(contentsOf: source.prefix(source.count / 2))
        listen(for: 1.2)   // three times the quiet the watch waits for
        XCTAssertEqual(try items().count, 7, "a file being written is not read half-written")
        try handle.write(contentsOf: source.dropFirst(source.count / 2))
        try handle.close()
        let withSlow = try waitForLibrary("the finished copy") { $0.count == 8 }
        // (An mp3 of a second lasts 1.045 s: its last frame is whole.)
        XCTAssertGreaterThanOrEqual(withSlow.first { $0.localPath == slow.path }?.duration ?? 0, 1_000_000, "read whole, not half")

        // Changed in place: rewritten with another song's bytes.
        let target = try XCTUnwrap(withSlow.first { $0.localPath?.hasSuffix(".ogg") == true && !$0.localPath!.contains("New Album") })
        let replacement = try XCTUnwrap(sparePaths.first { $0.hasSuffix(".ogg") })
        try Data(contentsOf: spare.appendingPathComponent(replacement)).write(to: URL(fileURLWithPath: target.localPath!))
        let newTitle = try XCTUnwrap(Probe.file(spare.appendingPathComponent(replacement).path).title)
        try waitForLibrary("the rewritten file's new title") { $0.first { $0.id == target.id }?.title == newTitle }

        // Moved: the folder renamed; the items move with their ids.
        let before = Set(try items().filter { $0.localPath?.contains("/New Artist/") == true }.map(\.id))
        try FileManager.default.moveItem(at: music.appendingPathComponent("New Artist"), to: music.appendingPathComponent("Renamed Artist"))
        try waitForLibrary("the renamed folder") { now in
            Set(now.filter { $0.localPath?.contains("/Renamed Artist/") == true }.map(\.id)) == before
        }

        // Removed.
        try FileManager.default.removeItem(at: music.appendingPathComponent("Renamed Artist"))
        try waitForLibrary("the removal") { $0.count == 6 }
    }

    func testWhenTheWatchesRunOutItSaysSoOnceAndRescansPeriodically() throws {
        // A user namespace of its own, whose inotify watches are few: the kernel's real ENOSPC.
        guard getuid() == 0 else { throw XCTSkip("a user namespace's limits are set as its root") }
        let music = try makeCollection("few watches", count: 8)
        try startDaemon([], ["--music-dir", music.path, "--watch", "yes", "--rescan-interval", "1"],
                        wrapper: ["/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c",
                                  "echo 2 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\""])
        try waitForLibrary("the folder scanned at start") { $0.count == 8 }
        let watch = try XCTUnwrap(get("LibraryWatch", MPRIS.reel).string)
        XCTAssertTrue(watch.hasPrefix("periodic: the system's inotify watches ran out"), watch)
        XCTAssertTrue(watch.contains("every 1 s"), watch)
        let (_, status) = try reel("status")
        XCTAssertTrue(status.contains("inotify watches ran out"), "reel status says it: \(status)")

        // Deep in a folder no watch covers: found by the next periodic scan.
        let deep = music.appendingPathComponent("A/B/C")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        let song = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: music.path).first { $0.hasSuffix(".ogg") })
        try FileManager.default.copyItem(atPath: music.appendingPathComponent(song).path, toPath: deep.appendingPathComponent("new.ogg").path)
        try waitForLibrary("the new file") { $0.count == 9 }
        try waitForLog("music folder changed: added 1")
        XCTAssertEqual(daemon?.text.components(separatedBy: "inotify watches ran out").count, 2, "said once: \(daemon?.text ?? "")")
    }

    func testMPDsUpdateAndRescanThroughARealClient() throws {
        let music = try makeCollection("mpd", count: 12)
        try startWithMPD([], ["--music-dir", music.path])
        try mpc("--wait", "update")   // mpc waits, through idle, for the update to end
        let stats = try mpc("stats")
        XCTAssertTrue(stats.split(separator: "\n").contains { $0.hasPrefix("Songs:") && $0.hasSuffix(" 12") }, stats)
        let more = try makeCollection("more", count: 3, first: 50)
        try FileManager.default.moveItem(at: more, to: music.appendingPathComponent("More"))
        let out = try pythonMPD("""
            job = client.update()
            print("job", int(job) > 0)
            while "updating_db" in client.status():
                client.idle("update")
            print("songs", client.stats()["songs"])
            job2 = client.rescan()
            print("next", int(job2) == int(job) + 1)
            while "updating_db" in client.status():
                client.idle("update")
            print("after rescan", client.stats()["songs"], int(client.stats()["db_update"]) > 0)
            """)
        XCTAssertEqual(out, "job True\nsongs 15\nnext True\nafter rescan 15 True")
    }

    func testHostileFilesEachGetAReasonAndTheScanGoesOn() throws {
        let music = try makeCollection("hostile", count: 3)
        let bad = music.appendingPathComponent("Bad")
        try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
        let mp3 = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: music.path).first { $0.hasSuffix(".mp3") })
        let mp3Bytes = try Data(contentsOf: music.appendingPathComponent(mp3))
        try Data().write(to: bad.appendingPathComponent("empty.mp3"))
        try mp3Bytes.prefix(60).write(to: bad.appendingPathComponent("truncated.mp3"))
        try HostileMedia.lyingWAV(hours: 47, bytes: 80_000).write(to: bad.appendingPathComponent("47 hours.wav"))
        try HostileMedia.zeroLengthChapters(129, at: bad.appendingPathComponent("chapters.m4a"))
        try HostileMedia.bigPicture(megabytes: 50, into: music.appendingPathComponent(mp3), at: bad.appendingPathComponent("big picture.mp3"))
        // Names no listing should choke on, and a folder that includes itself.
        try mp3Bytes.write(to: bad.appendingPathComponent("new\nline.mp3"))
        try HostileMedia.writeRawName(Array("caf".utf8) + [0xE9] + Array(".mp3".utf8), in: bad, mp3Bytes)
        try FileManager.default.createSymbolicLink(atPath: bad.appendingPathComponent("loop").path, withDestinationPath: bad.path)
        for fixture in HostileMedia.fixtures() {
            try FileManager.default.copyItem(at: fixture, to: bad.appendingPathComponent(fixture.lastPathComponent))
        }
        try startDaemon()
        let (status, out) = try reel(timeout: 120, "lib", "add", music.path)
        XCTAssertEqual(status, 0, out)
        let now = try items()
        XCTAssertEqual(now.filter { $0.localPath?.hasPrefix(music.path + "/Artist") == true }.count, 3, "the good songs: \(out)")
        XCTAssertTrue(out.contains("empty.mp3: "), out)
        XCTAssertTrue(out.contains("truncated.mp3: "), out)
        XCTAssertTrue(out.contains("loop"), "the loop is said: \(out)")
        let liar = try XCTUnwrap(now.first { $0.localPath?.hasSuffix("47 hours.wav") == true }, out)
        XCTAssertLessThan(liar.duration ?? .max, 60_000_000, "not 47 hours: \(liar.duration ?? -1)")
        XCTAssertNotNil(now.first { $0.localPath?.hasSuffix("big picture.mp3") == true }, "a 50 MB picture is read past: \(out)")
        XCTAssertNotNil(now.first { $0.localPath?.hasSuffix("new\nline.mp3") == true })
        XCTAssertNotNil(now.first { $0.localPath?.hasSuffix("chapters.m4a") == true }, out)
        // Every file got an item or a reason.
        let (_, problems) = try reel("lib", "problems")
        for name in ["empty.mp3", "truncated.mp3"] { XCTAssertTrue(problems.contains(name), problems) }
        XCTAssertEqual(try call(MPRIS.reel, "LibraryProblems").first?.array?.count,
                       problems.split(separator: "\n").count)
        XCTAssertNotNil(try get("PlaybackStatus").string, "the daemon is alive")
    }
}
