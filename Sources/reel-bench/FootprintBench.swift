import Foundation
import ReelCore
import ReelHarness
import ReelLibrary
import ReelSystem

/// What a download and a playing daemon cost, side by side with their
/// anchors: `reel download` against curl on the same origin (Python's
/// http.server on 127.0.0.1), the bytes on disk after it, and the memory of
/// reeld, bare mpv and MPD playing the same file, then with a 10,000-item
/// library.
struct FootprintBench {
    let dir: URL
    let file: URL
    var downloadBytes = 512 << 20
    /// Timed rounds of each download, after one that is not.
    var rounds = 5
    var libraryItems = 10_000

    struct Memory {
        var rssKiB = 0
        var anonKiB = 0
    }

    struct Figures {
        /// Whole commands, µs.
        var curl = Stats([])
        var curlSynced = Stats([])
        var reel = Stats([])
        var fileBytes: Int64 = 0
        var onDisk: Int64 = 0
        var playing: [(String, Memory)] = []
        var withLibrary: [(String, Memory)] = []
    }

    func run() throws -> Figures {
        var figures = Figures()
        try measureDownloads(&figures)
        try measureMemory(&figures)
        return figures
    }

    // MARK: Downloads

    private func measureDownloads(_ figures: inout Figures) throws {
        let served = dir.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let big = served.appendingPathComponent("big.mp3")
        try writePseudoRandom(big, bytes: downloadBytes)
        figures.fileBytes = Int64(downloadBytes)
        let origin = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                      ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", served.path],
                                      busAddress: nil, home: dir.appendingPathComponent("origin"))
        defer { origin.stop() }
        let url = "http://127.0.0.1:\(try port(of: origin))/big.mp3"
        let target = dir.appendingPathComponent("curl.out").path
        defer { unlink(target) }

