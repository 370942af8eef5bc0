import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelLibrary
import ReelSystem

/// The MPD protocol, reel against MPD 0.23 itself: both on a Unix socket,
/// both with the same 10,000 tagged files (MPD scans them; reel's library
/// gets the same tags without probing), both with a null output.
///
/// Both servers run and play at once, and each measure goes to one, then to the other, call
/// by call: a sub-millisecond figure moves by 2–3× with what else the machine does, and a
/// slow moment then falls on both.
struct MPDBench {
    let dir: URL
    static let songs = 10_000
    static let rounds = 5
    /// Enough that a 99th percentile is not the second-slowest call (it was, over 100 toggles).
    static let roundTrips = 10_000
    static let toggles = 500
    static let runs = 10

    struct Side {
        var status: Stats
        var pauseToIdle: Stats
        /// reel only: MPRIS PlayPause to the MPD idle client's wake-up.
        var playPauseToIdle: Stats?
        var playlistinfo: Stats
        var list: Stats
    }

    /// Profiling (`reel-bench --mpd-profile WHAT`): reeld alone, one measure repeated for
    /// `seconds` while `perf record -p` watches it (the pid is printed first).
    func profile(_ what: String, seconds: Double = 10) throws {
        let music = dir.appendingPathComponent("mpd-bench-music")
        let tags = try makeMusic(music)
        try withReel(music, tags: tags) { socket, client, _, pid in
            _ = try client.command("play 0")
            let idler = try MPDClient(path: socket)
            say("reeld pid \(pid): \(what) for \(Int(seconds)) s")
            let end = Date().addingTimeInterval(seconds)
            var n = 0
            while Date() < end {
                switch what {
                case "status": _ = try client.command("status")
                case "pause":
                    idler.send("idle player\n")
                    _ = try client.command(n % 2 == 0 ? "pause 1" : "pause 0")
                    _ = idler.reply(timeout: 5)
                case "playlistinfo": _ = try client.command("playlistinfo", timeout: 60)
                default: _ = try client.command("list album group albumartist", timeout: 60)
                }
                n += 1
            }
            print("\(n) rounds")
        }
    }

    func run() throws -> (reel: Side, mpd: Side) {
        let music = dir.appendingPathComponent("mpd-bench-music")
        let tags = try makeMusic(music)
        say("MPD protocol: MPD 0.23 and reeld, \(Self.rounds) rounds, each measure call by call on both")
        return try withMPD(music) { mpdSocket, mpdClient in
            try withReel(music, tags: tags) { socket, client, mpris, _ in
                let servers = [Server(socket: mpdSocket, client: mpdClient, mpris: nil),
                               Server(socket: socket, client: client, mpris: mpris)]
                var samples = [Samples(), Samples()]
                for round in 0..<Self.rounds { try measure(servers, round: round, into: &samples) }
                return (samples[1].side, samples[0].side)
            }
        }
    }

    // MARK: The two servers

    private func withMPD<T>(_ music: URL, _ body: (String, MPDClient) throws -> T) throws -> T {
        let home = dir.appendingPathComponent("mpd-bench-mpd")
        try? FileManager.default.removeItem(at: home)
        let (mpd, socket) = try ReferenceMPD.start(music: music, dir: home)
        defer { mpd.stop() }
        let client = try connect(socket, within: 30)
        _ = try client.command("update", timeout: 10)
        while try client.pairs("status")["updating_db"] != nil { usleep(200_000) }
        _ = try client.command("add \"\"", timeout: 60)
        return try body(socket, client)
    }

    /// reeld on a private bus with the library of `tags` and all of it queued.
    private func withReel<T>(_ music: URL, tags: [ProbedItem],
                             _ body: (String, MPDClient, Connection, Int32) throws -> T) throws -> T {
        let home = dir.appendingPathComponent("mpd-bench-reel")
        try? FileManager.default.removeItem(at: home)
        let library = try Library(path: home.appendingPathComponent("data/reel/library.sqlite3").path)
        _ = try library.addAll(tags)
        let bus = try PrivateBus()
        let reeld = try ChildProcess(Installed.reeld, ["--ao", "null", "--fresh", "--music-dir", music.path], busAddress: bus.address, home: home)
        defer { reeld.stop() }
        let socket = home.appendingPathComponent("reel/mpd.socket").path
        let client = try connect(socket, within: 30)
        _ = try client.command("add \"\"", timeout: 60)
        let mpris = try Connection(address: bus.address)
        return try body(socket, client, mpris, reeld.process.processIdentifier)
    }

