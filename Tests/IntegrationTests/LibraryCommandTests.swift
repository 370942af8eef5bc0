import Foundation
import ReelDBus
import ReelHarness
import ReelCore
import ReelLibrary
import ReelMPRIS
import XCTest

/// `reel lib …`, `reel playlist …` and the MPRIS Playlists interface.
final class LibraryCommandTests: DaemonTestCase {
    /// A folder to import: tagged tones, a sub-folder with a cover, a broken
    /// file, a name that is not UTF-8, and a playlist with a missing entry.
    func makeFolder() throws -> URL {
        let dir = home.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("album"), withIntermediateDirectories: true)
        for (i, tone) in media.tones.prefix(3).enumerated() {
            try FileManager.default.copyItem(at: tone, to: dir.appendingPathComponent("0\(i + 1).ogg"))
        }
        try FileManager.default.copyItem(at: media.withCover, to: dir.appendingPathComponent("album/song.ogg"))
        try FileManager.default.copyItem(at: media.cover, to: dir.appendingPathComponent("album/cover.jpg"))
        try FileManager.default.copyItem(at: media.broken, to: dir.appendingPathComponent("broken.mp3"))
        // A file name that is not valid UTF-8 ("caf\xE9.ogg", Latin-1).
        let raw = Array(dir.path.utf8) + Array("/caf".utf8) + [0xE9] + Array(".ogg".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self),
                                                    O_CREAT | O_WRONLY, 0o644) }
        if fd >= 0 { close(fd) }
        try "#EXTM3U\n01.ogg\ngone.ogg\n".write(to: dir.appendingPathComponent("list.m3u"), atomically: true, encoding: .utf8)
        return dir
    }

    func testImportSearchAndPlay() throws {
        let dir = try makeFolder()
        try startDaemon()
        var (status, out) = try reel("lib", "add", dir.path, dir.appendingPathComponent("list.m3u").path)
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.hasPrefix("added 4, already known 0"), out)
        XCTAssertTrue(out.contains("broken.mp3: not readable as media"), out)
        XCTAssertTrue(out.contains("gone.ogg: no such file"), out)
        XCTAssertTrue(out.contains("caf"), "the odd name is reported, not fatal: \(out)")

        (_, out) = try reel("lib", "add", dir.path)
        XCTAssertTrue(out.hasPrefix("added 0, already known 4"), "re-adding is idempotent: \(out)")

        (_, out) = try reel("lib", "ls", "tone 2")
        XCTAssertEqual(out.split(separator: "\n").count, 1, out)
        XCTAssertTrue(out.contains("Tone 2 — Reel Test (Tones)  0:08"), out)

        (_, out) = try reel("lib", "ls", "--json")
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        XCTAssertEqual(items.count, 4)
        let song = try XCTUnwrap(items.first { ($0["localPath"] as? String)?.hasSuffix("album/song.ogg") == true })
        XCTAssertEqual(song["cover"] as? String, dir.appendingPathComponent("album/cover.jpg").path)
        XCTAssertEqual(song["duration"] as? Int, 8_000_000)

        (status, out) = try reel("lib", "play", "tone 3")
        XCTAssertEqual(out, "playing 1 item")
        try waitForTitle("Tone 3")
        try waitForStart()
        let id = try XCTUnwrap(items.first { $0["title"] as? String == "Tone 3" }?["id"] as? Int)
        (_, out) = try reel("lib", "info", String(id))
        XCTAssertTrue(out.contains("title      Tone 3"), out)

        (status, out) = try reel("lib", "rm", "9999")
        XCTAssertEqual(status, 1)
        XCTAssertTrue(out.contains("no item 9999"), out)
        XCTAssertEqual(try reel("lib", "rm", String(id)).0, 0)
        XCTAssertEqual(try reel("lib", "ls").1.split(separator: "\n").count, 3)
    }

    func testListingALargeLibraryStreamsInPages() throws {
        try startDaemon()
        // Items written straight into the daemon's library file, as another import would.
        let items = (0..<2_500).map { ProbedItem(title: "Track \($0)", artist: "Band \($0 % 7)", localPath: "/nowhere/\($0).ogg") }
        _ = try Library(path: libraryPath).addAll(items)
        let (status, out) = try reel("lib", "ls")
        XCTAssertEqual(status, 0)
        XCTAssertEqual(out.split(separator: "\n").count, 2_500)
        let (_, json) = try reel("lib", "ls", "--json", "--limit", "1500", "band")
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 1_500)
        XCTAssertEqual(Set(rows.compactMap { $0["id"] as? Int }).count, 1_500, "pages do not overlap")
    }

    func testImportShowsProgressOnATerminal() throws {
        try startDaemon()
        // script(1) gives reel a terminal, as a user at a shell would have.
        let command = "\(Binaries.reel.path) lib add \(media.dir.path)"
        let (status, out) = try runTool(URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command, "/dev/null"])
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.contains("importing ") && out.contains("files/s") && out.contains("ETA"), out)
        XCTAssertTrue(out.contains("added "), out)
    }

    func testPlaylistsThroughTheCLIAndMPRIS() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        XCTAssertEqual(try reel("playlist", "save", "two").1, "saved \"two\" (2 entries)")
        XCTAssertEqual(try get("PlaylistCount", MPRIS.playlists).int64, 1)
        try call(MPRIS.reel, "Clear")
        XCTAssertEqual(try tracks().count, 0)

        let lists = try call(MPRIS.playlists, "GetPlaylists",
                             [.uint32(0), .uint32(10), .string("Alphabetical"), .boolean(false)])
        guard case .structure(let fields)? = lists.first?.array?.first, let path = fields.first?.string else {
            return XCTFail("\(lists)")
        }
        XCTAssertEqual(fields[1].string, "two")
        try call(MPRIS.playlists, "ActivatePlaylist", [.objectPath(path)])
        try waitForTitle("Tone 1")
        XCTAssertEqual(try tracks().count, 2)
        guard case .structure(let active) = try get("ActivePlaylist", MPRIS.playlists) else { return XCTFail() }
        XCTAssertEqual(active.first?.bool, true)

        assertError(MPRIS.errorNoSuchPlaylist) { _ = try self.call(MPRIS.playlists, "ActivatePlaylist",
                                                                   [.objectPath("/dev/reel/Playlist/99")]) }
        assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            _ = try self.call(MPRIS.playlists, "GetPlaylists", [.uint32(0), .uint32(1), .string("Random"), .boolean(false)])
        }
        XCTAssertEqual(try reel("playlist", "load", "nope").0, 1)
        XCTAssertEqual(try reel("playlist", "ls").1, "two  (2)")
        XCTAssertEqual(try reel("playlist", "load", "two").1, "loaded \"two\" (2 entries)")
    }

    func testForgetPosition() throws {
        try startPlaying([media.long[0]])
        try seekCurrent(to: 25_000_000)
        try player("Pause")
        try waitForStatus("Paused")
        let item = try XCTUnwrap(call(MPRIS.reel, "LibrarySearch", [.string("long 1"), .uint32(0), .int32(-1)]).first?.array?.first?.dictionary)
        XCTAssertEqual(Double(try XCTUnwrap(item["position"]?.int64)), 25_000_000, accuracy: 200_000)
        XCTAssertEqual(try reel("lib", "forget-position", String(try XCTUnwrap(item["id"]?.int64))).0, 0)
        try player("OpenUri", [.string(media.long[0].absoluteString)])
        XCTAssertLessThan(try waitForStart(), 200_000, "starts from the beginning")
    }
}
