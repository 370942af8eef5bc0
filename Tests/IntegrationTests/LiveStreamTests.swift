import Foundation
import ReelDBus
import ReelHarness
import ReelMPRIS
import XCTest

/// Internet radio against the origin's stations: a listener is one
/// connection, never a loop; SHOUTcast v1; a silent station; live streams
/// and playlists refused as downloads.
final class LiveStreamTests: OriginTestCase {
    func serveRadio() throws {
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libmp3lame", "-b:a", "128k",
                          served.appendingPathComponent("radio.mp3").path])
    }

    /// Serves the station with `title` as its StreamTitle (and a drop after `dropAfter` bytes), then starts reeld.
    func startStation(title: String, once: Bool = false, dropAfter: Int? = nil) throws {
        try serveRadio()
        var control = Origin.Control()
        control.icyTitle = title
        control.icyTitleOnce = once
        control.dropAfter = dropAfter
        try origin.set(control)
        try startDaemon()
    }

    func requests(_ path: String) -> Int { origin.requests.filter { $0.hasPrefix("/\(path) ") }.count }

    func waitForStationTitle(_ title: String, timeout: Double = 15) -> [String: DBusValue]? {
        waitForSignal(timeout: timeout) { $0.changedProperties?["Metadata"]?.dictionary?["xesam:title"]?.string == title }?
            .changedProperties?["Metadata"]?.dictionary
    }

    func testAStationIsOneConnectionWhilePlayingAndNoneAfterStopAndClear() throws {
        try startStation(title: "Band - Song")
        XCTAssertEqual(try reel("add", origin.url("live/radio.mp3")).0, 0)
        XCTAssertEqual(try reel("play").0, 0)
        let metadata = try XCTUnwrap(waitForStationTitle("Song"), "no ICY title")
        XCTAssertEqual(metadata["reel:station"]?.string, "Reel Radio")
        listen(for: 10)
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(requests("live/radio.mp3"), 1, origin.requests.joined(separator: "\n"))
        XCTAssertEqual(try reel("stop").0, 0)
        XCTAssertEqual(try reel("clear").0, 0)
        listen(for: 3)
        XCTAssertEqual(requests("live/radio.mp3"), 1, origin.requests.joined(separator: "\n"))
        XCTAssertEqual(try lastError(), "")

        // Played again: one more connection, with no probe before it.
        try player("OpenUri", [.string(origin.url("live/radio.mp3"))])
        XCTAssertNotNil(waitForStationTitle("Song"))
        listen(for: 1)
        XCTAssertEqual(requests("live/radio.mp3"), 2, origin.requests.joined(separator: "\n"))
    }

    func testATitleSentOnceAtTuneInIsShownAndStays() throws {
        // Icecast sends a title when it changes and empty blocks between: the first one must not be lost.
        try startStation(title: "Steady - Song", once: true)
        try player("OpenUri", [.string(origin.url("live/radio.mp3"))])
        let shown = try XCTUnwrap(waitForStationTitle("Song"), "the tune-in title never shown: \(daemon!.text)")
        XCTAssertEqual(shown["xesam:artist"]?.stringArray, ["Steady"])
        listen(for: 2)
        let now = try self.metadata()
        XCTAssertEqual(now["xesam:title"]?.string, "Song", "the title was replaced after tune-in")
    }

    func testADroppedStationReconnectsOnceAndPlaysOn() throws {
        try startStation(title: "Band - Song", dropAfter: 40_000)
        try player("OpenUri", [.string(origin.url("live/radio.mp3"))])
        XCTAssertNotNil(waitForStationTitle("Song"))
        let deadline = Date().addingTimeInterval(10)
        while requests("live/radio.mp3") < 2, Date() < deadline { listen(for: 0.1) }
        listen(for: 3)
        XCTAssertEqual(requests("live/radio.mp3"), 2, origin.requests.joined(separator: "\n"))
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try lastError(), "")
    }

    func testAShoutcastV1StationPlays() throws {
        try startStation(title: "Old - School")
        try player("OpenUri", [.string(origin.url("shoutcast/radio.mp3"))])
        let metadata = try XCTUnwrap(waitForStationTitle("School"), "no title from a SHOUTcast v1 station: \(daemon!.text)")
        XCTAssertEqual(metadata["xesam:artist"]?.stringArray, ["Old"])
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(requests("shoutcast/radio.mp3"), 1)
    }

    func testAStationThatSendsNoAudioFailsAtTheTimeoutWithItsReason() throws {
        try serveRadio()
        try startDaemon([], ["--network-timeout", "2"])
        let started = Date()
        try player("OpenUri", [.string(origin.url("silent/radio.mp3"))])
        let error = try XCTUnwrap(waitForSignal(timeout: 15) {
            $0.changedProperties?["LastError"]?.string?.isEmpty == false
        }?.changedProperties?["LastError"]?.string)
        XCTAssertTrue(error.hasSuffix(": no audio from 127.0.0.1 in 2 s"), error)
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "the timeout took longer than it says")
        XCTAssertEqual(requests("silent/radio.mp3"), 1)
    }

    func testALiveStreamOrAPlaylistCannotBeDownloadedAndIsAskedForOnce() throws {
        try serveRadio()
        try "\(origin.url("a.wav"))\n".write(to: served.appendingPathComponent("list.m3u"), atomically: true, encoding: .utf8)
        try startDaemon()
        let (status, output) = try reel("download", origin.url("live/radio.mp3"))
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("is a live stream"), output)
        let (listStatus, listOutput) = try reel("download", origin.url("list.m3u"))
        XCTAssertNotEqual(listStatus, 0)
        XCTAssertTrue(listOutput.contains("is a playlist"), listOutput)
        listen(for: 2)
        XCTAssertEqual(requests("live/radio.mp3"), 1, origin.requests.joined(separator: "\n"))
        XCTAssertEqual(requests("list.m3u"), 1, origin.requests.joined(separator: "\n"))
        let listed = try reel("cache", "ls").1
        XCTAssertTrue(listed.contains("radio.mp3  download failed: \(origin.url("live/radio.mp3")) is a live stream"), listed)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("cache/reel/http").path)
            .filter { $0.hasSuffix(".data") }, [], "bytes kept of a live stream")
    }
}

