import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// The network half under hostile and real-world input, against the test
/// origin: an entity flood, large feeds and catalogues, thousands of
/// enclosures that fail, and a radio station's connections.
struct NetworkBench {
    let dir: URL

    struct Figures {
        var entityFlood = Stats([])
        var feedBytes = 0, floodBytes = 0, catalogueBytes = 0
        var rssFeedKiB = 0, rssCatalogueKiB = 0
        var failing = 0
        var failingCPU = 0.0, failingSeconds = 0.0
        var stationRequests = 0, requestsAfterStop = 0
    }

    func run() throws -> Figures {
        let served = dir.appendingPathComponent("network")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let origin = try Origin(serving: served, home: served)
        defer { origin.stop() }
        var f = Figures()

        say("network: a 10 MB feed of one title and 1.98 M entities, 3 syncs")
        let flood = served.appendingPathComponent("flood.rss")
        let title = String(repeating: "A", count: 10_000) + String(repeating: "&amp;", count: 1_980_000)
        try Data(("<rss><channel><item><title>\(title)</title><enclosure url=\"http://127.0.0.1:1/a.mp3\"/></item>"
                  + "</channel></rss>").utf8).write(to: flood)
        f.floodBytes = try size(flood)
        f.entityFlood = Stats(try (0..<3).map { _ in try timedSync(flood.path) })

        say("network: peak RSS syncing a 30 MB RSS feed and a 30 MB JSON catalogue")
        try FeedFixtures.rss(items: 100_000, base: "http://127.0.0.1:1/", pad: 180).write(to: served.appendingPathComponent("big.rss"))
        f.feedBytes = try size(served.appendingPathComponent("big.rss"))
        try FeedFixtures.catalogue(items: 100_000, base: "http://127.0.0.1:1/", pad: 250)
            .write(to: served.appendingPathComponent("big.json"))
        f.catalogueBytes = try size(served.appendingPathComponent("big.json"))
        f.rssFeedKiB = try peakOverIdle(origin.url("big.rss"))
        f.rssCatalogueKiB = try peakOverIdle(origin.url("big.json"))

        say("network: 20,000 enclosures that answer 404")
        f.failing = 20_000
        let items = (0..<f.failing).map { #"{"url": "missing.mp3?n=\#($0)"}"# }
        try Data("[\(items.joined(separator: ","))]".utf8).write(to: served.appendingPathComponent("gone.json"))
        (f.failingCPU, f.failingSeconds) = try failing(origin.url("gone.json"))

        say("network: a station played for 10 s, then stopped and cleared")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libmp3lame", "-b:a", "128k",
                          served.appendingPathComponent("radio.mp3").path])
        (f.stationRequests, f.requestsAfterStop) = try station(origin)
        return f
    }

    private func size(_ url: URL) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
    }

    private func daemon() throws -> (Subject, SignalClock, PrivateBus) {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: [], bus: bus)
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        return (subject, probe, bus)
    }

    /// `reel sync FEED`, as a user runs it, against the daemon on `bus`.
    private func sync(_ bus: PrivateBus, _ feed: String, download: Bool = false) throws {
        let reel = Installed.reel
        let child = try ChildProcess(reel, ["sync"] + (download ? [] : ["--no-download"]) + [feed],
                                     busAddress: bus.address, home: bus.dir)
        guard child.waitForExit(timeout: 900) != nil else { child.stop(); throw HarnessError("reel sync \(feed) hung") }
    }

    /// Seconds of one sync of `feed` (no downloads).
    private func timedSync(_ feed: String) throws -> Double {
        let (subject, _, bus) = try daemon()
        defer { subject.child.stop() }
        let t0 = monotonicNow()
        try sync(bus, feed)
        return Double(monotonicNow() - t0)  // µs
    }

    /// reeld's peak RSS over its idle RSS while syncing `feed`, KiB.
    private func peakOverIdle(_ feed: String) throws -> Int {
        let (subject, probe, bus) = try daemon()
        defer { subject.child.stop() }
        probe.listen(0.5) { _, _ in }
        let pid = subject.child.process.processIdentifier
        let idle = Usage.rss(pid)
        try sync(bus, feed)
        return Usage.peakRSS(pid) - idle
    }

    /// reeld's CPU seconds and the wall seconds until every download of `feed` has failed.
    private func failing(_ feed: String) throws -> (Double, Double) {
        let (subject, probe, bus) = try daemon()
        defer { subject.child.stop() }
        let pid = subject.child.process.processIdentifier
        let cpu0 = Usage.cpuSeconds(pid), t0 = monotonicNow()
        try sync(bus, feed, download: true)
        var finished = 0
        while finished < 20_000, monotonicNow() - t0 < 600_000_000 {
            probe.listen(0.5) { message, _ in if message.member == "DownloadFinished" { finished += 1 } }
        }
        return (Usage.cpuSeconds(pid) - cpu0, Double(monotonicNow() - t0) / 1e6)
    }

    /// Requests the station saw while it played 10 s, and in 3 s after stop and clear.
    private func station(_ origin: Origin) throws -> (Int, Int) {
        let (subject, probe, bus) = try daemon()
        // The bus lives as long as the daemon is asked anything.
        defer { withExtendedLifetime(bus) { subject.child.stop() } }
        func requests() -> Int { origin.requests.filter { $0.hasPrefix("/live/radio.mp3") }.count }
        _ = try probe.send(MPRIS.player, "OpenUri", [.string(origin.url("live/radio.mp3"))])
        probe.listen(10) { _, _ in }
        let playing = requests()
        try probe.player("Stop")
        _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "Clear", [])
        probe.listen(3) { _, _ in }
        return (playing, requests() - playing)
    }
}
