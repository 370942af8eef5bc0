import Foundation
import ReelDBus
import ReelHarness
import ReelMPRIS
import XCTest

/// The desktop file as `make install` writes it: valid, resolved by GIO,
/// and what a click on a media widget runs starts reeld once, never twice.
final class DesktopEntryTests: XCTestCase {
    var dir: URL!
    var bus: PrivateBus!
    var home: URL { dir.appendingPathComponent("home") }
    var applications: URL { dir.appendingPathComponent("applications") }
    var desktopFile: URL { applications.appendingPathComponent("reel.desktop") }

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-desktop-\(UUID().uuidString.prefix(8))")
        let services = dir.appendingPathComponent("services")
        for folder in [services, applications, home] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        // As make install writes them, with the build's binaries; the activated reeld gets a home of its own.
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/reel.desktop").standardized, encoding: .utf8)
        try source.replacingOccurrences(of: "@BINDIR@", with: Binaries.reeld.deletingLastPathComponent().path)
            .write(to: desktopFile, atomically: true, encoding: .utf8)
        try """
            [D-BUS Service]
            Name=org.mpris.MediaPlayer2.reel
            Exec=/usr/bin/env HOME=\(home.path) XDG_DATA_HOME=\(home.path)/data XDG_CACHE_HOME=\(home.path)/cache \
            XDG_CONFIG_HOME=\(home.path)/config \(Binaries.reeld.path) --ao null
            """.write(to: services.appendingPathComponent("org.mpris.MediaPlayer2.reel.service"), atomically: true, encoding: .utf8)
        bus = try PrivateBus(serviceDir: services)
    }

    override func tearDown() {
        // The activated reeld is the bus's child: ask it to quit, then let the bus go.
        if let connection = try? Connection(address: bus.address) {
            _ = try? connection.callMethod("org.mpris.MediaPlayer2.reel", MPRIS.objectPath, MPRIS.root, "Quit")
        }
        Thread.sleep(forTimeInterval: 0.3)
        bus = nil
        try? FileManager.default.removeItem(at: dir)
    }

    /// Children started, whose output (and that of what they launched) is read at the end.
    var children: [ChildProcess] = []

    func run(_ executable: String, _ args: [String]) throws -> (Int32, String) {
        let child = try ChildProcess(URL(fileURLWithPath: executable), args, busAddress: bus.address, home: home)
        children.append(child)
        guard let status = child.waitForExit(timeout: 30) else { child.stop(); throw TestFailure("\(executable) hung") }
        return (status, child.text)
    }

    /// reeld processes running the build's binary.
    func reelds() -> [Int32] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.compactMap(Int32.init).filter { pid in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == Binaries.reeld.path
                && ((try? String(contentsOfFile: "/proc/\(pid)/environ", encoding: .utf8)) ?? "").contains(home.path)
        }
    }

    func testTheInstalledEntryIsValidAndResolvedByGIO() throws {
        let (valid, said) = try run("/usr/bin/desktop-file-validate", [desktopFile.path])
        XCTAssertEqual(valid, 0, said)
        XCTAssertFalse(said.contains("error"), said)
        let (status, output) = try run("/usr/bin/python3", ["-c", """
            import gi, sys
            gi.require_version('Gio', '2.0')
            from gi.repository import Gio
            info = Gio.DesktopAppInfo.new_from_filename(sys.argv[1])
            print(info.get_executable() if info else 'UNRESOLVED')
            """, desktopFile.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertEqual(output.trimmingCharacters(in: .whitespacesAndNewlines), Binaries.reel.path)
    }

    func testAClickStartsReeldOnceAndNeverASecondOne() throws {
        XCTAssertEqual(reelds(), [])
        // What GNOME runs for a click on its media card: the entry's Exec line, through GIO.
        let launch = ["-c", """
            import gi, sys
            gi.require_version('Gio', '2.0')
            from gi.repository import Gio, GLib
            info = Gio.DesktopAppInfo.new_from_filename(sys.argv[1])
            ok = info.launch_uris_as_manager([], None, GLib.SpawnFlags.SEARCH_PATH | GLib.SpawnFlags.DO_NOT_REAP_CHILD, None, None, None, None)
            print('launched' if ok else 'failed')
            """, desktopFile.path]
        XCTAssertEqual(try run("/usr/bin/python3", launch).0, 0)
        let client = try Connection(address: bus.address)
        let deadline = Date().addingTimeInterval(10)
        func owned() -> Bool {
            (try? client.callMethod("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                                    [.string("org.mpris.MediaPlayer2.reel")]).first?.bool) == true
        }
        while !owned(), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(owned(), "the click did not start reeld")
        let first = reelds()
        XCTAssertEqual(first.count, 1)
        // Clicked again, and again with `reel start`: the same daemon, and no second one tried.
        XCTAssertEqual(try run("/usr/bin/python3", launch).0, 0)
        let (status, output) = try run(Binaries.reel.path, ["start"])
        XCTAssertEqual(status, 0, output)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(reelds(), first)
        // A second reeld would have said so, on the output it shares with what launched it.
        for child in children { XCTAssertFalse(child.text.contains("reeld"), child.text) }
    }
}
