import Foundation
import ReelHarness
import XCTest

/// ncmpcpp 0.9.2 on a terminal (tmux), pointed at reel's MPD socket: its media library shows the
/// artists and, for the first, its album with its year, as it does with MPD; and it does not
/// spin (it re-sent a refused request 107,529 times in 7 s before reel accepted MPD's tag names).
final class NcmpcppTests: DaemonTestCase {
    var tmuxSocket: String { "reel-test-\(getpid())" }

    override func tearDown() {
        _ = try? tmux(["kill-server"])
        super.tearDown()
    }

    @discardableResult
    func tmux(_ args: [String]) throws -> String {
        // Through python's subprocess, which closes every other descriptor in its child: the tmux
        // server that `new-session` leaves running would otherwise keep one Foundation's Process
        // watches, and the command would never be seen to end.
        let run = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], close_fds=True).returncode)"
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                     ["-c", run, "/usr/bin/tmux", "-L", tmuxSocket, "-f", "/dev/null"] + args,
                                     busAddress: bus.address, home: home, environment: ["HOME": home.path, "TERM": "xterm-256color"])
        guard child.waitForExit(timeout: 10) == 0 else { throw TestFailure("tmux \(args) failed: \(child.text)") }
        return child.text
    }

    /// Waits until the screen shows every text, and returns it.
    func screen(showing texts: [String], timeout: Double = 10) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var shown = ""
        while Date() < deadline {
            shown = try tmux(["capture-pane", "-p", "-t", "reel"])
            if texts.allSatisfy(shown.contains) { return shown }
            listen(for: 0.1)
        }
        // Box-drawing characters and blank rows left out: XCTest drops a message it cannot print.
        let rows = shown.split(separator: "\n").map { String($0.unicodeScalars.filter { $0.isASCII || $0.properties.isAlphabetic }) }
        throw TestFailure("ncmpcpp's screen lacks \(texts.filter { !shown.contains($0) }):\n"
                          + rows.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.joined(separator: "\n"))
    }

    /// CPU seconds the daemon has used.
    func daemonCPU() throws -> Double {
        let pid = try XCTUnwrap(daemon?.process.processIdentifier)
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ") ")!.upperBound...].split(separator: " ")
        return (Double(fields[11])! + Double(fields[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// reeld on the tagged library, updated, and ncmpcpp in tmux on its playlist screen; `config`:
    /// ncmpcpp's own.
    func startNcmpcpp(config: String = "") throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ncmpcpp"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else { throw XCTSkip("ncmpcpp or tmux is not installed (make deps)") }
        let music = home.appendingPathComponent("music")
        try makeTaggedLibrary(music)
        try startWithMPD([], ["--music-dir", music.path])
        try updateAndWait(try connect(socketPath))
        // ncmpcpp reads $XDG_CONFIG_HOME/ncmpcpp/config (the test's) and ~/.ncmpcpp/config; an option in both is an error.
        let folder = home.appendingPathComponent("config/ncmpcpp")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try config.write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        try tmux(["new-session", "-d", "-s", "reel", "-x", "120", "-y", "40", "ncmpcpp --host \(socketPath)"])
        _ = try screen(showing: ["Playlist"])
    }

    func testCompilationsAreUnderTheirAlbumArtist() throws {
        try startNcmpcpp(config: "media_library_primary_tag = album_artist\n")
        try tmux(["send-keys", "-t", "reel", "4"])
        let artists = try screen(showing: ["Album Artists", "Abba", "Various Artists"])
        XCTAssertFalse(artists.contains("Zed"), "the compilation's track artists are under its album artist:\n\(artists)")
        try tmux(["send-keys", "-t", "reel", "Down", "Down"])   // past the empty one and Abba
        _ = try screen(showing: ["(2001) Hits", "One", "Two"])
    }

    func testTheMediaLibraryShowsArtistsAlbumsAndYearsWithoutSpinning() throws {
        try startNcmpcpp()
        try tmux(["send-keys", "-t", "reel", "4"])   // the media library: artists, the first's albums, their songs
        _ = try screen(showing: ["Artists", "Abba", "Zed", "Ärzte", "<no album>"])
        // The first artist is the empty one (songs without an artist), as with MPD; the next is Abba.
        try tmux(["send-keys", "-t", "reel", "Down"])
        _ = try screen(showing: ["(1992) Gold", "Dancing Queen", "Waterloo"])

        // Left on the media library, it asks nothing more (it looped on a refusal before).
        let before = try daemonCPU()
        listen(for: 2)
        let used = try daemonCPU() - before
        XCTAssertLessThan(used, 0.5, "reeld used \(used) s of CPU in 2 s with ncmpcpp idle on the media library")
        try tmux(["send-keys", "-t", "reel", "q"])
    }
}
