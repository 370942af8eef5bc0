import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

/// Chapters as each container carries them, read by the real daemon and shown and used on
/// MPRIS, on reel's own interface and CLI, and on the MPD protocol.
final class ChapterTests: DaemonTestCase {
    static let titles = ["Opening", "Middle part", "Ending"]

    /// A 6 s episode of three 2 s chapters in each format's own way of carrying them: MP4 chapters
    /// (m4b), ID3v2 CHAP frames (mp3), CHAPTERxxx comments (ogg, flac; ffmpeg writes no other kind in FLAC).
    static let episodes: [String: URL] = {
        let dir = Media.folder.appendingPathComponent("chapters")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let meta = dir.appendingPathComponent("chapters.ffmeta")
        var text = ";FFMETADATA1\ntitle=Episode\nartist=Reel Test\n"
        for (n, title) in titles.enumerated() {
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(n * 2000)\nEND=\((n + 1) * 2000)\ntitle=\(title)\n"
        }
        try? Data(text.utf8).write(to: meta)
        let comments = titles.enumerated().flatMap { n, title in
            ["-metadata", "CHAPTER00\(n + 1)=00:00:0\(n * 2).000", "-metadata", "CHAPTER00\(n + 1)NAME=\(title)"]
        }
        let source = ["-f", "lavfi", "-i", "sine=frequency=440:duration=6"]
        let recipes: [String: [String]] = [
            "m4b": source + ["-i", meta.path, "-map_metadata", "1", "-map_chapters", "1", "-c:a", "aac", "-f", "mp4"],
            "mp3": source + ["-i", meta.path, "-map_metadata", "1", "-map_chapters", "1", "-c:a", "libmp3lame",
                             "-id3v2_version", "3"],
            "ogg": source + ["-c:a", "libvorbis", "-metadata", "title=Episode"] + comments,
            "flac": source + ["-metadata", "title=Episode"] + comments,
        ]
        var made: [String: URL] = [:]
        for (format, args) in recipes {
            let url = dir.appendingPathComponent("episode.\(format)")
            do { try Tones.ffmpeg(args + [url.path]) } catch { fatalError("cannot make the \(format) episode: \(error)") }
            made[format] = url
        }
        return made
    }()

    /// Loads `file` paused and waits until its chapters are known.
    private func loadPaused(_ files: [URL], _ extra: [String] = [], environment: [String: String] = [:]) throws {
        _ = try startDaemon(files, ["--paused"] + extra, environment: environment)
        let deadline = Date().addingTimeInterval(10)
        while (try get("Chapters", MPRIS.reel).array ?? []).isEmpty {
            guard Date() < deadline else { throw TestFailure("no chapters were read") }
            _ = waitForSignal(timeout: 0.5) { $0.member == "PropertiesChanged" }
        }
    }

    private func chapterNumber() throws -> Int64? { try metadata()["reel:chapterNumber"]?.int64 }