    private func connect(_ socket: String, within seconds: Double) throws -> MPDClient {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            if let client = try? MPDClient(path: socket) { return client }
            guard Date() < deadline else { throw HarnessError("no MPD server on \(socket)") }
            usleep(50_000)
        }
    }

    // MARK: Figures

    /// One round's samples of each measure, added to what earlier rounds gave.
    private struct Samples {
        var status: [Double] = [], pause: [Double] = [], playPause: [Double] = []
        var playlistinfo: [Double] = [], list: [Double] = []
        var side: Side {
            Side(status: Stats(status), pauseToIdle: Stats(pause), playPauseToIdle: playPause.isEmpty ? nil : Stats(playPause),
                 playlistinfo: Stats(playlistinfo), list: Stats(list))
        }
    }

    private struct Server {
        let socket: String
        let client: MPDClient
        let mpris: Connection?
    }

    /// One round: both servers play for it, and each measure goes to one server, then to the
    /// other (which first alternates), so that whatever else the machine does at a moment falls
    /// on both alike. Measured a round at a time on each, a slow second fell on one server only,
    /// and the 99th percentiles moved 2-3x between runs.
    private func measure(_ servers: [Server], round: Int, into samples: inout [Samples]) throws {
        for server in servers {
            let count = try server.client.pairs("status")["playlistlength"]
            guard count == String(Self.songs) else { throw HarnessError("queue of \(count ?? "?") songs, not \(Self.songs)") }
            _ = try server.client.command("play 0")
        }
        defer { for server in servers { _ = try? server.client.command("stop") } }
        /// Each index of `count`, on both servers, the first of them alternating.
        func alternate(_ count: Int, _ body: (Int, Int) throws -> Void) rethrows {
            for n in 0..<count {
                for side in (n + round) % 2 == 0 ? [0, 1] : [1, 0] { try body(side, n) }
            }
        }

        try alternate(Self.roundTrips / Self.rounds) { side, _ in
            let start = monotonicNow()
            _ = try servers[side].client.command("status")
            samples[side].status.append(Double(monotonicNow() - start))
        }

        let idlers = try servers.map { try MPDClient(path: $0.socket) }
        func wakeUp(_ side: Int, _ act: () throws -> Void) throws -> Double {
            let idler = idlers[side]
            // The idle must be waiting before the change, or it answers at once. A change the
            // server noted before the idle came (the play that started the round) answers it at
            // once too, and the measure then read that early answer, and every later round an
            // answer to the round before it: the idle is sent again until one waits.
            for attempt in 1... {
                idler.send("idle player\n")
                usleep(20_000)
                guard idler.hasInput else { break }
                guard attempt < 50, idler.reply() != nil else { throw HarnessError("idle answers at once: the server changes on its own") }
            }
            let start = monotonicNow()
            try act()
            guard idler.reply(timeout: 5)?.first == "changed: player" else { throw HarnessError("idle did not wake") }
            return Double(monotonicNow() - start)
        }
        try alternate(Self.toggles / Self.rounds) { side, n in
            let client = servers[side].client
            samples[side].pause.append(try wakeUp(side) { client.send(n % 2 == 0 ? "pause 1\n" : "pause 0\n") })
            _ = client.reply()
        }
        for (side, server) in servers.enumerated() {
            guard let mpris = server.mpris else { continue }
            for _ in 0..<Self.toggles / Self.rounds {
                samples[side].playPause.append(try wakeUp(side) {
                    _ = try mpris.callMethod("org.mpris.MediaPlayer2.reel", "/org/mpris/MediaPlayer2",
                                             "org.mpris.MediaPlayer2.Player", "PlayPause", [])
                })
            }
        }

        func timed(_ command: String, into keyPath: WritableKeyPath<Samples, [Double]>) throws {
            try alternate(Self.runs / Self.rounds) { side, _ in
                let start = monotonicNow()
                let reply = try servers[side].client.command(command, timeout: 60)
                guard reply.last == "OK" else { throw HarnessError("\(command): \(reply.last ?? "")") }
                samples[side][keyPath: keyPath].append(Double(monotonicNow() - start))
            }
        }
        try timed("playlistinfo", into: \.playlistinfo)
        try timed("list album group albumartist", into: \.list)
    }

    // MARK: Music

    /// 10,000 short MP3 files, each with its own ID3 tags (500 artists, 1,000
    /// albums, 200 album artists), in 100 folders; and the same tags for reel's library.
    private func makeMusic(_ music: URL) throws -> [ProbedItem] {
        let base = dir.appendingPathComponent("mpd-bench-base.mp3")
        if !FileManager.default.fileExists(atPath: base.path) {
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "libmp3lame", "-b:a", "32k",
                              "-id3v2_version", "0", "-write_xing", "0", "-map_metadata", "-1", base.path])
        }
        let audio = try Data(contentsOf: base)
        try? FileManager.default.removeItem(at: music)
        var items: [ProbedItem] = []
        for i in 0..<Self.songs {
            let folder = music.appendingPathComponent(String(format: "%03d", i / 100))
            if i % 100 == 0 { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let file = folder.appendingPathComponent(String(format: "%05d.mp3", i))
            let (title, artist, album, albumArtist) = ("Song \(i)", "Artist \(i % 500)", "Album \(i % 1000)", "Band \(i % 200)")
            try (ID3.tag(["TIT2": title, "TPE1": artist, "TALB": album, "TPE2": albumArtist]) + audio).write(to: file)
            var item = ProbedItem(title: title, artist: artist, album: album, duration: 1_000_000, localPath: file.path)
            item.albumArtist = albumArtist   // as MPD reads TPE2: both group the same albums
            items.append(item)
        }
        return items
    }
}

/// A minimal ID3v2.3 tag of Latin-1 text frames.
enum ID3 {
    static func tag(_ frames: [String: String]) -> Data {
        var body = Data()
        for (id, text) in frames.sorted(by: { $0.key < $1.key }) {
            let value = Data([0]) + Data(text.utf8)   // encoding 0: ISO-8859-1 (the text is ASCII)
            body += Data(id.utf8) + bigEndian(UInt32(value.count)) + Data([0, 0]) + value
        }
        let size = UInt32(body.count)
        let syncsafe = Data([UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F), UInt8(size & 0x7F)])
        return Data("ID3".utf8) + Data([3, 0, 0]) + syncsafe + body
    }

    private static func bigEndian(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
