import Foundation
import ReelDBus
import ReelHarness
import ReelMPRIS
import XCTest

/// A server that stops sending halfway: the daemon stalls, and when the data
/// comes back a widget must be back in sync.
final class StallTests: DaemonTestCase {
    static let server = """
        import http.server, sys, time, os
        path = sys.argv[1]
        class Slow(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                data = open(path, 'rb').read()
                self.send_response(200)
                self.send_header('Content-Type', 'audio/ogg')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                cut = len(data) * 3 // 10
                self.wfile.write(data[:cut]); self.wfile.flush()
                time.sleep(2.5)
                self.wfile.write(data[cut:]); self.wfile.flush()
            def log_message(self, *a): pass
        s = http.server.HTTPServer(('127.0.0.1', 0), Slow)
        print('port', s.server_address[1], flush=True)
        s.serve_forever()
        """

    func testAfterABufferingStallTheWidgetIsBackInSync() throws {
        let script = home.appendingPathComponent("slow.py")
        try Self.server.write(to: script, atomically: true, encoding: .utf8)
        let server = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"), [script.path, media.tones[0].path],
                                      busAddress: nil, home: home)
        defer { server.stop() }
        guard let text = waitForOutput(server, "port"),
              let port = text.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) else {
            throw TestFailure("slow server did not start")
        }
        try startDaemon()
        try startWidget()
        try player("OpenUri", [.string("http://127.0.0.1:\(port)/tone1.ogg")])
        try waitForStart()
        // The stall ends with a Seeked that re-anchors the widget to the real position.
        XCTAssertNotNil(waitForSignal(timeout: 15) { $0.member == "Seeked" }, "no Seeked after the stall")
        try assertInSync(after: "the stall")
        XCTAssertTrue(daemon!.text.isEmpty || !daemon!.text.contains("cannot play"), daemon!.text)
    }
}
