import Foundation
import ReelCore
import ReelHarness
import XCTest

/// Client programs people point at an MPD server: ncmpc on a terminal, and
/// snapserver's control script `meta_mpd.py`.
final class MPDClientAppTests: DaemonTestCase {
    /// A tone tagged with a title only: meta_mpd.py asks MusicBrainz (on the
    /// internet) for the cover of anything with an artist, and tests run offline.
    func titleOnlyTone() throws -> URL {
        let url = home.appendingPathComponent("snap.ogg")
        try Tones.make(url, frequency: 500, seconds: 30, tags: ["title": "Snap Title"])
        return url
    }

    func testNcmpcConnectsAndShowsTheCurrentTitle() throws {
        try startWithMPD([try titleOnlyTone()])
        try waitForStart()
        // ncmpc needs a terminal: script(1) gives it one, and records the screen.
        let screen = home.appendingPathComponent("ncmpc.screen")
        let ncmpc = try ChildProcess(URL(fileURLWithPath: "/usr/bin/script"),
                                     ["-qfec", "ncmpc --host=\(socketPath)", screen.path],
                                     busAddress: bus.address, home: home, environment: ["TERM": "xterm", "COLUMNS": "100", "LINES": "30"])
        defer { ncmpc.stop() }
        let deadline = Date().addingTimeInterval(10)
        var shown = ""
        while Date() < deadline {
            shown = (try? String(decoding: Data(contentsOf: screen), as: UTF8.self)) ?? ""
            if shown.contains("Snap Title") { break }
            listen(for: 0.05)
        }
        XCTAssertTrue(shown.contains("Snap Title"), "ncmpc's screen:\n\(shown.suffix(2000))")
        XCTAssertFalse(shown.lowercased().contains("version"), "ncmpc 0.47 accepts the protocol version")
    }

    func testSnapserversControlScriptReportsTheTitleAndControlsReel() throws {
        try startWithMPD([try titleOnlyTone()])
        try waitForStart()
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        script.arguments = ["/usr/share/snapserver/plug-ins/meta_mpd.py", "--mpd-host=\(socketPath)", "--stream=reel"]
        let input = Pipe(), output = Pipe()
        script.standardInput = input
        script.standardOutput = output
        script.standardError = FileHandle.nullDevice
        try script.run()
        defer { script.terminate(); script.waitUntilExit() }
        let lines = LineReader(output.fileHandleForReading)

        // What snapserver would put in its status for the stream.
        let properties = try XCTUnwrap(lines.first(timeout: 10) { $0.contains("Plugin.Stream.Player.Properties") && $0.contains("metadata") })
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(properties.utf8)) as? [String: Any])
        let params = try XCTUnwrap(json["params"] as? [String: Any])
        XCTAssertEqual((params["metadata"] as? [String: Any])?["title"] as? String, "Snap Title")
        XCTAssertEqual(params["playbackStatus"] as? String, "playing")

        // Stream.Control, as snapserver passes it on.
        func control(_ command: String, _ extra: String = "") {
            let params = extra.isEmpty ? "{\"command\":\"\(command)\"}" : "{\"command\":\"\(command)\",\"params\":{\(extra)}}"
            input.fileHandleForWriting.write(Data("{\"jsonrpc\":\"2.0\",\"method\":\"Plugin.Stream.Player.Control\",\"params\":\(params),\"id\":1}\n".utf8))
        }
        control("pause")
        try waitForStatus("Paused")
        control("setPosition", "\"position\":12.5")
        let seeked = waitForSignal { $0.member == "Seeked" }
        XCTAssertEqual(seeked?.arguments.first?.int64, 12_500_000)
        control("play")
        try waitForStatus("Playing")
        XCTAssertNotNil(lines.first(timeout: 10) { $0.contains("\"playbackStatus\": \"playing\"") })
    }
}

/// Lines of a pipe, read on a thread of their own.
final class LineReader: @unchecked Sendable {   // lines and done are guarded by `condition`
    private var lines: [String] = []
    private let condition = NSCondition()

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending += chunk
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending = pending[(newline + 1)...]
                    condition.lock(); lines.append(line); condition.broadcast(); condition.unlock()
                }
            }
        }
    }

    /// The first line (from those not yet taken) that matches; it and those before it are taken.
    func first(timeout: Double, where match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let i = lines.firstIndex(where: match) {
                let hit = lines[i]
                lines.removeFirst(i + 1)
                return hit
            }
            guard condition.wait(until: deadline) else { return nil }
        }
    }
}
