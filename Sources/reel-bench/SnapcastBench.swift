import Foundation
import ReelCore
import ReelHarness
import ReelSystem

/// Snapcast: reeld and MPD 0.23 each feeding a private snapserver (its pipe
/// source, buffer 1000 ms, FLAC, meta_mpd.py as its control script) and one
/// snapclient room recorded. Both are driven and read over the MPD protocol
/// (`elapsed` is what each says is playing), the same way.
struct SnapcastBench {
    let dir: URL

    struct Side {
        /// Silences between the first and the last sound of three 1.5 s tracks, µs.
        var gaps: [Double]
        /// Reported position minus what the room played, at every step heard (µs).
        var errors: [Double]
        /// Pause → silence in the room, Play → sound again (µs).
        var pauseToSilence: Double
        var playToSound: Double
        /// The position held while paused minus where the room stopped (µs).
        var heldError: Double
    }

    static let stepSeconds = 30
    static func stepFrequency(_ k: Int) -> Double { Double(300 + 100 * k) }

    func run() throws -> (reel: Side, mpd: Side) {
        let media = dir.appendingPathComponent("snapcast-bench")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let tracks = try [300, 600, 900].enumerated().map { i, hz -> URL in
            let url = media.appendingPathComponent("track\(i + 1).flac")
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(hz):duration=1.5:sample_rate=48000", "-ac", "2", url.path])
            return url
        }
        let steps = media.appendingPathComponent("steps.flac")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=0.2*sin(2*PI*(300+100*floor(t))*t):s=48000:d=\(Self.stepSeconds)",
                          "-ac", "2", steps.path])
        say("Snapcast: reeld")
        let reel = try measure(tracks: tracks, steps: steps, player: Player.reeld(media))
        say("Snapcast: MPD 0.23")
        let mpd = try measure(tracks: tracks, steps: steps, player: Player.mpd(media))
        return (reel, mpd)
    }

    /// A player feeding snapserver's pipe, driven over the MPD protocol on a TCP port. Both take
    /// songs of their database, named in their music folder: a TCP client may queue nothing else.
    struct Player {
        /// Starts it in `home` on the pipe and port; what it returns lives as long as it runs.
        let start: (_ home: URL, _ fifo: String, _ port: UInt16) throws -> (ChildProcess, [AnyObject])

        static func reeld(_ media: URL) -> Player {
            Player(start: { home, fifo, port in
                let bus = try PrivateBus()
                let child = try ChildProcess(Installed.reeld, ["--output", "snapcast:\(fifo)", "--fresh", "--mpd-listen", "127.0.0.1:\(port)",
                                                               "--music-dir", media.path],
                                             busAddress: bus.address, home: home)
                return (child, [bus])
            })
        }

        static func mpd(_ media: URL) -> Player {
            Player(start: { home, fifo, port in (try SnapcastBench.startMPD(home: home, media: media, fifo: fifo, port: port), []) })
        }

        /// What `add` takes for a file.
        func uri(_ file: URL) -> String { file.lastPathComponent }

        /// Before the first `add`: the music folder scanned.
        func prepare(_ client: MPDClient) throws {
            _ = try client.command("update")
            while try client.pairs("status")["updating_db"] != nil { usleep(100_000) }
        }
    }

    static func startMPD(home: URL, media: URL, fifo: String, port: UInt16) throws -> ChildProcess {
        try """
            music_directory "\(media.path)"
            db_file "\(home.path)/database"
            state_file "\(home.path)/state"
            bind_to_address "127.0.0.1"
            port "\(port)"
            audio_output {
                type "fifo"
                name "snapcast"
                path "\(fifo)"
                format "48000:16:2"
            }
            """.write(to: home.appendingPathComponent("mpd.conf"), atomically: true, encoding: .utf8)
        return try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpd"), ["--no-daemon", home.appendingPathComponent("mpd.conf").path],
                                busAddress: nil, home: home)
    }

    private func measure(tracks: [URL], steps: URL, player: Player) throws -> Side {
        // Transitions: three tracks in a row.
        let (gaps, _) = try session(player: player) { client in
            for track in tracks { try Self.run(client, "add \"\(player.uri(track))\"") }
            try Self.run(client, "play 0")
            try waitFor(client, timeout: 15) { $0["state"] == "stop" }
            usleep(1_500_000)   // the room plays on for the buffer
            return []
        }
        // Position: 30 s of steps, with a pause and a seek.
        var paused: MonotonicTime = 0, resumed: MonotonicTime = 0, held: MediaTime = 0
        let (room, readings) = try session(player: player) { client in
            try Self.run(client, "add \"\(player.uri(steps))\"")
            try Self.run(client, "play 0")
            var readings: [(MonotonicTime, MediaTime)] = []
            func read(for seconds: Double) throws {
                let end = monotonicNow() + MonotonicTime(seconds * 1e6)
                while monotonicNow() < end {
                    let t0 = monotonicNow()
                    let elapsed = try client.pairs("status")["elapsed"].flatMap(Double.init) ?? 0
                    readings.append(((t0 + monotonicNow()) / 2, MediaTime(elapsed * 1e6)))
                    usleep(50_000)
                }
            }
            try read(for: 6)
            paused = monotonicNow()
            try Self.run(client, "pause 1")
            held = MediaTime((try client.pairs("status")["elapsed"].flatMap(Double.init) ?? 0) * 1e6)
            try read(for: 2.5)
            resumed = monotonicNow()
            try Self.run(client, "pause 0")
            try read(for: 4)
            try Self.run(client, "seekcur 20")
            try read(for: 6)
            return readings
        }
        let errors = Self.errors(room, readings)
        let stretch = room.sounds().first { $0.end > paused && $0.start < paused }
        guard let silence = stretch?.end else { throw HarnessError("the room heard nothing when the player paused") }
        // The program going on (a sound of 100 ms or more), not a fragment: MPD's room hears
        // 10–50 ms of its first chunk some 600 ms before, which snapserver stamps on the
        // timeline from before the pause, then silence until the resume proper.
        guard let back = room.sounds(from: silence + 1000).first(where: { $0.end - $0.start >= 100_000 })?.start else {
            throw HarnessError("the room never heard the resume")
        }
        // Where the room stopped is where it went on: the step it plays again, up to the next one.
        let playing = Int(((room.frequency(at: back + 40_000) - 300) / 100).rounded())
        let heldError = Self.onset(of: playing + 1, in: room, after: back).map { next in
            Double(held - (MediaTime(playing + 1) * 1_000_000 - (next - back)))
        } ?? .nan
        return Side(gaps: gaps.gaps().map { Double($0.length) }, errors: errors,
                    pauseToSilence: Double(silence - paused), playToSound: Double(back - resumed), heldError: heldError)
    }

    /// A snapserver, a room and the player; `body` drives it over its MPD port and returns position readings.
    private func session(player: Player, _ body: (MPDClient) throws -> [(MonotonicTime, MediaTime)])
        throws -> (Recording, [(MonotonicTime, MediaTime)]) {
        let port = try SnapServer.freePort()
        let server = try SnapServer(controlScript: try SnapServer.metaMPD(in: dir, port: port))
        defer { server.stop(removing: true) }
        let room = try server.room("bench")
        try room.waitUntilRunning()
        let home = dir.appendingPathComponent("snapcast-\(port)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let (child, alive) = try player.start(home, server.fifo, port)
        defer {
            child.stop()
            withExtendedLifetime(alive) {}
        }
        let client = try connect(port)
        try player.prepare(client)
        let readings = try body(client)
        room.stop()
        return (room, readings)
    }

    /// Sends a command that must succeed.
    private static func run(_ client: MPDClient, _ line: String) throws {
        if let refusal = try client.command(line).last, refusal.hasPrefix("ACK") { throw HarnessError("\(line): \(refusal)") }
    }

    private func connect(_ port: UInt16) throws -> MPDClient {
        let deadline = Date().addingTimeInterval(30)
        while true {
            if let client = try? MPDClient(port: port) { return client }
            guard Date() < deadline else { throw HarnessError("no MPD server on port \(port)") }
            usleep(50_000)
        }
    }

    private func waitFor(_ client: MPDClient, timeout: Double, _ done: ([String: String]) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !done(client.pairs("status")) {
            guard Date() < deadline else { throw HarnessError("the player never got there") }
            usleep(50_000)
        }
    }

    /// When the room first played second `k` of the steps: its frequency held for 30 ms.
    static func onset(of k: Int, in room: Recording, after: MonotonicTime) -> MonotonicTime? {
        room.onset(of: stepFrequency(k), after: after, within: 40).flatMap { found in
            [15_000, 30_000].allSatisfy { abs(room.frequency(at: found + 10_000 + $0) - stepFrequency(k)) < 40 } ? found
                : onset(of: k, in: room, after: found + 20_000)
        }
    }

    /// At each step the room played, what the player said (between the readings around it) minus that step's second.
    static func errors(_ room: Recording, _ readings: [(MonotonicTime, MediaTime)]) -> [Double] {
        var errors: [Double] = []
        var after = room.sounds().first?.start ?? 0
        for k in 0..<stepSeconds {
            guard let onset = onset(of: k, in: room, after: after) else { continue }
            after = onset + 30_000   // a step may be heard for as little as that (a seek away)
            guard let i = readings.firstIndex(where: { $0.0 >= onset }), i > 0 else { continue }
            let (t0, p0) = readings[i - 1], (t1, p1) = readings[i]
            // Running at rate 1 on both sides of it (not a pause or a seek in between).
            guard t1 - t0 < 200_000, abs(Double(p1 - p0) / Double(t1 - t0) - 1) < 0.2 else { continue }
            let said = Double(p0) + Double(p1 - p0) * Double(onset - t0) / Double(t1 - t0)
            errors.append(said - Double(k * 1_000_000))
        }
        return errors
    }
}
