import Foundation
import ReelCore
import ReelHarness
import ReelMPD
import ReelMPRIS
import XCTest

/// What a hostile or unlucky user feeds the daemon: FIFOs, playlists in
/// disguise, relative and option-like names.
final class HostileInputTests: DaemonTestCase {
    func testAFIFOIsRefusedAtTheEdge() throws {
        let fifo = home.appendingPathComponent("fifo.ogg")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        try startDaemon([media.tones[0]], ["--paused"])
        let message = assertError(MPRIS.errorInvalidURI) { try self.player("OpenUri", [.string(fifo.absoluteString)]) }
        XCTAssertTrue(message.contains("named pipe"), message)
        let (status, output) = try reel("add", fifo.path)
        XCTAssertEqual(status, 1)
        XCTAssertTrue(output.contains("named pipe"), output)
        XCTAssertEqual(try tracks().count, 1, "the queue is as it was")
    }

    func testALocalPlaylistIsQueuedAsItsEntries() throws {
        let list = home.appendingPathComponent("two.m3u")
        try "#EXTM3U\n\(media.tones[1].path)\nmissing.ogg\n\(media.tones[2].lastPathComponent)\n"
            .write(to: list, atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: media.tones[2], to: home.appendingPathComponent(media.tones[2].lastPathComponent))
        try startDaemon([media.tones[0]], ["--paused"])
        try player("OpenUri", [.string(list.absoluteString)])
        try waitForTitle("Tone 2")
        XCTAssertEqual(try tracks().count, 3, "tone 1, then the playlist's two playable entries")
        let titles = try call(MPRIS.trackList, "GetTracksMetadata", [.objectPaths(try tracks())]).first?.array?
            .compactMap { $0.dictionary?["xesam:url"]?.string }
        XCTAssertEqual(titles?.last, home.appendingPathComponent(media.tones[2].lastPathComponent).absoluteString)
    }

    func testAPlaylistDisguisedAsMediaFailsAndTheQueueMovesOn() throws {
        // m3u text in a .ogg: mpv would expand it behind the engine's back.
        let disguised = home.appendingPathComponent("disguised.ogg")
        try "#EXTM3U\n\(media.tones[3].path)\n".write(to: disguised, atomically: true, encoding: .utf8)
        try startDaemon([disguised, media.tones[1]])
        let error = try XCTUnwrap(waitForSignal {
            $0.member == "PropertiesChanged" && $0.changedProperties?["LastError"] != nil
        }?.changedProperties?["LastError"]?.string)
        XCTAssertTrue(error.contains("is a playlist"), error)
        try waitForTitle("Tone 2")
        listen(for: 0.5)
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 2", "mpv did not play the disguised playlist's entry")
        XCTAssertEqual(try tracks().count, 2, "nothing was added behind the engine's back")
    }

    func testLibraryAddOverDBusTakesOnlyAbsoluteNames() throws {
        try startDaemon()
        let message = assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            try self.call(MPRIS.reel, "LibraryAdd", [.strings(["-report", "plain.mp3"])])
        }
        XCTAssertTrue(message.contains("\"-report\""), message)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix("ffprobe-") }, [])
        // An option-like name given as it should be (absolute) is just a file.
        let named = home.appendingPathComponent("-report.ogg")
        try FileManager.default.copyItem(at: media.tones[0], to: named)
        let (status, output) = try reel("lib", "add", "--", named.path)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("added 1,"), output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home.path).filter { $0.hasPrefix("ffprobe-") }, [])
    }

    func testAHugeURIIsRefusedAndTheDaemonStaysOnTheBus() throws {
        try startDaemon([media.tones[0]], ["--paused"])
        let huge = "http://example.org/" + String(repeating: "a", count: 50 << 20)
        let message = assertError(MPRIS.errorInvalidURI) { try self.player("OpenUri", [.string(huge)]) }
        XCTAssertTrue(message.contains("too long") && message.utf8.count < 1000, String(message.prefix(300)))
        XCTAssertEqual(try tracks().count, 1)
        XCTAssertEqual(try status(), "Paused", "still on the bus")
    }

    func testHugeAddsAndSearchesAreRefusedAndReelAddSendsBatches() throws {
        try startDaemon([], ["--paused"])
        let many = Array(repeating: media.tones[0].absoluteString, count: 2_001)
        let message = assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            try self.call(MPRIS.reel, "Add", [.strings(many), .boolean(false)])
        }
        XCTAssertTrue(message.contains("at most 2000"), message)
        let search = assertError("org.freedesktop.DBus.Error.InvalidArgs") {
            try self.call(MPRIS.reel, "LibrarySearch", [.string(String(repeating: "word ", count: 40_000)), .uint32(0), .int32(-1)])
        }
        XCTAssertTrue(search.contains("too long"), search)
        XCTAssertEqual(try tracks().count, 0)
        // The CLI sends what it is given in calls the daemon takes.
        let (status, output) = try runTool(Binaries.reel, ["add"] + Array(repeating: media.tones[1].path, count: 2_500), timeout: 120)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("added 2500 entries"), output)
        XCTAssertEqual(try call(MPRIS.reel, "QueuePage", [.uint32(0), .int32(-1)]).first?.int64, 2_500)
    }

    func testPlaylistNamesAreCheckedAsTheMPDSideChecksThem() throws {
        try startWithMPD([media.tones[0]], ["--paused"])
        // (A D-Bus string cannot hold NUL, nor an MPD request line a line break.)
        for name in ["..", "a/b", "evil\u{202E}gpj.exe", "line\nbreak", "tab\tbed", String(repeating: "x", count: 256)] {
            assertError("org.freedesktop.DBus.Error.InvalidArgs") { try self.call(MPRIS.reel, "PlaylistSave", [.string(name)]) }
        }
        for name in ["..", "a/b", "evil\u{202E}gpj.exe", "nul\u{0}cut", "tab\tbed", String(repeating: "x", count: 256)] {
            XCTAssertEqual(try MPDClient(path: socketPath).command("save \(RequestLine.quote(name))").last,
                           "ACK [2@0] {save} Bad playlist name", name.debugDescription)
        }
        XCTAssertEqual(try call(MPRIS.reel, "PlaylistList").first?.array?.count, 0, "nothing was saved")
        try call(MPRIS.reel, "PlaylistSave", [.string("évening ♪")])
        XCTAssertEqual(try MPDClient(path: socketPath).command("listplaylists").first, "playlist: évening ♪")
    }

    func testNamesThatAreNotUTF8AreRefusedAndShownEscaped() throws {
        try startDaemon([media.tones[0]], ["--paused"])
        let message = assertError(MPRIS.errorInvalidURI) { try self.player("OpenUri", [.string("file:///tmp/%FF%FE.ogg")]) }
        XCTAssertTrue(message.contains("not valid UTF-8") && message.contains("%FF%FE"), message)
        // From the shell: the bytes \xFF\xFE reach reel as they are.
        let (status, output) = try runTool(URL(fileURLWithPath: "/bin/sh"),
                                           ["-c", "exec \"$0\" add \"$(printf '/tmp/\\377\\376.ogg')\"", Binaries.reel.path])
        XCTAssertEqual(status, 1)
        XCTAssertTrue(output.contains("not valid UTF-8: /tmp/\\xFF\\xFE.ogg"), output)
    }
}
