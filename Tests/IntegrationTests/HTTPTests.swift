import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

/// http(s) media, served by a real HTTP server on 127.0.0.1.
final class HTTPTests: DaemonTestCase {
    var server: ChildProcess?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    /// Serves the media directory; returns the base URL.
    func serveMedia() throws -> String {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                     ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", media.dir.path, "0"],
                                     busAddress: nil, home: home)
        server = child
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let range = child.text.range(of: #"port (\d+)"#, options: .regularExpression) {
                return "http://127.0.0.1:\(child.text[range].dropFirst(5))"
            }
            listen(for: 0.02)
        }
        throw TestFailure("the HTTP server did not start: \(child.text)")
    }

    func testPlaysHTTPAndReportsAFailingServer() throws {
        let base = try serveMedia()
        try startDaemon()
        try player("OpenUri", [.string("\(base)/tone1.ogg")])
        try waitForTitle("Tone 1")
        try waitForStart()
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try metadata()["xesam:url"]?.string, "\(base)/tone1.ogg")

        try call(MPRIS.reel, "Add", [.strings(["\(base)/missing.ogg", "\(base)/tone2.ogg"]), .boolean(false)])
        try player("Next")
        let error = try XCTUnwrap(waitForSignal {
            $0.member == "PropertiesChanged" && $0.changedProperties?["LastError"] != nil
        }?.changedProperties?["LastError"]?.string)
        XCTAssertTrue(error.contains("missing.ogg") && error.contains("404"), error)
        try waitForTitle("Tone 2")
        XCTAssertEqual(try tracks().count, 3)
        XCTAssertTrue(daemon!.process.isRunning)
    }

    func testAPlaylistServedOverHTTPFailsInsteadOfPlayingBehindTheQueue() throws {
        // An m3u served under a media name: mpv would expand it by its content.
        try "#EXTM3U\n\(media.tones[3].absoluteString)\n".write(to: media.dir.appendingPathComponent("served-list.ogg"),
                                                               atomically: true, encoding: .utf8)
        let base = try serveMedia()
        try startDaemon()
        try call(MPRIS.reel, "Add", [.strings(["\(base)/served-list.ogg", media.tones[1].absoluteString]), .boolean(true)])
        let error = try XCTUnwrap(waitForSignal {
            $0.member == "PropertiesChanged" && $0.changedProperties?["LastError"] != nil
        }?.changedProperties?["LastError"]?.string)
        XCTAssertTrue(error.contains("is a playlist"), error)
        try waitForTitle("Tone 2")
        XCTAssertEqual(try tracks().count, 2, "nothing was added behind the queue")
    }
}
