import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

/// Servers that never answer, or stop answering halfway: the user is told at
/// once what playback waits for, and after the timeout why it failed.
final class NetworkFaultTests: DaemonTestCase {
    static let server = """
        import socket, sys
        mode, path = sys.argv[1], sys.argv[2]
        data = open(path, 'rb').read()
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', 0)); s.listen(16)
        print('port', s.getsockname()[1], flush=True)
        held = []
        while True:
            c, _ = s.accept(); held.append(c)
            if mode == 'stall':
                c.recv(65536)
                c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Type: audio/ogg\\r\\nContent-Length: %d\\r\\n\\r\\n' % len(data))
                c.sendall(data[:len(data) // 10])
        """
    var server: ChildProcess?

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    /// A server that accepts and then says nothing ("silent"), or sends a
    /// tenth of the file and stops ("stall"). Returns a URL on it.
    func serve(_ mode: String) throws -> String {
        let script = home.appendingPathComponent("faulty.py")
        try Self.server.write(to: script, atomically: true, encoding: .utf8)
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, mode, media.long[0].path],
                                     busAddress: nil, home: home)
        server = child
        return "http://127.0.0.1:\(try waitForPort(child))/long1.ogg"
    }

    func lastError(timeout: Double = 15) -> String? {
        waitForSignal(timeout: timeout) { $0.changedProperties?["LastError"]?.string?.isEmpty == false }?
            .changedProperties?["LastError"]?.string
    }

    func testASilentServerShowsConnectingAndTimesOutWithAClearError() throws {
        let url = try serve("silent")
        try startDaemon([], ["--network-timeout", "2"])
        try player("OpenUri", [.string(url)])
        XCTAssertEqual(try get("Activity", MPRIS.reel), .string("connecting to 127.0.0.1"))
        let (_, line) = try reel("status")
        XCTAssertTrue(line.contains("[connecting to 127.0.0.1…]"), line)
        let error = try XCTUnwrap(lastError())
        XCTAssertTrue(error.contains("timed out connecting to 127.0.0.1") && error.contains("no answer in 2 s"), error)
        XCTAssertEqual(try get("Activity", MPRIS.reel), .string(""))
        XCTAssertTrue(daemon!.process.isRunning)
    }

    func testAServerThatStopsHalfwayFailsTheEntryInsteadOfSkippingItSilently() throws {
        let url = try serve("stall")
        try startDaemon([], ["--network-timeout", "2"])
        try call(MPRIS.reel, "Add", [.strings([url, media.tones[1].absoluteString]), .boolean(true)])
        let error = try XCTUnwrap(lastError(timeout: 20))
        XCTAssertTrue(error.contains("stopped sending"), error)
        // Tone 2 may have been announced before LastError, while that was awaited: ask, then wait.
        if try metadata()["xesam:title"]?.string != "Tone 2" { try waitForTitle("Tone 2") }
    }

    func testHelpersStillRunningDieWithTheDaemon() throws {
        // Without the cache, the queued URL is probed with ffprobe, which waits on the silent server.
        let url = try serve("silent")
        let port = try XCTUnwrap(URL(string: url)?.port)
        try startDaemon([media.tones[0]], ["--paused", "--cache-size", "0"])
        XCTAssertEqual(try reel("add", url).0, 0)
        let deadline = Date().addingTimeInterval(5)
        while probes(port).isEmpty, Date() < deadline { listen(for: 0.05) }
        XCTAssertFalse(probes(port).isEmpty, "no ffprobe was waiting on the server")
        daemon?.process.terminate()
        XCTAssertEqual(daemon?.waitForExit(), 0)
        XCTAssertEqual(probes(port), [], "ffprobe outlived the daemon")
    }

    /// ffprobe processes reading from the port.
    func probes(_ port: Int) -> [String] {
        let procs = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return procs.compactMap { pid -> String? in
            guard Int(pid) != nil, let cmd = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8) else { return nil }
            return cmd.hasPrefix("/usr/bin/ffprobe") && cmd.contains(":\(port)/") ? pid : nil
        }
    }
}