extension LiveStreamTests {
    func testAStationAfterAnMP3ShowsItsTitleNoLengthAndItsOwnTime() throws {
        try stationAfterAnMP3([])
    }

    func testAStationAfterAnMP3ShowsItsTitleNoLengthAndItsOwnTimeWithoutTheCache() throws {
        try stationAfterAnMP3(["--cache-size", "0"])
    }

    func stationAfterAnMP3(_ options: [String]) throws {
        try serveRadio()
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=660:duration=3", "-c:a", "libmp3lame", "-b:a", "128k",
                          served.appendingPathComponent("song.mp3").path])
        var control = Origin.Control()
        control.icyTitle = "Band - Tune"
        control.icyTitleOnce = true
        try origin.set(control)
        try startWithMPD([], options)
        try mpc("add", origin.url("song.mp3"))
        try mpc("add", origin.url("live/radio.mp3"))
        try mpc("play")
        // The station follows gaplessly; its stream (and its one title) opened before it started.
        let shown = try XCTUnwrap(waitForStationTitle("Tune", timeout: 10), "the station's title never shown: \(daemon!.text)")
        XCTAssertNil(shown["mpris:length"], "a station has no length")
        XCTAssertLessThan(try position(), 1_500_000, "the position of the song ran on into the station")
        let status = try MPDClient(path: socketPath).pairs("status")
        XCTAssertEqual(status["song"], "1")
        XCTAssertNil(status["duration"], "\(status)")
        XCTAssertEqual(status["time"]?.split(separator: ":").last, "0", "\(status)")
        XCTAssertLessThan(Double(status["elapsed"] ?? "") ?? 99, 1.5, "\(status)")
        let song = try MPDClient(path: socketPath).pairs("currentsong")
        XCTAssertEqual(song["Title"], "Band - Tune", "\(song)")
        XCTAssertNil(song["Time"], "\(song)")
    }
}
