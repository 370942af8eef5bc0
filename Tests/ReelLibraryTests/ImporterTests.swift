import Foundation
import ReelCore
import ReelHarness
import XCTest
@testable import ReelLibrary

/// Hostile input to the importer: playlists that include themselves, names
/// that look like options, paths the system cannot take, files that are not media.
final class ImporterTests: TempDirTestCase {
    func testAPlaylistThatListsItselfIsExpandedOnceAndSaidSoOnce() throws {
        let list = dir.appendingPathComponent("loop.m3u")
        // 40 lines naming itself and two that name files, as the hostile user's playlist.
        let lines = Array(repeating: "loop.m3u", count: 40) + ["a.ogg", "/nowhere/b.ogg"]
        try lines.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        try Data("x".utf8).write(to: dir.appendingPathComponent("a.ogg"))
        let started = Date()
        let (entries, problems) = Importer.playlistEntries(list.path)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "no exponential expansion")
        XCTAssertEqual(entries, [dir.appendingPathComponent("a.ogg").path])
        XCTAssertEqual(problems.filter { $0.1.contains("includes itself") }.count, 1, "\(problems)")
        XCTAssertEqual(problems.filter { $0.0 == "/nowhere/b.ogg" }.map(\.1), ["no such file"])
    }

    func testPlaylistsIncludingEachOtherAndNestingDeeplyAreBounded() throws {
        for i in 0..<12 {   // 0 includes 1 includes 2 … 11 includes 0
            try "p\((i + 1) % 12).m3u\n".write(to: dir.appendingPathComponent("p\(i).m3u"), atomically: true, encoding: .utf8)
        }
        let (entries, problems) = Importer.playlistEntries(dir.appendingPathComponent("p0.m3u").path)
        XCTAssertEqual(entries, [])
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].1.contains("nest more than \(Importer.maxPlaylistDepth) deep"), "\(problems)")
    }

    func testAPlaylistOfMoreThanTheLimitIsCutAndSaidSo() throws {
        let lines = (0..<(Importer.maxPlaylistEntries + 10)).map { "http://example.org/\($0).ogg" }
        let list = dir.appendingPathComponent("huge.m3u")
        try lines.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let (entries, problems) = Importer.playlistEntries(list.path)
        XCTAssertEqual(entries.count, Importer.maxPlaylistEntries)
        XCTAssertEqual(problems.count, 1)
    }

    func testNamesThatAreNotAbsoluteOrTooLongOrNotFilesAreReported() throws {
        let fifo = dir.appendingPathComponent("fifo.ogg").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let long = "/" + String(repeating: "a/", count: Int(PATH_MAX))
        let summary = Importer(libraryPath: dir.appendingPathComponent("lib.sqlite3").path)
            .run(["-report", "plain.mp3", fifo, long]) { _, _ in }
        let why = Dictionary(summary.problems.map { ($0.0, $0.1) }) { a, _ in a }
        XCTAssertEqual(why["-report"], "not an absolute path or an http(s) URL")
        XCTAssertEqual(why["plain.mp3"], "not an absolute path or an http(s) URL")
        XCTAssertEqual(why[fifo], "not a regular file")
        XCTAssertTrue(why[long]?.contains("longer than the system allows") == true, "\(summary.problems)")
        XCTAssertEqual(summary.added, 0)
    }

    func testURLsWithoutAHostOrWithControlCharactersAreNotStored() throws {
        let bad = ["http:///nohost.mp3", "https://example.org/a\nb.mp3", "HTTP://example.org/with space.mp3"]
        let summary = Importer(libraryPath: dir.appendingPathComponent("lib.sqlite3").path).run(bad + ["HTTPS://example.org/ok.mp3"]) { _, _ in }
        let why = Dictionary(summary.problems.map { ($0.0, $0.1) }) { a, _ in a }
        XCTAssertEqual(why["http:///nohost.mp3"], "the URL has no host")
        XCTAssertTrue(why["https://example.org/a\nb.mp3"]?.contains("control characters") == true, "\(summary.problems)")
        XCTAssertTrue(why["HTTP://example.org/with space.mp3"]?.contains("spaces") == true, "\(summary.problems)")
        XCTAssertEqual(summary.added, 1, "the upper-case scheme is a URL too")
    }

    func testRandomBytesNamedMP3AreNotMedia() throws {
        let random = dir.appendingPathComponent("random.mp3")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: random)
        XCTAssertThrowsError(try Probe.file(random.path)) { error in
            XCTAssertTrue("\(error)".contains("not a media file"), "\(error)")
        }
    }

    func testTheTagsMPDsClientsGroupByAreImportedAndKept() throws {
        // A compilation's track: its own artist, the album's artist, track, disc and date.
        let file = dir.appendingPathComponent("track.ogg")
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "libvorbis",
                            "-metadata", "title=Song", "-metadata", "artist=Singer", "-metadata", "album=Hits",
                            "-metadata", "album_artist=Various", "-metadata", "tracknumber=7/12",
                            "-metadata", "discnumber=2/2", "-metadata", "date=1976", file.path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        XCTAssertEqual(ffmpeg.terminationStatus, 0)
        let path = dir.appendingPathComponent("lib.sqlite3").path
        let summary = Importer(libraryPath: path).run([file.path]) { _, _ in }
        XCTAssertEqual(summary.added, 1, "\(summary.problems)")
        let item = try XCTUnwrap(try Library(path: path).search("").first)
        XCTAssertEqual(item.metadata.artists, ["Singer"])
        XCTAssertEqual(item.metadata.albumArtists, ["Various"])
        XCTAssertEqual(item.metadata.trackNumber, 7)
        XCTAssertEqual(item.metadata.disc, 2)
        XCTAssertEqual(item.metadata.date, "1976")
        XCTAssertEqual(item.format, "44100:f:1", "Vorbis decodes to floats")
        let mtime = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)
        XCTAssertEqual(item.modified, Int64(mtime.timeIntervalSince1970))
    }

    func testChaptersAreImportedOnTheTimelineMPVPlaysThemOn() throws {
        // FLAC's CHAPTERxxx comments; and an MP3's ID3 CHAP frames, which mpv times from the first
        // audio (after the encoder's 25 ms delay).
        let meta = dir.appendingPathComponent("chapters.ffmeta")
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=2000\ntitle=Two\tparts\n".utf8)
            .write(to: meta)
        let path = dir.appendingPathComponent("lib.sqlite3").path
        let comments = ["-metadata", "CHAPTER001=00:00:00.000", "-metadata", "CHAPTER001NAME=One",
                        "-metadata", "CHAPTER002=00:00:01.000", "-metadata", "CHAPTER002NAME=Two\tparts"]
        let chapterFrames = ["-i", meta.path, "-map_metadata", "1", "-map_chapters", "1", "-c:a", "libmp3lame", "-id3v2_version", "3"]
        for (name, recipe) in [("a.flac", comments), ("b.mp3", chapterFrames)] {
            let file = dir.appendingPathComponent(name)
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=duration=2"] + recipe + [file.path])
            XCTAssertEqual(Importer(libraryPath: path).run([file.path]) { _, _ in }.added, 1)
        }
        let items = try Library(path: path).search("")
        XCTAssertEqual(items.count, 2)
        for item in items {
            let chapters = item.metadata.chapters
            XCTAssertEqual(chapters.map(\.title), ["One", "Two parts"], "\(item.localPath ?? "")")
            XCTAssertEqual(chapters.first?.start, 0)
            let second = try XCTUnwrap(chapters.last?.start)
            if item.localPath?.hasSuffix(".mp3") == true {
                XCTAssertEqual(Double(second), 975_000, accuracy: 2_000, "1 s less the MP3's encoder delay")
            } else {
                XCTAssertEqual(second, 1_000_000)
            }
        }
    }

    func testTheChapterColumnKeepsWhatItIsGivenAndSkipsDamage() {
        let chapters = [Chapter(start: 0, title: "A"), Chapter(start: 5_000_000, title: "B: the \"end\"")]
        XCTAssertEqual(ChapterColumn.decode(ChapterColumn.encode(chapters)), chapters)
        XCTAssertNil(ChapterColumn.encode([]))
        XCTAssertEqual(ChapterColumn.decode("garbage\n7\tSeven\n\tno start"), [Chapter(start: 7, title: "Seven")])
        XCTAssertEqual(ChapterColumn.decode(nil), [])
    }
}