    func testEveryContainersChaptersAreListedAndReached() throws {
        for format in ["m4b", "mp3", "ogg", "flac"] {
            let episode = try XCTUnwrap(Self.episodes[format])
            try loadPaused([episode])
            let (status, listing) = try reel("chapters")
            XCTAssertEqual(status, 0, "\(format): \(listing)")
            let lines = listing.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.count, 3, "\(format): \(listing)")
            for (n, line) in lines.enumerated() {
                XCTAssertTrue(line.hasSuffix("  " + Self.titles[n]), "\(format): \(line)")
                XCTAssertTrue(line.dropFirst().hasPrefix(" \(n + 1)  0:0"), "\(format): \(line)")
            }
            // Each starts where it was written (an MP3's less its 25 ms encoder delay, as mpv plays it).
            let starts = try loadChapters().compactMap { value -> Int64? in
                if case .structure(let fields) = value { fields.first?.int64 } else { nil }
            }
            XCTAssertEqual(starts.count, 3, format)
            for (n, start) in starts.enumerated() {
                XCTAssertEqual(Double(start), Double(n * 2_000_000), accuracy: 30_000, "\(format): chapter \(n + 1)")
            }
            XCTAssertTrue(lines[0].hasPrefix("*"), "\(format): the first chapter is heard: \(listing)")
            XCTAssertEqual(try metadata()["reel:chapter"]?.string, "Opening", format)
            XCTAssertEqual(try metadata()["xesam:title"]?.string, "Episode", "\(format): the title stays the episode's")

            XCTAssertEqual(try reel("chapter", "3").0, 0)
            XCTAssertTrue(seeked(to: starts[2]), "\(format): chapter 3 starts at 4 s")
            XCTAssertEqual(try chapterNumber(), 3, format)
            XCTAssertEqual(try get("Chapter", MPRIS.reel).int64, 2, format)
            XCTAssertTrue(try reel("status").1.contains("[chapter 3: Ending]"), format)
            killDaemon()
        }
    }

    func testAChapterIsAnnouncedWhenItStartsToBeHeard() throws {
        _ = try startDaemon([Self.episodes["m4b"]!])
        let changed = try XCTUnwrap(waitForSignal(timeout: 10) {
            $0.member == "PropertiesChanged" && $0.changedProperties?["Metadata"]?.dictionary?["reel:chapterNumber"]?.int64 == 2
        }, "the second chapter was announced")
        let heard = try position()
        XCTAssertEqual(changed.changedProperties?["Metadata"]?.dictionary?["reel:chapter"]?.string, "Middle part")
        XCTAssertGreaterThanOrEqual(heard, 2_000_000 - 1_000, "not before it is heard (but for the engine's 1 ms slack)")
        XCTAssertLessThan(heard, 2_300_000, "nor long after")
    }

    func testNextAndPreviousMoveByChapterInALongEntryThenByEntry() throws {
        // Long enough to move by chapter: the resume length is 1 s here.
        try loadPaused([Self.episodes["ogg"]!, media.tones[0]], ["--resume-min-length", "1"])
        try nextToTheLastChapter()
        _ = try playerctl("previous")
        XCTAssertTrue(seeked(to: 2_000_000), "within 3 s of a chapter's start: the one before")
        XCTAssertEqual(try chapterNumber(), 2)
        _ = try playerctl("next")
        XCTAssertTrue(seeked(to: 4_000_000))
        _ = try playerctl("next")
        try waitForTitle("Tone 1")
        XCTAssertNil(try chapterNumber(), "from the last chapter, the next entry, which has none")

        try set("ChapterKeys", .string("never"), MPRIS.reel)
        try player("Previous")
        try waitForTitle("Episode")
        _ = try loadChapters()
        try player("Next")
        try waitForTitle("Tone 1")   // never: by entry, though the episode has chapters
    }

    /// playerctl's Next twice, from the first of the three 2 s chapters: to the second, then the third.
    private func nextToTheLastChapter() throws {
        for (start, number) in [(2_000_000, 2), (4_000_000, 3)] as [(Int64, Int64)] {
            _ = try playerctl("next")
            XCTAssertTrue(seeked(to: start), "chapter \(number)")
            XCTAssertEqual(try chapterNumber(), number)
        }
    }

    /// Whether a Seeked to `target` (within 50 ms) comes.
    private func seeked(to target: Int64) -> Bool {
        waitForSignal { $0.member == "Seeked" && abs(($0.arguments.first?.int64 ?? -1) - target) < 50_000 } != nil
    }

    /// Waits for the current entry's chapters after a load.
    private func loadChapters() throws -> [DBusValue] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let chapters = try get("Chapters", MPRIS.reel).array ?? []
            if !chapters.isEmpty { return chapters }
            guard Date() < deadline else { throw TestFailure("no chapters") }
            listen(for: 0.05)
        }
    }

    func testMPDShowsTheChapterAndIdleWakesWhenItChanges() throws {
        try loadPaused([Self.episodes["mp3"]!], ["--resume-min-length", "1"])
        let mpd = try connect(socketPath)
        XCTAssertEqual(try mpd.pairs("currentsong")["Name"], "Opening")
        XCTAssertEqual(try mpd.pairs("currentsong")["Title"], "Episode")
        let idler = try connect(socketPath)
        idler.send("idle player\n")
        XCTAssertEqual(try reel("chapter", "next").0, 0)
        XCTAssertEqual(idler.reply(timeout: 5)?.first, "changed: player")
        XCTAssertEqual(try mpd.pairs("currentsong")["Name"], "Middle part")
        // MPD's next moves by chapter too, in a long entry (the resume length is 1 s here), and plays.
        _ = try mpd.command("next")
        XCTAssertTrue(seeked(to: 3_975_000))
        XCTAssertEqual(try mpd.pairs("currentsong")["Name"], "Ending")
        XCTAssertEqual(try mpd.pairs("status")["state"], "play")
        _ = try mpd.command("tagtypes disable Name")
        XCTAssertNil(try mpd.pairs("currentsong")["Name"], "a client that turned Name off does not get it")
    }

    func testAQueuedEntryShowsItsChaptersBeforeItPlays() throws {
        try startPlaying([media.tones[0], Self.episodes["ogg"]!])
        // The probe of the queued episode reads its chapters off the loop.
        let deadline = Date().addingTimeInterval(10)
        var listing = ""
        repeat {
            listing = try reel("chapters", "2").1
            if listing.contains("Ending") { break }
            listen(for: 0.1)
        } while Date() < deadline
        XCTAssertEqual(listing.split(separator: "\n").map { $0.drop { $0 == " " }.split(separator: " ").joined(separator: " ") },
                       ["1 0:00 Opening", "2 0:02 Middle part", "3 0:04 Ending"], "nothing is marked: it does not play")
        let (status, said) = try reel("chapters", "1")
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(said.contains("entry 1 has no chapters"), said)
        XCTAssertTrue(try reel("chapters", "9").1.contains("no entry 9"))
        XCTAssertEqual(try reel("chapters", "0").0, 2)
    }

    func testBadChapterRequestsAreRefusedClearly() throws {
        try startPlaying([media.tones[0]])
        let (status, text) = try reel("chapter", "next")
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(text.contains("has no chapters"), text)
        XCTAssertTrue(try reel("chapters").1.contains("has no chapters"))
        assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            _ = try call(MPRIS.reel, "GoToChapter", [.string("sideways")])
        }
        XCTAssertNotEqual(try reel("chapter", "0").0, 0)
        XCTAssertNotEqual(try reel("chapter", "-1").0, 0)
        assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            try set("ChapterKeys", .string("sometimes"), MPRIS.reel)
        }
        XCTAssertEqual(try get("Chapter", MPRIS.reel).int64, -1)
    }

    func testTheSleepTimerPausesAtTheEndOfTheChapterAndSaysWhen() throws {
        _ = try startDaemon([Self.episodes["m4b"]!], ["--sleep-fade", "0.5"])
        _ = try waitForStart()
        XCTAssertEqual(try reel("sleep").1, "off")
        XCTAssertEqual(try reel("sleep", "end-of-chapter").0, 0)
        let said = try reel("sleep").1
        XCTAssertTrue(said.hasPrefix("at the end of the chapter, in 0:0"), said)
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "end-of-chapter")
        try waitForStatus("Paused", timeout: 5)
        XCTAssertEqual(Double(try position()), 1_500_000, accuracy: 50_000, "where the fade began, 0.5 s before chapter 2")
        XCTAssertEqual(try chapterNumber(), 1)
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "off")
        XCTAssertEqual(try get("SleepLeft", MPRIS.reel).int64, -1)

        XCTAssertEqual(try reel("sleep", "90").0, 0)
        XCTAssertEqual(try get("SleepLeft", MPRIS.reel).int64, 5_400_000_000, "90 minutes, none of it played while paused")
        XCTAssertEqual(try reel("sleep", "off").0, 0)
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "off")
        for bad in ["soon", "0", "-5", "25h", "1h30", ""] {
            let (status, text) = try reel("sleep", bad)
            XCTAssertEqual(status, 2, "\(bad): \(text)")
            assertError("org.freedesktop.DBus.Error.InvalidArgs") { _ = try call(MPRIS.reel, "Sleep", [.string(bad)]) }
        }
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "off", "nothing bad set a timer")
    }

    /// The usual podcast: one episode with chapters, alone in the queue. Next moves through its
    /// chapters from the media keys, and CanGoNext says so until the last one.
    func testALoneEpisodeMovesByChapterWithTheMediaKeys() throws {
        try loadPaused([Self.episodes["ogg"]!], ["--resume-min-length", "1"])
        XCTAssertEqual(try get("CanGoNext").bool, true, "a chapter follows")
        try nextToTheLastChapter()
        if try get("CanGoNext").bool != false {
            XCTAssertEqual(waitForChange("CanGoNext", timeout: 5)?["CanGoNext"]?.bool, false,
                           "in the last chapter of the last entry, Next has nowhere to go")
        }
        XCTAssertEqual(try get("CanGoPrevious").bool, true)
        _ = try playerctl("previous")
        XCTAssertTrue(seeked(to: 2_000_000))
        XCTAssertEqual(try get("CanGoNext").bool, true)
    }

    /// The sleep timer at the end of the last entry: mpv ends that file when its last sound is
    /// written, before it is heard; the pause still comes where the fade began, and the timer is
    /// gone from what plays next.
    func testTheSleepTimerAtTheEndOfTheLastEntryPausesWhereTheFadeBegan() throws {
        _ = try startDaemon([Self.episodes["m4b"]!], ["--sleep-fade", "0.5"])
        _ = try waitForStart()
        XCTAssertEqual(try reel("sleep", "end-of-track").0, 0)
        try waitForStatus("Paused", timeout: 10)
        XCTAssertEqual(Double(try position()), 5_450_000, accuracy: 100_000, "where the fade began, 0.55 s before the end")
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "off")
        XCTAssertEqual(try get("Volume").double, 1, "the user's volume is back")
        _ = try playerctl("open", media.tones[0].absoluteString)
        try waitForTitle("Tone 1")
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "off", "nothing left armed for the next")
        XCTAssertTrue(try reel("status").1.hasPrefix("Playing"))
    }

    /// An MP3 of 10,000 ID3 CHAP frames (a chapter every 10 ms from 1 s, after the 138 ms of
    /// encoder delay at 8 kHz), and one whose third chapter starts at 1:40 of its 6 s.
    static let extremes: (many: URL, past: URL) = {
        let dir = Media.folder.appendingPathComponent("chapters")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        func make(_ name: String, seconds: Int, _ chapters: [(start: Int, title: String)]) -> URL {
            let meta = dir.appendingPathComponent(name + ".ffmeta"), file = dir.appendingPathComponent(name + ".mp3")
            let text = chapters.map { "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\($0.start)\nEND=\($0.start + 10)\ntitle=\($0.title)\n" }.joined()
            try? Data((";FFMETADATA1\ntitle=\(name)\n" + text).utf8).write(to: meta)
            do {
                try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=\(seconds)", "-i", meta.path,
                                  "-map_metadata", "1", "-map_chapters", "1", "-ac", "1", "-ar", "8000", "-b:a", "8k", file.path])
            } catch { fatalError("cannot make \(name): \(error)") }
            return file
        }
        return (make("many", seconds: 102, (0..<10_000).map { (1_000 + $0 * 10, "C\($0 + 1)") }),
                make("past", seconds: 6, [(0, "Start"), (2_000, "Middle"), (100_000, "Late")]))
    }()

    func testTenThousandChaptersOfAnMP3AreEveryOneKept() throws {
        try loadPaused([Self.extremes.many])
        let (status, listing) = try reel("chapters")
        XCTAssertEqual(status, 0)
        let lines = listing.split(separator: "\n")
        XCTAssertEqual(lines.count, 10_000)
        XCTAssertTrue(lines.last?.hasSuffix("  C10000") == true, "\(lines.last ?? "")")
        let chapters = try loadChapters()
        XCTAssertEqual(chapters.count, 10_000, "on D-Bus too")
        guard case .structure(let fields) = chapters[8_999], let start = fields.first?.int64 else { return XCTFail("\(chapters[8_999])") }
        XCTAssertEqual(Double(start), 90_990_000 - 138_000, accuracy: 2_000, "chapter 9000, less the MP3's encoder delay")
        XCTAssertEqual(try reel("chapter", "9000").0, 0)
        XCTAssertTrue(seeked(to: start))
    }

    func testAChapterPastTheEndOfTheFileIsLeftOutAndSaid() throws {
        try loadPaused([Self.extremes.past])
        // At 1:39.97: mpv times chapters from the file's first timestamp, 25 ms in.
        try waitForLog(#"chapter "Late" (at 1:39) left out: past the end of the file (0:06)"#)
        let lines = try reel("chapters").1.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "\(lines)")
        let (code, said) = try reel("chapter", "3")
        XCTAssertNotEqual(code, 0)
        XCTAssertTrue(said.contains("there is no chapter 3; the track has 2"), said)
        XCTAssertEqual(try status(), "Paused", "nothing moved")
    }
}
