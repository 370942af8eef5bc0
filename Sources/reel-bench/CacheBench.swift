import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// Remote media through the cache, against a local origin: time to first
/// audio against mpv reading the URL itself, cached replay with the origin
/// gone against a local file, bytes fetched over the file's size after seeks
/// and a download, and memory while downloading 1 GB.
struct CacheBench {
    let dir: URL

    struct Figures {
        var firstAudioCached = Stats([]), firstAudioDirect = Stats([])
        var replayCached = Stats([]), replayLocal = Stats([])
        var fetchedRatios: [Double] = []
        var rssKiB: (start: Int, max: Int, end: Int) = (0, 0, 0)
        var gigabyteSeconds = 0.0
    }

    func run() throws -> Figures {
        let served = dir.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let song = served.appendingPathComponent("song.ogg")
        try Tones.make(song, frequency: 440, seconds: 60, tags: ["title": "Song"])
        let long = served.appendingPathComponent("long.wav")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=60:sample_rate=48000", "-ac", "2", long.path])
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("doomed"), withIntermediateDirectories: true)
        let origin = try Origin(serving: served, home: dir)
        defer { origin.stop() }
        var f = Figures()

        say("cache: time to first audio, through the cache and directly")
        f.firstAudioCached = try firstAudio(options: []) { origin.url("song.ogg?cold=\($0)") }
        f.firstAudioDirect = try firstAudio(options: ["--cache-size", "0"]) { origin.url("song.ogg?direct=\($0)") }

        say("cache: replay with the origin gone, and the local file")
        let doomed = try Origin(serving: served, home: dir.appendingPathComponent("doomed"))
        f.replayCached = try firstAudio(options: [], warm: true, stopOrigin: doomed) { _ in doomed.url("song.ogg") }
        f.replayLocal = try firstAudio(options: []) { _ in song.absoluteString }

        say("cache: bytes fetched after seeks and a download, 3 runs")
        let size = Double((try FileManager.default.attributesOfItem(atPath: long.path)[.size] as? Int) ?? 1)
        for run in 0..<3 {
            let url = origin.url("long.wav?session=\(run)")
            try session(url)
            let fetched = Double(origin.served["/long.wav"] ?? 0) - f.fetchedRatios.reduce(0) { $0 + $1 * size }
            f.fetchedRatios.append(fetched / size)
        }

        say("cache: downloading 1 GB")
        let big = served.appendingPathComponent("big.bin")
        guard truncate(big.path, 1 << 30) == 0 || FileManager.default.createFile(atPath: big.path, contents: nil) else {
            throw HarnessError("cannot make a 1 GB file")
        }
        _ = truncate(big.path, 1 << 30)
        defer { try? FileManager.default.removeItem(at: big) }
        (f.rssKiB, f.gigabyteSeconds) = try download(origin.url("big.bin"))
        return f
    }

    /// OpenUri → the Seeked that marks the start, 5 runs, each on a URL of its own (a cold cache).
    private func firstAudio(options: [String], warm: Bool = false, stopOrigin: Origin? = nil,
                            _ url: (Int) -> String) throws -> Stats {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: [], bus: bus, options: options)
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        if warm {
            // Played once to the end of its readahead, then downloaded whole, before the origin goes.
            _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "Download", [.strings([url(0)])])
            guard probe.wait(timeout: 30, for: { $0.member == "DownloadFinished" }) != nil else {
                throw HarnessError("the warm-up download did not finish")
            }
            stopOrigin?.stop()
        }
        var times: [Double] = []
        for run in 0..<5 {
            try probe.player("Stop")
            let sent = try probe.send(MPRIS.player, "OpenUri", [.string(url(run))])
            guard let (_, at) = probe.wait(timeout: 20, for: { $0.member == "Seeked" }) else {
                throw HarnessError("\(url(run)) did not start")
            }
            times.append(Double(at - sent))
        }
        return Stats(times)
    }

    /// Plays, seeks to 40 s, back to 1 s, to 41 s, then downloads the rest.
    private func session(_ url: String) throws {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: [], bus: bus, options: ["--readahead", "256K"])
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        _ = try probe.send(MPRIS.player, "OpenUri", [.string(url)])
        guard probe.wait(timeout: 20, for: { $0.member == "Seeked" }) != nil else { throw HarnessError("no start") }
        let track = try probe.get("Metadata").dictionary?["mpris:trackid"] ?? .objectPath("/")
        for target: Int64 in [40_000_000, 1_000_000, 41_000_000] {
            _ = try probe.send(MPRIS.player, "SetPosition", [track, .int64(target)])
            _ = probe.wait(timeout: 10, for: { $0.member == "Seeked" })
            probe.listen(0.3) { _, _ in }
        }
        _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "Download", [.strings([url])])
        guard probe.wait(timeout: 60, for: { $0.member == "DownloadFinished" }) != nil else {
            throw HarnessError("the download did not finish")
        }
    }

    /// reeld's RSS (KiB) at the start, its maximum and at the end of a download, and its seconds.
    private func download(_ url: String) throws -> ((Int, Int, Int), Double) {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: [], bus: bus)
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        let pid = subject.child.process.processIdentifier
        let start = Usage.rss(pid)
        var peak = start
        let t0 = monotonicNow()
        _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "Download", [.strings([url])])
        var done = false
        while !done, monotonicNow() - t0 < 300_000_000 {
            probe.listen(0.5) { message, _ in if message.member == "DownloadFinished" { done = true } }
            peak = max(peak, Usage.rss(pid))
        }
        guard done else { throw HarnessError("the 1 GB download did not finish in 5 minutes") }
        return ((start, peak, Usage.rss(pid)), Double(monotonicNow() - t0) / 1e6)
    }
}
