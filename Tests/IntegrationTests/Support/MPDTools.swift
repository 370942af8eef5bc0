import Foundation
import ReelHarness

/// Running MPD clients against the test's reeld.
extension DaemonTestCase {
    /// The MPD protocol's socket under this test's XDG_RUNTIME_DIR.
    var socketPath: String { home.appendingPathComponent("reel/mpd.socket").path }

    /// Starts reeld and waits until its MPD listeners are open (after its bus name).
    func startWithMPD(_ files: [URL] = [], _ extra: [String] = [], environment: [String: String] = [:]) throws {
        let child = try startDaemon(files, extra, environment: environment)
        guard waitForOutput(child, "MPD protocol on") != nil else { throw TestFailure("no MPD listener:\n\(child.text)") }
    }

    /// Writes reeld.conf in this test's config folder.
    func writeConfig(_ text: String) throws {
        let config = home.appendingPathComponent("config/reel")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try text.write(to: config.appendingPathComponent("reeld.conf"), atomically: true, encoding: .utf8)
    }

    /// Starts reeld listening on TCP too (127.0.0.1, a free port), with a
    /// password unless it is nil, and returns the port.
    func startWithTCP(_ files: [URL] = [], _ extra: [String] = [], password: String? = "open sesame",
                      config: String = "") throws -> UInt16 {
        try writeConfig("mpd-listen = 127.0.0.1:0\n" + (password.map { "mpd-password = \($0)\n" } ?? "") + config)
        try startWithMPD(files, extra)
        let log = daemon?.text ?? ""
        guard let port = log.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression)
            .flatMap({ UInt16(log[$0].split(separator: ":")[1]) }) else { throw TestFailure("no TCP port in:\n\(log)") }
        return port
    }

    /// Runs mpc on the daemon's socket; its output, or an error when it fails.
    @discardableResult
    func mpc(_ args: String...) throws -> String {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpc"), args, busAddress: bus.address, home: home,
                                     environment: ["MPD_HOST": socketPath])
        guard let status = child.waitForExit(timeout: 20) else { child.stop(); throw TestFailure("mpc \(args) hung") }
        let out = child.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw TestFailure("mpc \(args) failed (\(status)): \(out)") }
        return out
    }

    /// mpc's standard output alone, as bytes (a cover is binary).
    func mpcFile(_ args: String...) throws -> Data {
        let out = home.appendingPathComponent("mpc-out-\(UUID().uuidString.prefix(6))")
        let shell = (["/usr/bin/mpc"] + args).map { "'\($0)'" }.joined(separator: " ") + " > '\(out.path)'"
        let child = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", shell], busAddress: bus.address, home: home,
                                     environment: ["MPD_HOST": socketPath])
        guard child.waitForExit(timeout: 20) == 0 else { throw TestFailure("mpc \(args) failed: \(child.text)") }
        return try Data(contentsOf: out)
    }

    /// Runs a python-mpd script with `client` connected; returns what it prints.
    func pythonMPD(_ body: String, extra: [String] = []) throws -> String {
        let script = """
            import mpd, sys
            client = mpd.MPDClient()
            client.timeout = 10
            client.connect(sys.argv[1])
            \(body)
            """
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, socketPath] + extra,
                                     busAddress: bus.address, home: home)
        guard let status = child.waitForExit(timeout: 20) else { child.stop(); throw TestFailure("python-mpd hung") }
        guard status == 0 else { throw TestFailure("python-mpd failed (\(status)):\n\(child.text)") }
        return child.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A small tagged library on disk, for MPD clients and for MPD itself to read.
extension DaemonTestCase {
    /// The library: (folder/file, tags): two albums, a compilation with an album artist and
    /// discs, songs without tags, a name outside ASCII. One genre a song (see MPDDifferentialTests).
    static let taggedSongs: [(String, [String: String])] = [
        ("Abba/Gold/01 Dancing Queen.mp3", ["title": "Dancing Queen", "artist": "Abba", "album": "Gold", "track": "1",
                                            "date": "1992", "genre": "Pop"]),
        ("Abba/Gold/02 Waterloo.mp3", ["title": "Waterloo", "artist": "Abba", "album": "Gold", "track": "2", "date": "1992",
                                       "genre": "Disco"]),
        ("Various/Hits/01 One.mp3", ["title": "One", "artist": "Zed", "album": "Hits", "album_artist": "Various Artists",
                                     "track": "1", "disc": "1", "date": "2001", "genre": "Rock"]),
        ("Various/Hits/02 Two.mp3", ["title": "Two", "artist": "Ärzte", "album": "Hits", "album_artist": "Various Artists",
                                     "track": "2", "disc": "2", "date": "2001"]),
        ("Loose/untagged.mp3", [:]),
        ("Loose/only title.mp3", ["title": "Only a title"]),
    ]

    /// Writes `taggedSongs` as 1-second MP3s (ID3v2.3) under `music`.
    func makeTaggedLibrary(_ music: URL) throws {
        for (name, tags) in Self.taggedSongs {
            let file = music.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            var args = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"]
            for (key, value) in tags.sorted(by: { $0.key < $1.key }) { args += ["-metadata", "\(key)=\(value)"] }
            try Tones.ffmpeg(args + ["-c:a", "libmp3lame", "-b:a", "64k", "-id3v2_version", "3", file.path])
        }
    }

    /// Connects to an MPD protocol socket, waiting for it to be served.
    func connect(_ socket: String) throws -> MPDClient {
        let deadline = Date().addingTimeInterval(20)
        while true {
            if let client = try? MPDClient(path: socket) { return client }
            guard Date() < deadline else { throw TestFailure("no MPD server on \(socket)") }
            listen(for: 0.05)
        }
    }

    /// `update`, then `idle update` until `status` no longer says it is updating.
    func updateAndWait(_ client: MPDClient) throws {
        _ = try client.command("update", timeout: 20)
        while try client.pairs("status")["updating_db"] != nil {
            _ = try client.command("idle update", timeout: 30)
        }
    }
}
