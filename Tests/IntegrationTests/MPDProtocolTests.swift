import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem
import XCTest

/// The MPD protocol bus against the real daemon, with the real clients
/// people use (mpc, python-mpd) beside MPRIS: one session, two views.
final class MPDProtocolTests: DaemonTestCase {
    func testMpcDrivesTheSessionAndMPRISSeesEveryChange() throws {
        try startWithMPD(Array(media.tones.prefix(2)), ["--paused"])
        XCTAssertTrue(try mpc("status").contains("[paused]"))
        try mpc("play")
        try waitForStatus("Playing")
        try mpc("pause")
        try waitForStatus("Paused")
        XCTAssertEqual(try status(), "Paused")
        try mpc("next")
        try waitForTitle("Tone 2")
        try waitForStatus("Playing")   // as in MPD: next while paused plays the next song
        // Heard running: its load's Seeked is out, and cannot be taken for the seek's below.
        let deadline = Date().addingTimeInterval(10)
        while try position() < 200_000, Date() < deadline { listen(for: 0.05) }
        try mpc("pause")
        try waitForStatus("Paused")
        let current = try mpc("-f", "%title% by %artist% on %album%", "current")
        XCTAssertEqual(current, "Tone 2 by Reel Test on Tones")
        drainSignals()
        try mpc("seek", "0:05")
        XCTAssertEqual(waitForSignal { $0.member == "Seeked" }?.arguments.first?.int64, 5_000_000)
        try mpc("prev")   // 5 s in: back to the start of the song, as the desktop's Previous does, and plays (MPD)
        let restart = try XCTUnwrap(waitForSignal { $0.member == "Seeked" }?.arguments.first?.int64)
        // It plays at once: the Seeked says where it is when announced, a few ms in (3.6 ms under two busy loops).
        XCTAssertEqual(Double(restart), 0, accuracy: 50_000, "back at the start of the song, not 5 s in")
        try mpc("prev")
        try waitForTitle("Tone 1")
        try waitForStart()   // the load's Seeked
        try waitForStatus("Playing")   // previous while paused plays too
        try mpc("pause")
        try waitForStatus("Paused")   // after it, nothing changes until asked
        // `mpc idle` blocks until something changes: here, a media key.
        let idle = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpc"), ["idle", "player"], busAddress: bus.address,
                                    home: home, environment: ["MPD_HOST": socketPath])
        XCTAssertNil(idle.waitForExit(timeout: 0.3), "mpc idle returned before anything changed: \(idle.text)")
        try player("Next")
        XCTAssertEqual(idle.waitForExit(timeout: 5), 0)
        XCTAssertEqual(idle.text.trimmingCharacters(in: .whitespacesAndNewlines), "player")
        try mpc("volume", "40")
        XCTAssertEqual(waitForChange("Volume")?["Volume"]?.double, 0.4)
        try mpc("random", "on")
        XCTAssertEqual(waitForChange("Shuffle")?["Shuffle"]?.bool, true)
        try mpc("repeat", "on")
        XCTAssertEqual(waitForChange("LoopStatus")?["LoopStatus"]?.string, "Playlist")
    }

    /// `pause 0`, then `pause 1` 0.1 s later, 20 times: a client in `idle player` is woken once
    /// by each (issue 30 saw a second wake-up in 14-17 of 50 pairs, when a short play's position
    /// caught up with a Seeked).
    func testEachPauseOfAShortPlayWakesIdleOnce() throws {
        try startWithMPD([media.long[0]], environment: ["REEL_TRACE": "1"])
        try waitForStatus("Playing")
        _ = try waitForStart()
        // Heard to play first: a pause before that (a cold start, whose samples cannot be trusted
        // yet) holds where playback started, and its first short play is caught up later.
        listen(for: 0.5)
        let control = try MPDClient(path: socketPath)
        XCTAssertEqual(try control.command("pause 1"), ["OK"])
        listen(for: 0.3)
        // Connected after that pause: as in MPD, a client's first idle reports what changed since it connected.
        let watcher = try MPDClient(path: socketPath)
        watcher.send("idle player\n")
        var wakes = 0
        func watch(for seconds: Double) {
            let end = Date().addingTimeInterval(seconds)
            while end.timeIntervalSinceNow > 0, let line = watcher.readLine(timeout: end.timeIntervalSinceNow) {
                guard line == "OK" else { continue }
                wakes += 1
                watcher.send("idle player\n")
            }
        }
        for _ in 0..<20 {
            XCTAssertEqual(try control.command("pause 0"), ["OK"])
            watch(for: 0.1)
            XCTAssertEqual(try control.command("pause 1"), ["OK"])
            watch(for: 0.3)
        }
        XCTAssertEqual(wakes, 40, "one wake-up for each of 40 pauses and resumes")
    }

    func testAnMPRISCommandWakesEveryIdleClient() throws {
        try startWithMPD(Array(media.tones.prefix(3)), ["--paused"])
        let a = try MPDClient(path: socketPath), b = try MPDClient(path: socketPath)
        XCTAssertEqual(a.greeting, "OK MPD 0.23.5")
        a.send("idle player\n")
        b.send("idle\n")
        try player("Next")
        XCTAssertEqual(a.reply(), ["changed: player", "OK"])
        // b waits on everything: the tags read from the files after the start may wake it
        // first (a CI run saw "changed: playlist"); as a client does, it idles again.
        var woke: [String] = []
        for _ in 0..<3 where !woke.contains("changed: player") {
            let reply = b.reply() ?? []
            woke += reply
            if reply.last == "OK", !woke.contains("changed: player") { b.send("idle\n") }
        }
        XCTAssertTrue(woke.contains("changed: player"), "b was not woken by Next: \(woke)")
        a.send("idle mixer\n")
        try set("Volume", .double(0.25))
        XCTAssertEqual(a.reply(), ["changed: mixer", "OK"])
        XCTAssertEqual(try a.pairs("getvol")["volume"], "25")
        a.send("idle playlist\n")
        try call(MPRIS.trackList, "RemoveTrack", [.objectPath(try XCTUnwrap(tracks().last))])
        XCTAssertEqual(a.reply(), ["changed: playlist", "OK"])
        XCTAssertEqual(try a.pairs("status")["playlistlength"], "2")
    }

    func testElapsedAndPositionAgree() throws {
        try startWithMPD([media.long[0]])
        try waitForStart()
        let client = try MPDClient(path: socketPath)
        for _ in 0..<5 {
            listen(for: 0.2)
            let before = monotonicNow()
            let position = try self.position()
            let elapsed = try XCTUnwrap(Double(try client.pairs("status")["elapsed"] ?? ""))
            let after = monotonicNow()
            // Position was read before elapsed, both between `before` and `after`.
            let difference = Int64(elapsed * 1_000_000) - position
            XCTAssertGreaterThanOrEqual(difference, -20_000)
            XCTAssertLessThanOrEqual(difference, after - before + 20_000, "elapsed \(elapsed), Position \(position)")
        }
    }

    /// `rangeid`: an entry plays only its range, whether reached without a gap or started; MPD's
    /// elapsed and duration count from the range's start, as in MPD, and MPRIS's Position stays
    /// in the file's own time.
    func testARangedEntryPlaysOnlyItsRange() throws {
        try startWithMPD([media.tones[0], media.tones[1]], ["--paused"])
        try waitForStatus("Paused")
        let client = try MPDClient(path: socketPath)
        let first = try XCTUnwrap(try client.pairs("playlistinfo 0")["Id"])
        let second = try XCTUnwrap(try client.pairs("playlistinfo 1")["Id"])
        XCTAssertEqual(try client.command("rangeid \(first) 1:2").last, "ACK [4@0] {rangeid} Cannot edit the current song")
        XCTAssertEqual(try client.command("rangeid \(second) 2:3.5"), ["OK"])
        XCTAssertEqual(try client.pairs("playlistinfo 1")["Range"], "2.000-3.500")

        /// Follows the second entry until playback stops: its largest elapsed, and MPRIS's Positions.
        func followTheRangedEntry() throws -> (elapsed: Double, positions: ClosedRange<Int64>) {
            var elapsed = 0.0, positions: ClosedRange<Int64>?
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                let status = try client.pairs("status")
                if status["state"] == "stop" { break }
                if status["songid"] == second, status["state"] == "play" {
                    XCTAssertEqual(status["duration"], "1.500")
                    elapsed = max(elapsed, Double(status["elapsed"] ?? "") ?? 0)
                    // Taken only if the entry still plays after it: it may end in between.
                    let position = try self.position()
                    let after = try client.pairs("status")
                    if after["songid"] == second, after["state"] == "play" {
                        positions = positions.map { min($0.lowerBound, position)...max($0.upperBound, position) } ?? position...position
                    }
                }
                listen(for: 0.1)
            }
            return (elapsed, try XCTUnwrap(positions, "the ranged entry never played"))
        }
        // Reached from the first entry without a gap: it starts at 2 s of its file and ends at 3.5 s.
        _ = try client.command("seekid \(first) 7.6")
        _ = try client.command("play")
        var (elapsed, positions) = try followTheRangedEntry()
        // It played (by how much of its 1.5 s elapsed shows at the end depends on how soon playback
        // is seen to stop: 1.0-1.5 s with ao=null).
        XCTAssertGreaterThan(elapsed, 0.5)
        XCTAssertLessThanOrEqual(elapsed, 1.55, "elapsed ran past the range's end")
        XCTAssertGreaterThanOrEqual(positions.lowerBound, 1_950_000, "Position is not in the file's time")
        XCTAssertLessThanOrEqual(positions.upperBound, 3_550_000, "it played past the range's end")
        // Started by itself, and seeked within the range in the range's time.
        _ = try client.command("playid \(second)")
        _ = try client.command("seekid \(second) 0.5")
        (elapsed, positions) = try followTheRangedEntry()
        XCTAssertLessThanOrEqual(elapsed, 1.55, "elapsed ran past the range's end")
        XCTAssertGreaterThanOrEqual(positions.lowerBound, 2_450_000, "seekid 0.5 did not seek to 2.5 s of the file")
        XCTAssertLessThanOrEqual(positions.upperBound, 3_550_000, "it played past the range's end")
        // Stored with the queue; then the whole song again, also stored.
        daemon?.stop()
        try startWithMPD([], ["--paused"])
        var again = try MPDClient(path: socketPath)
        XCTAssertEqual(try again.pairs("playlistid \(second)")["Range"], "2.000-3.500", "the range outlives a restart")
        XCTAssertEqual(try again.command("rangeid \(second) :").last, "ACK [4@0] {rangeid} Cannot edit the current song",
                       "it is loaded, paused, where it stopped")
        _ = try again.command("stop")
        XCTAssertEqual(try again.command("rangeid \(second) :"), ["OK"])
        XCTAssertNil(try again.pairs("playlistinfo 1")["Range"])
        daemon?.stop()
        try startWithMPD([], ["--paused"])
        again = try MPDClient(path: socketPath)
        XCTAssertNil(try again.pairs("playlistid \(second)")["Range"], "the range's removal outlives a restart")
    }

    func testPythonMPDParsesEveryReply() throws {
        try startWithMPD(Array(media.tones.prefix(2)) + [media.withCover], ["--paused"])
        let out = try pythonMPD("""
            print("version", client.mpd_version)
            # Tags of queued files arrive as their probes finish: each wakes `idle playlist`.
            while "title" not in client.playlistinfo()[1]:
                client.idle("playlist")
            s = client.status(); print("state", s["state"], "length", s["playlistlength"], "audio", s.get("audio"))
            print("current", client.currentsong()["title"])
            print("titles", [song.get("title", song["file"].split("/")[-1]) for song in client.playlistinfo()])
            print("ids", len(client.playlistid()))
            print("stats", sorted(client.stats().keys()))
            print("commands", "idle" in client.commands(), "status" in client.commands())
            print("tagtypes", client.tagtypes())
            print("outputs", client.outputs())
            print("handlers", client.urlhandlers())
            client.command_list_ok_begin(); client.status(); client.currentsong(); print("list", len(client.command_list_end()))
            try:
                client.playid(99999)
            except mpd.CommandError as e:
                print("error", e)
            client2 = mpd.MPDClient(); client2.connect(sys.argv[1]); client2.repeat(1)
            print("idle", client.idle("options"))
            print("changes", len(client.plchanges(0)))
            print("find", [s["file"].split("/")[-1] for s in client.playlistfind("artist", "Reel Test")])
            """)
        // Each line the script printed, as a real client parsed our replies.
        for expected in [
            "version 0.23.5",
            "state pause length 3 audio 44100:f:1", // Vorbis decodes to float
            "current Tone 1",
            "titles ['Tone 1', 'Tone 2', 'untagged song.ogg']",
            "ids 3",
            "stats ['albums', 'artists', 'db_playtime', 'db_update', 'playtime', 'songs', 'uptime']",
            "commands True True",
            "tagtypes ['Artist', 'Album', 'AlbumArtist', 'Title', 'Track', 'Name', 'Genre', 'Date', 'Disc']",
            "outputs [{'outputid': '0', 'outputname': 'reel', 'plugin': 'mpv', 'outputenabled': '1'}]",
            "list 2",
            "error [50@0] {playid} No such song",
            "idle ['options']",
            "changes 3",
            "find ['tone1.ogg', 'tone2.ogg']",
        ] {
            XCTAssertTrue(out.contains(expected), "\(expected) not in:\n\(out)")
        }
    }

    func testPythonMPDEditsTheQueueAndPlayback() throws {
        try startWithMPD(Array(media.tones.prefix(3)), ["--paused"])
        let out = try pythonMPD("""
            ids = [song["id"] for song in client.playlistid()]
            new = client.addid(sys.argv[2], 1); print("addid", client.playlistid(new)[0]["pos"])
            client.moveid(new, 3); print("moved", client.playlistid(new)[0]["pos"])
            client.swapid(ids[0], ids[2]); print("order", [s["id"] for s in client.playlistinfo()] == [ids[2], ids[1], ids[0], new])
            v = int(client.status()["playlist"]); client.deleteid(ids[2])
            print("changes", [c["cpos"] for c in client.plchangesposid(v)], client.status()["playlist"] != str(v))
            client.playid(ids[1]); client.seekid(ids[1], 4.5); print("seekid", client.status()["songid"] == ids[1])
            client.seekcur("-1.5"); print("elapsed", round(float(client.status()["elapsed"])))
            client.setvol(35); print("vol", client.status()["volume"])
            client.repeat(1); client.single(1); client.random(1)
            s = client.status(); print("options", s["repeat"], s["single"], s["random"])
            while "title" not in client.currentsong():   # its tags arrive with its probe or its load
                client.idle("player", "playlist")
            client.tagtypes("clear"); client.tagtypes("enable", "Title")
            print("tags", sorted(k for k in client.currentsong() if k not in ("file", "time", "duration", "pos", "id")))
            client.tagtypes("all")
            client.consume(1); print("consume", client.status()["consume"]); client.consume(0)
            client.save("py"); print("saved", [p["playlist"] for p in client.listplaylists()])
            print("listed", len(client.listplaylist("py")))
            client.rename("py", "py2"); client.rm("py2"); print("left", client.listplaylists())
            client.stop(); print("stopped", client.status()["state"])
            """, extra: [media.tones[3].path])
        for expected in [
            "addid 1",
            "moved 3",
            "order True",
            "changes ['0', '1', '2'] True", // the delete moved every song after it
            "seekid True",
            "elapsed 3",
            "vol 35",
            "options 1 1 1",
            "tags ['title']", // python-mpd lower-cases keys
            "consume 1",
            "saved ['py']",
            "listed 3", // the queue's three library items
            "left []",
            "stopped stop",
        ] {
            XCTAssertTrue(out.contains(expected), "\(expected) not in:\n\(out)")
        }
        XCTAssertEqual(try status(), "Stopped", "MPRIS saw it all")
    }

    func testQueueEditsShowOnTheTrackListAndOutliveARestart() throws {
        try startWithMPD([], ["--paused"])
        for tone in media.tones.prefix(3) { try mpc("add", tone.path) }
        XCTAssertEqual(try tracks().count, 3)
        try mpc("move", "3", "1")
        // By file: a file added without tags shows its title once its probe is back.
        // Named as the database names them: the tones lie in the music folder.
        XCTAssertEqual(try mpc("-f", "%file%", "playlist"),
                       [3, 1, 2].map { media.tones[$0 - 1].lastPathComponent }.joined(separator: "\n"))
        let added = waitForSignal { $0.member == "TrackAdded" }
        XCTAssertNotNil(added, "a move shows on the TrackList")
        try mpc("del", "2")
        XCTAssertEqual(try tracks().count, 2)
        for tone in media.tones { try mpc("add", tone.path) }
        drainSignals()
        try mpc("shuffle")
        XCTAssertNotNil(waitForSignal { $0.member == "TrackListReplaced" }, "a shuffled list is a new list")
        let shuffled = try mpc("-f", "%file%", "playlist")
        XCTAssertEqual(Set(shuffled.split(separator: "\n")).count, 4)
        daemon?.stop()
        try startWithMPD([], ["--paused"])
        XCTAssertEqual(try mpc("-f", "%file%", "playlist"), shuffled, "the moved and shuffled order was stored")
    }

    func testTheSocketIsPrivateAndRemovedOnExit() throws {
        try startWithMPD()
        let attributes = try FileManager.default.attributesOfItem(atPath: socketPath)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        daemon?.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath))
    }

    func testTCPWithAPasswordAndARefusedPublicAddress() throws {
        let port = try startWithTCP(media.tones.prefix(1).map { $0 }, ["--paused"])
        let tcp = try MPDClient(port: port)
        XCTAssertEqual(try tcp.command("status").last, #"ACK [4@0] {status} you don't have permission for "status""#)
        XCTAssertEqual(try tcp.command("password wrong").last, "ACK [3@0] {password} incorrect password")
        XCTAssertEqual(try tcp.command(#"password "open sesame""#), ["OK"])
        XCTAssertEqual(try tcp.pairs("status")["state"], "pause")
        let local = try MPDClient(path: socketPath)
        XCTAssertEqual(try local.pairs("status")["state"], "pause", "the user's own socket needs no password")

        let refused = try ChildProcess(Binaries.reeld, ["--ao", "null", "--instance", "--mpd-listen", "0.0.0.0:0"],
                                       busAddress: bus.address, home: home.appendingPathComponent("other"))
        XCTAssertEqual(refused.waitForExit(), 2)
        XCTAssertTrue(refused.text.contains("without a password"), refused.text)
    }

    func testGarbageOnTheSocketNeverHurtsTheDaemon() throws {
        try startWithMPD(Array(media.tones.prefix(2)), ["--paused"])
        // Binary noise, NULs, bad quoting, huge numbers: each gets an ACK, the connection lives on.
        let noisy = try MPDClient(path: socketPath)
        for line in ["\u{0}\u{1}\u{2}", #"add "unterminated"#, "seek 0 1e309", "setvol 99999999999999999999",
                     "play 99", "delete 3:1", "move 0 -1", "status extra", "idle nonsense", "plchanges -1",
                     "find", #"find "(artist =="#, "tagtypes enable", "binarylimit 1", "\u{FEFF}status"] {
            let reply = try noisy.command(line)
            XCTAssertTrue(reply.last?.hasPrefix("ACK [") == true || reply.last == "OK", "\(line): \(reply)")
        }
        XCTAssertEqual(try noisy.pairs("status")["playlistlength"], "2")
        // A line of 100 kB with no end: the connection is dropped, nothing else.
        let flooder = try MPDClient(path: socketPath)
        flooder.send(String(repeating: "x", count: 100_000))
        XCTAssertTrue(flooder.isClosed())
        // Talking during idle: dropped, as MPD does.
        let rude = try MPDClient(path: socketPath)
        rude.send("idle database\nstatus\n")   // nothing changes the database here: the idle waits
        XCTAssertTrue(rude.isClosed())
        // A client that never reads, and one that hangs up mid-reply.
        let silent = try MPDClient(path: socketPath)
        for _ in 0..<200 { silent.send("playlistinfo\n") }
        let quitter = try MPDClient(path: socketPath)
        quitter.send("playlistinfo\nstatus\n")
        quitter.hangUp()
        XCTAssertEqual(try noisy.pairs("status")["state"], "pause")
        XCTAssertEqual(try status(), "Paused", "MPRIS still answers")
    }
}

/// The library as MPD's database, through mpc.
final class MPDDatabaseTests: DaemonTestCase {
    /// A music folder: two albums, a cover in the first.
    func musicFolder() throws -> URL {
        let music = home.appendingPathComponent("Music")
        for (folder, tone) in [("Alpha", 0), ("Alpha", 1), ("Beta", 2)] {
            let dir = music.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: media.tones[tone], to: dir.appendingPathComponent(media.tones[tone].lastPathComponent))
        }
        try FileManager.default.copyItem(at: media.cover, to: music.appendingPathComponent("Alpha/cover.jpg"))
        return music
    }

    func testMpcBrowsesSearchesAndQueuesTheLibrary() throws {
        let music = try musicFolder()
        try startWithMPD([], ["--paused", "--music-dir", music.path])
        let watcher = try MPDClient(path: socketPath)
        watcher.send("idle database stored_playlist\n")
        XCTAssertEqual(try reel("lib", "add", music.path).0, 0)
        XCTAssertEqual(watcher.reply(timeout: 10), ["changed: database", "OK"], "an import by reel's CLI")
        XCTAssertEqual(try mpc("ls"), "Alpha\nBeta")
        XCTAssertEqual(try mpc("ls", "Alpha"), "Alpha/tone1.ogg\nAlpha/tone2.ogg")
        XCTAssertEqual(try mpc("search", "title", "tone 2"), "Alpha/tone2.ogg")
        XCTAssertEqual(try mpc("find", "title", "tone 2"), "", "find is exact")
        XCTAssertEqual(try mpc("list", "album"), "Tones")
        try mpc("findadd", "artist", "Reel Test")
        XCTAssertEqual(try tracks().count, 3, "findadd queued every song, seen over MPRIS")
        XCTAssertEqual(try mpc("-f", "%title%", "playlist"), "Tone 1\nTone 2\nTone 3")
        try mpc("add", "Beta")
        try mpc("add", "Alpha/tone2.ogg")
        XCTAssertEqual(try mpc("-f", "%title%", "playlist"), "Tone 1\nTone 2\nTone 3\nTone 3\nTone 2",
                       "songs and folders as the database names them")

        let cover = try Data(contentsOf: music.appendingPathComponent("Alpha/cover.jpg"))
        let fetched = try mpcFile("albumart", "Alpha/tone1.ogg")
        XCTAssertEqual(fetched, cover, "albumart comes whole, in chunks")

        watcher.send("idle stored_playlist\n")
        XCTAssertEqual(try reel("playlist", "save", "evening").0, 0)
        XCTAssertEqual(watcher.reply(timeout: 10), ["changed: stored_playlist", "OK"], "a playlist saved over MPRIS")
        try mpc("save", "mix")
        XCTAssertEqual(try mpc("lsplaylists"), "evening\nmix")
        try mpc("load", "evening")
        XCTAssertEqual(try tracks().count, 10, "load appends the playlist")
        XCTAssertTrue(try reel("playlist", "ls").1.contains("mix"), "one store for both buses")
        try mpc("rm", "mix")
        XCTAssertEqual(try mpc("lsplaylists"), "evening")

        try FileManager.default.copyItem(at: media.tones[3], to: music.appendingPathComponent("Beta/tone4.ogg"))
        try mpc("--wait", "update")
        XCTAssertEqual(try mpc("ls", "Beta"), "Beta/tone3.ogg\nBeta/tone4.ogg", "update found the new file")
    }

    func testPythonMPDSeesTheDatabaseAsMPDShowsIt() throws {
        // What cantata, ncmpcpp and sonata ask of MPD 0.23 (issue 31), parsed by python-mpd.
        let music = try musicFolder()
        // A compilation's track, tagged as taggers write them (imported through ffprobe).
        let gamma = music.appendingPathComponent("Gamma")
        try FileManager.default.createDirectory(at: gamma, withIntermediateDirectories: true)
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "libvorbis", "-metadata", "title=Hit",
                          "-metadata", "artist=Singer", "-metadata", "album=Hits", "-metadata", "album_artist=Various",
                          "-metadata", "tracknumber=7/12", "-metadata", "discnumber=2/2", "-metadata", "date=1976",
                          gamma.appendingPathComponent("hit.ogg").path])
        try startWithMPD([], ["--paused", "--music-dir", music.path])
        XCTAssertEqual(try reel("lib", "add", music.path).0, 0)
        let out = try pythonMPD("""
            while int(client.stats()["songs"]) < 4:
                client.idle("database")
            hit = client.find("albumartist", "Various")
            print("hit", [(s["file"], s["artist"], s["albumartist"], s["track"], s["disc"], s["date"], s["format"]) for s in hit])
            print("modified", [s["last-modified"][:2] for s in hit])
            print("albums", client.list("album", "group", "albumartist"))
            print("db_update", int(client.stats()["db_update"]) > 1600000000)
            client.add("Alpha/tone2.ogg")
            print("queue", [s["file"] for s in client.playlistinfo()], client.playlist())
            print("dates", client.list("date"), len(client.find("Date", "")), client.find("disc", "2"))
            print("groups", client.list("album", "group", "date"))
            print("count", client.count("group", "artist"))
            print("partitions", client.listpartitions())
            client.playlistadd("mix", "Beta"); client.playlistadd("mix", "Alpha/tone1.ogg")
            client.playlistmove("mix", 0, 1); client.playlistdelete("mix", 0)
            print("mix", client.listplaylist("mix"))
            client.playlistclear("mix"); print("cleared", client.listplaylist("mix"))
            """)
        for expected in [
            "db_update True",
            "queue ['Alpha/tone2.ogg'] ['file: Alpha/tone2.ogg']",   // python-mpd's parse of MPD's `0:file: NAME`
            "hit [('Gamma/hit.ogg', 'Singer', 'Various', '7', '2', '1976', '44100:f:1')]",
            "modified ['20']",
            "albums [{'albumartist': 'Reel Ensemble', 'album': 'Tones'}, {'albumartist': 'Various', 'album': 'Hits'}]",
            "dates [{'date': ''}, {'date': '1976'}] 3 [{'file': 'Gamma/hit.ogg'",
            "groups [{'date': '', 'album': 'Tones'}, {'date': '1976', 'album': 'Hits'}]",
            "count {'artist': ['Reel Test', 'Singer'], 'songs': ['3', '1'], ",
            "partitions [{'partition': 'default'}]",
            "mix ['Beta/tone3.ogg']",
            "cleared []",
        ] {
            XCTAssertTrue(out.contains(expected), "\(expected) not in:\n\(out)")
        }
    }

    func testAnEmbeddedPictureIsServedBeforeTheSongHasPlayed() throws {
        // Cantata and ncmpcpp ask for covers of songs in the library, not only of the one playing.
        try startWithMPD([], ["--paused"])
        XCTAssertEqual(try reel("lib", "add", media.embeddedArt.path).0, 0)
        let name = media.embeddedArt.lastPathComponent
        var listed = ""
        let deadline = Date().addingTimeInterval(10)
        repeat { listed = try mpc("ls") } while !listed.contains(name) && Date() < deadline
        let picture = try mpcFile("readpicture", name)
        XCTAssertGreaterThan(picture.count, 100, "no picture")
        XCTAssertEqual(Array(picture.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
        XCTAssertEqual(try tracks().count, 0, "nothing was queued or played for it")
    }
}

extension MPDProtocolTests {
    /// Client-to-client messages as python-mpd sends them (mpdscribble's and cantata's use):
    /// `idle subscription` and `idle message` wake the right clients, and mistakes get MPD's errors.
    func testClientMessagesReachTheSubscribersAndWakeTheirIdle() throws {
        try startWithMPD()
        let out = try pythonMPD("""
            import threading
            other = mpd.MPDClient(); other.timeout = 10; other.connect(sys.argv[1])
            def woken(waiter, subsystem, action):   # what waiter's idle answers once action is done
                out = []
                t = threading.Thread(target=lambda: out.append(waiter.idle(subsystem))); t.start()
                action(); t.join(10); return out[0]
            print("woken", woken(other, "subscription", lambda: client.subscribe("cantata-dynamic")))
            print("channels", other.channels())
            print("message", woken(client, "message", lambda: other.sendmessage("cantata-dynamic", 'start "Evening"')))
            print("read", client.readmessages(), client.readmessages())
            for call in [lambda: other.sendmessage("nobody-here", "x"), lambda: client.subscribe("bad name"),
                         lambda: client.subscribe("cantata-dynamic"), lambda: other.unsubscribe("cantata-dynamic")]:
                try: call(); print("accepted")
                except mpd.CommandError as e: print("refused", e)
            for n in range(15): client.subscribe("c%d" % n)
            try: client.subscribe("one-too-many")
            except mpd.CommandError as e: print("refused", e)
            woken(other, "subscription", lambda: None)   # what the 15 subscriptions raised
            print("left", woken(other, "subscription", client.disconnect), other.channels())
            """)
        XCTAssertEqual(out.split(separator: "\n").map(String.init), [
            "woken ['subscription']",
            "channels ['cantata-dynamic']",
            "message ['message']",
            #"read [{'channel': 'cantata-dynamic', 'message': 'start "Evening"'}] []"#,
            "refused [50@0] {sendmessage} nobody is subscribed to this channel",
            "refused [2@0] {subscribe} invalid channel name",
            "refused [56@0] {subscribe} already subscribed to this channel",
            "refused [50@0] {unsubscribe} not subscribed to this channel",
            "refused [56@0] {subscribe} subscription list is full",
            "left ['subscription'] []",
        ])
    }
}
