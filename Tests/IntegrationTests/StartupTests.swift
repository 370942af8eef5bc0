import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

final class StartupTests: DaemonTestCase {
    func testOwnsTheMPRISNameAndServesTheRootInterface() throws {
        try startDaemon()
        XCTAssertEqual(try get("Identity", MPRIS.root).string, "reel")
        XCTAssertEqual(try get("DesktopEntry", MPRIS.root).string, "reel")
        XCTAssertEqual(try get("CanQuit", MPRIS.root).bool, true)
        XCTAssertEqual(try get("CanRaise", MPRIS.root).bool, false)
        XCTAssertEqual(try get("HasTrackList", MPRIS.root).bool, true)
        XCTAssertEqual(try get("SupportedUriSchemes", MPRIS.root).stringArray, ["file", "http", "https"])
        let mimes = try XCTUnwrap(get("SupportedMimeTypes", MPRIS.root).stringArray)
        XCTAssertTrue(mimes.contains("audio/mpeg") && mimes.contains("audio/ogg") && mimes.contains("video/mp4"))
        XCTAssertEqual(try status(), "Stopped")
        XCTAssertEqual(try trackID(), MPRIS.noTrack)
        XCTAssertEqual(try get("CanPlay").bool, false, "nothing to play in an empty queue")
        XCTAssertEqual(try get("CanControl").bool, true)
        XCTAssertLessThanOrEqual(try XCTUnwrap(get("MinimumRate").double), 0.25)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(get("MaximumRate").double), 4.0)
    }

    func testIntrospectReturnsTheInterfaceFileVerbatim() throws {
        try startDaemon()
        let served = try call("org.freedesktop.DBus.Introspectable", "Introspect").first?.string
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../dbus/org.mpris.MediaPlayer2.reel.xml")
        XCTAssertEqual(served, try String(contentsOf: file, encoding: .utf8))
        // The nodes above lead down to it.
        let root = try client.callMethod(Self.name, "/", "org.freedesktop.DBus.Introspectable", "Introspect")
        XCTAssertTrue(root.first?.string?.contains("<node name=\"org\"/>") == true)
    }

    func testArgumentsAreQueuedAndTheFirstPlays() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        XCTAssertEqual(try status(), "Playing")
        XCTAssertEqual(try tracks().count, 2)
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 1")
    }

    func testThePlayingDaemonLoadsNeitherFoundationNorICU() throws {
        // Full Foundation brings ICU and its data: several MB a media player has no use for
        // (reeld uses FoundationEssentials only; feeds go through libxml2 directly).
        try startPlaying([media.tones[0]])
        let pid = try XCTUnwrap(daemon?.process.processIdentifier)
        // /proc files say they are empty: read them to their end.
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let libraries = Set(maps.split(separator: "\n").compactMap { $0.split(separator: "/").last.map(String.init) })
        for heavy in ["libFoundation.so", "lib_FoundationICU.so", "libFoundationInternationalization.so", "libFoundationXML.so"] {
            XCTAssertFalse(libraries.contains(heavy), "reeld maps \(heavy)")
        }
        XCTAssertTrue(libraries.contains { $0.hasPrefix("libmpv") }, "the check reads the right process")
    }

    func testPausedOptionLoadsWithoutPlaying() throws {
        try startDaemon([media.tones[0]], ["--paused"])
        try waitForStart()
        XCTAssertEqual(try status(), "Paused")
        XCTAssertEqual(try metadata()["xesam:title"]?.string, "Tone 1")
        XCTAssertEqual(try position(), 0)
    }

    func testAMissingFileArgumentIsSkippedWithAMessage() throws {
        let child = try startDaemon([media.dir.appendingPathComponent("nope.ogg"), media.tones[0]])
        try waitForStart()
        XCTAssertEqual(try tracks().count, 1)
        XCTAssertTrue(child.text.contains("nope.ogg"), child.text)
    }

    func testASecondDaemonSaysTheNameIsTakenAndExits1() throws {
        try startDaemon()
        let second = try ChildProcess(Binaries.reeld, ["--ao", "null"], busAddress: bus.address, home: home)
        XCTAssertEqual(second.waitForExit(), 1)
        XCTAssertTrue(second.text.contains("already owned"), second.text)
        XCTAssertEqual(second.text.split(separator: "\n").count, 1, "one clear line: \(second.text)")
        // --instance takes a name of its own.
        let third = try ChildProcess(Binaries.reeld, ["--ao", "null", "--instance"], busAddress: bus.address, home: home)
        defer { third.stop() }
        let name = "\(MPRIS.busName).instance\(third.process.processIdentifier)"
        let owned = waitForSignal { $0.member == "NameOwnerChanged" && $0.arguments.first?.string == name }
        XCTAssertNotNil(owned)
    }

    func testWithoutASessionBusItSaysSoAndExits1() throws {
        let child = try ChildProcess(Binaries.reeld, ["--ao", "null"], busAddress: "unix:path=\(home.path)/no-such-bus",
                                     home: home)
        XCTAssertEqual(child.waitForExit(), 1)
        XCTAssertTrue(child.text.contains("session bus"), child.text)
        XCTAssertEqual(child.text.split(separator: "\n").count, 1, child.text)
    }

    func testSIGTERMAndSIGINTEndItCleanly() throws {
        for sig in [SIGTERM, SIGINT] {
            let child = try startDaemon([media.tones[0]])
            kill(child.process.processIdentifier, sig)
            XCTAssertEqual(child.waitForExit(), 0)
            XCTAssertEqual(child.process.terminationReason, .exit)
            // The name is released, so the next start can take it.
            XCTAssertNotNil(waitForSignal { $0.member == "NameOwnerChanged" && $0.arguments.last?.string == "" })
        }
    }

    func testQuitEndsItCleanly() throws {
        let child = try startDaemon()
        try call(MPRIS.root, "Quit")
        XCTAssertEqual(child.waitForExit(), 0)
    }

    func testHelpAndVersion() throws {
        let help = try ChildProcess(Binaries.reeld, ["--help"], busAddress: nil, home: home)
        XCTAssertEqual(help.waitForExit(), 0)
        XCTAssertTrue(help.text.contains("--ao NAME") && help.text.contains("--paused") && help.text.contains("--video"))
        let version = try ChildProcess(Binaries.reeld, ["--version"], busAddress: nil, home: home)
        XCTAssertEqual(version.waitForExit(), 0)
        XCTAssertTrue(version.text.hasPrefix("reeld "))
        let bad = try ChildProcess(Binaries.reeld, ["--frobnicate"], busAddress: nil, home: home)
        XCTAssertEqual(bad.waitForExit(), 2)
    }
}

extension StartupTests {
    func testTheConfigFileSetsDefaultsAndReportsBadLines() throws {
        let dir = home.appendingPathComponent("config/reel")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // ao = nonsense would stop libmpv from playing; --ao null on the command line must win.
        try "# reel\nao = nonsense\nvolume = 11\nvideo = maybe\n".write(to: dir.appendingPathComponent("reeld.conf"),
                                                                        atomically: true, encoding: .utf8)
        let child = try startDaemon([media.tones[0]])
        try waitForStart()
        XCTAssertEqual(try status(), "Playing")
        XCTAssertTrue(child.text.contains("reeld.conf:3: unknown setting volume"), child.text)
        XCTAssertTrue(child.text.contains("reeld.conf:4: bad value for video"), child.text)
    }
}
