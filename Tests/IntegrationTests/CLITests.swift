import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

/// The `reel` client against the real daemon.
final class CLITests: DaemonTestCase {
    func testWithoutADaemonItSaysSoAndFails() throws {
        let (status, out) = try reel("status")
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(out.contains("no reel daemon is running"), out)
    }

    func testStatusQueueAndControl() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        var (status, out) = try reel("status")
        XCTAssertEqual(status, 0)
        XCTAssertTrue(out.hasPrefix("Playing  Tone 1 — Reel Test  0:0"), out)
        let lines = out.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasSuffix("/0:08") == true, out)
        XCTAssertEqual(lines.last, "MPD protocol on \(socketPath)", "where else it listens")

        // Entry 2 is titled by its name until the background probe has read its tags.
        let deadline = Date().addingTimeInterval(5)
        repeat { (status, out) = try reel("queue") } while out.contains("tone2.ogg") && Date() < deadline
        XCTAssertEqual(out.split(separator: "\n").map(String.init), ["* 1  Tone 1 — Reel Test  0:08", "  2  Tone 2 — Reel Test  0:08"])

        XCTAssertEqual(try reel("pause").0, 0)
        try waitForStatus("Paused")
        XCTAssertEqual(try reel("seek", "0:05").0, 0)
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        XCTAssertEqual(try position(), 5_000_000)
        XCTAssertEqual(try reel("seek", "-1.5").0, 0)
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        XCTAssertEqual(try position(), 3_500_000)

        (status, out) = try reel("status", "--json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        XCTAssertEqual(json["status"] as? String, "Paused")
        XCTAssertEqual(json["position"] as? Int, 3_500_000)
        XCTAssertEqual(json["length"] as? Int, 8_000_000)
        XCTAssertEqual(json["title"] as? String, "Tone 1")
        XCTAssertEqual(json["controlAddresses"] as? [String], ["mpd:" + socketPath])

        XCTAssertEqual(try reel("add", media.tones[2].path).1, "added 1 entry")
        XCTAssertEqual(try reel("goto", "3").0, 0)
        try waitForTitle("Tone 3")
        XCTAssertEqual(try reel("rm", "1").0, 0)
        XCTAssertEqual(try tracks().count, 2)
        XCTAssertEqual(try reel("rate", "1.25").0, 0)
        XCTAssertEqual(try get("Rate").double, 1.25)
        XCTAssertEqual(try reel("volume", "0.5").0, 0)
        XCTAssertEqual(try reel("loop", "track").0, 0)
        XCTAssertEqual(try get("LoopStatus").string, "Track")
        XCTAssertEqual(try reel("shuffle", "on").0, 0)
        XCTAssertEqual(try get("Shuffle").bool, true)

        (status, out) = try reel("queue", "--json")
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows.filter { $0["current"] as? Bool == true }.first?["title"] as? String, "Tone 3")

        XCTAssertEqual(try reel("clear").0, 0)
        XCTAssertEqual(try reel("status").1.split(separator: "\n").first, "Stopped  (nothing queued)")
    }

    func testErrorsAreClearAndNonZero() throws {
        try startDaemon([media.tones[0]])
        var (status, out) = try reel("add", "/no/such/file.ogg")
        XCTAssertEqual(status, 1)
        XCTAssertTrue(out.contains("no such file: /no/such/file.ogg"), out)
        (status, out) = try reel("goto", "9")
        XCTAssertEqual(status, 1)
        XCTAssertTrue(out.contains("no entry 9"), out)
        (status, out) = try reel("rate", "-2")
        XCTAssertEqual(status, 1)
        XCTAssertTrue(out.contains("Rate"), out)
        (status, _) = try reel("dance")
        XCTAssertEqual(status, 2)
        XCTAssertEqual(try tracks().count, 1)
    }

    func testStatusShowsTheLastError() throws {
        try startDaemon([media.broken, media.tones[0]])
        try waitForStart()
        let (_, out) = try reel("status")
        XCTAssertTrue(out.contains("[error: broken.ogg:"), out)
    }

    func testFollowPrintsALinePerChange() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        let follow = try ChildProcess(Binaries.reel, ["status", "--follow"], busAddress: bus.address, home: home)
        defer { follow.stop() }
        XCTAssertNotNil(waitForOutput(follow, "Playing  Tone 1"))
        try player("Pause")
        XCTAssertNotNil(waitForOutput(follow, "Paused  Tone 1"))
        try player("Next")
        XCTAssertNotNil(waitForOutput(follow, "Paused  Tone 2"))
        try call(MPRIS.root, "Quit")
        XCTAssertNotNil(follow.waitForExit())
        XCTAssertTrue(follow.text.contains("daemon stopped"), follow.text)
    }
}

extension CLITests {
    /// reel config check reads reeld.conf as reeld does, with no daemon and no bus.
    func testConfigCheckNamesEachBadLineWithoutADaemon() throws {
        let file = home.appendingPathComponent("config/reel/reeld.conf")
        var (status, out) = try reel("config", "check")
        XCTAssertEqual(status, 0, out)
        XCTAssertTrue(out.hasSuffix("does not exist: reeld runs with its defaults"), out)

        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "ao = pulse\ncache-size = 1G  # a comment\n".write(to: file, atomically: true, encoding: .utf8)
        (status, out) = try reel("config", "check")
        XCTAssertEqual(status, 0, out)
        XCTAssertEqual(out, "\(file.path): ok")

        try "ao = pulse\nvolume = 11\nreadahead = 1K\nmpd-listen = 0.0.0.0:6600\n".write(to: file, atomically: true, encoding: .utf8)
        (status, out) = try reel("config", "check", file.path)
        XCTAssertEqual(status, 1, out)
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, out)
        XCTAssertTrue(lines[0].hasPrefix("\(file.path):2: unknown setting volume (known: ao,"), out)
        XCTAssertEqual(lines[1], "\(file.path):3: bad value for readahead: 1K (needs a size of at least 64K, such as 512K or 4M)")
        XCTAssertTrue(lines[2].contains("would reach other machines without a password"), out)

        (status, out) = try reel("config", "check", home.appendingPathComponent("nonexistent.conf").path)
        XCTAssertEqual(status, 1)
        XCTAssertTrue(out.hasSuffix("nonexistent.conf: cannot be read"), out)
        XCTAssertNil(daemon, "no daemon was needed")
    }
}