        var curl: [Double] = [], synced: [Double] = [], reel: [Double] = []
        // Round 0 is not counted: the first to write 512 MB of page cache on a VM pays for the
        // guest's first touch of that memory (seen as 2-3× the time, whoever went first).
        for round in 0...rounds {
            let bare = try timed("/usr/bin/curl", ["-s", "-o", target, url])
            unlink(target)
            // The same bytes made durable, as reel makes them before it says a download is done.
            let durable = try timed("/bin/sh", ["-c", "curl -s -o \"$0\" \"$1\" && sync \"$0\"", target, url])
            if round > 0 {
                curl.append(bare)
                synced.append(durable)
            }
            unlink(target)
            let bus = try PrivateBus()
            let subject = try Subject.reeld(files: [], bus: bus)
            let probe = try SignalClock(bus: bus, name: subject.busName)
            try probe.waitForOwner()
            let t0 = monotonicNow()
            let child = try ChildProcess(Installed.reel, ["download", url], busAddress: bus.address, home: bus.dir)
            guard child.waitForExit(timeout: 300) == 0 else {
                subject.child.stop()
                throw HarnessError("reel download failed: \(child.text)")
            }
            if round > 0 { reel.append(Double(monotonicNow() - t0)) }
            figures.onDisk = allocated(under: bus.dir.appendingPathComponent("cache/reel"))
                + allocated(under: bus.dir.appendingPathComponent("data/reel/media"))
            subject.child.stop()
        }
        figures.curl = Stats(curl)
        figures.curlSynced = Stats(synced)
        figures.reel = Stats(reel)
    }

    /// 1 MiB of noise, repeated: content no file system compresses or leaves sparse.
    private func writePseudoRandom(_ url: URL, bytes: Int) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var block = [UInt8](repeating: 0, count: 1 << 20)
        for i in block.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            block[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw HarnessError("cannot create \(url.path)") }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        for _ in 0..<(bytes / block.count) { handle.write(Data(block)) }
    }

    /// The port Python's http.server says it listens on.
    private func port(of origin: ChildProcess) throws -> Int {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let range = origin.text.range(of: "port "),
               let port = Int(origin.text[range.upperBound...].prefix { $0.isNumber }) { return port }
            usleep(20_000)
        }
        throw HarnessError("http.server did not start: \(origin.text)")
    }

    /// Wall time of one command, µs.
    private func timed(_ command: String, _ args: [String]) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = args
        let t0 = monotonicNow()
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessError("\(command) \(args) failed") }
        return Double(monotonicNow() - t0)
    }

    /// Bytes the files under `folder` take on disk (as du counts them).
    private func allocated(under folder: URL) -> Int64 {
        guard let names = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
        var total: Int64 = 0
        while let name = names.nextObject() as? String {
            var info = stat()
            if lstat(folder.appendingPathComponent(name).path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                total += Int64(info.st_blocks) * 512
            }
        }
        return total
    }

    // MARK: Memory

    private func measureMemory(_ figures: inout Figures) throws {
        say("footprint: reeld, bare mpv and MPD playing the same file")
        figures.playing = [
            ("reeld", try reeldMemory(library: nil)),
            ("bare `mpv --no-video`", try bareMPVMemory()),
            ("MPD 0.23, null output", try mpdMemory(songs: 1)),
        ]
        say("footprint: the same with a \(libraryItems)-item library")
        let library = try makeLibrary()
        figures.withLibrary = [
            ("reeld", try reeldMemory(library: library)),
            ("MPD 0.23, null output", try mpdMemory(songs: libraryItems)),
        ]
    }

    /// After 5 s of playback, the memory of `pid`.
    private func settled(_ pid: pid_t) -> Memory {
        usleep(5_000_000)
        return Self.memory(pid)
    }

    static func memory(_ pid: pid_t) -> Memory {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/smaps_rollup"),
              let data = try? handle.readToEnd() else { return Memory() }
        var memory = Memory()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = Int(fields[1]) else { continue }
            if fields[0] == "Rss:" { memory.rssKiB = kib }
            if fields[0] == "Anonymous:" { memory.anonKiB = kib }
        }
        return memory
    }

    private func reeldMemory(library: URL?) throws -> Memory {
        let bus = try PrivateBus()
        var environment: [String: String] = [:]
        if let library { environment["XDG_DATA_HOME"] = library.path }
        let child = try ChildProcess(Installed.reeld, ["--ao", "null", "--fresh", file.path], busAddress: bus.address,
                                     home: bus.dir, environment: environment)
        defer { child.stop() }
        let probe = try SignalClock(bus: bus, name: "org.mpris.MediaPlayer2.reel")
        try probe.waitForOwner()
        return settled(child.process.processIdentifier)
    }

    private func bareMPVMemory() throws -> Memory {
        let bus = try PrivateBus()
        let subject = try Subject.bareMPV(file: file, bus: bus)
        defer { subject.child.stop() }
        return settled(subject.child.process.processIdentifier)
    }

    /// A library data home with `libraryItems` synthetic items.
    private func makeLibrary() throws -> URL {
        let home = dir.appendingPathComponent("library-home")
        let library = try Library(path: home.appendingPathComponent("reel/library.sqlite3").path)
        let items = (0..<libraryItems).map { i in
            ProbedItem(title: "Song \(i)", artist: "Artist \(i % 500)", album: "Album \(i % 1000)",
                       duration: 180_000_000, localPath: "/music/\(i / 100)/\(i).ogg")
        }
        _ = try library.addAll(items)
        return home
    }

    /// MPD with a private configuration, a database of `songs` copies (hard links) of the file, playing one.
    private func mpdMemory(songs: Int) throws -> Memory {
        let home = dir.appendingPathComponent("mpd-\(songs)")
        let music = home.appendingPathComponent("music")
        try? FileManager.default.removeItem(at: home)
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        for i in 0..<songs {
            let copy = music.appendingPathComponent(String(format: "%05d.ogg", i)).path
            guard link(file.path, copy) == 0 else { throw HarnessError("cannot link \(copy)") }
        }
        let port = 16_600 + songs % 1000
        let config = home.appendingPathComponent("mpd.conf")
        try """
            music_directory "\(music.path)"
            db_file "\(home.path)/database"
            state_file "\(home.path)/state"
            bind_to_address "127.0.0.1"
            port "\(port)"
            audio_output {
                type "null"
                name "null"
            }
            """.write(to: config, atomically: true, encoding: .utf8)
        let mpd = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpd"), ["--no-daemon", config.path],
                                   busAddress: nil, home: home)
        defer { mpd.stop() }
        func mpc(_ args: [String]) throws {
            let deadline = Date().addingTimeInterval(120)
            while true {
                let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpc"), ["-q", "-p", "\(port)"] + args,
                                             busAddress: nil, home: home)
                if child.waitForExit(timeout: 120) == 0 { return }
                guard Date() < deadline else { throw HarnessError("mpc \(args): \(child.text) / mpd: \(mpd.text)") }
                usleep(100_000)
            }
        }
        try mpc(["update", "--wait"])
        try mpc(["add", "00000.ogg"])
        try mpc(["repeat", "on"])
        try mpc(["play"])
        return settled(mpd.process.processIdentifier)
    }
}
