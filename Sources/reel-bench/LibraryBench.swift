import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelLibrary
import ReelMPRIS
import ReelSystem

/// The library at scale: bulk insertion, search through the daemon and
/// through `reel lib ls`, and the daemon's memory with and without it.
struct LibraryBench {
    let items: Int

    struct Result {
        var insertPerSecond: Double
        var searchDBus: Stats
        var searchCLI: Stats
        var matches: Int
        var rssEmpty: Int
        var rssFull: Int
    }

    func run() throws -> Result {
        let bus = try PrivateBus()
        let dataHome = bus.dir.appendingPathComponent("data")
        let path = dataHome.appendingPathComponent("reel/library.sqlite3").path
        let library = try Library(path: path)
        let words = ["amber", "blue", "cedar", "delta", "ember", "falcon", "granite", "harbor", "indigo", "juniper",
                     "kestrel", "lumen", "meadow", "nebula", "orchid", "prairie", "quartz", "river", "saffron", "tundra"]
        var rng = SplitMixRandom(seed: 7)
        let generated = (0..<items).map { i in
            ProbedItem(title: "\(words[rng.next(20)]) \(words[rng.next(20)]) \(i)",
                       artist: "Artist \(rng.next(5000))", album: "\(words[rng.next(20)]) Album \(rng.next(20000))",
                       duration: Int64(rng.next(600)) * 1_000_000, localPath: "/music/\(i / 100)/\(i).flac")
        }
        let t0 = monotonicNow()
        for start in stride(from: 0, to: generated.count, by: 5_000) {
            _ = try library.addAll(Array(generated[start..<min(start + 5_000, generated.count)]))
        }
        let insertPerSecond = Double(items) / (Double(monotonicNow() - t0) / 1e6)

        // An empty library first, for the memory baseline.
        let emptyHome = bus.dir.appendingPathComponent("empty")
        let rssEmpty = try daemonRSS(bus: bus, dataHome: emptyHome) { _ in }
        var dbus: [Double] = []
        var cli: [Double] = []
        var matches = 0
        let query = "Artist 4242"
        let rssFull = try daemonRSS(bus: bus, dataHome: dataHome) { probe in
            for _ in 0..<30 {
                let t = monotonicNow()
                let reply = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "LibrarySearch",
                                                            [.string(query), .uint32(0), .int32(-1)])
                dbus.append(Double(monotonicNow() - t))
                matches = reply.first?.array?.count ?? 0
            }
            let reel = Installed.reel
            for _ in 0..<10 {
                let t = monotonicNow()
                let child = try ChildProcess(reel, ["lib", "ls", query], busAddress: bus.address, home: bus.dir)
                _ = child.waitForExit()
                cli.append(Double(monotonicNow() - t))
            }
        }
        return Result(insertPerSecond: insertPerSecond, searchDBus: Stats(dbus), searchCLI: Stats(cli), matches: matches,
                      rssEmpty: rssEmpty, rssFull: rssFull)
    }

    /// Starts reeld on a library, runs `body`, and returns its RSS afterwards (KiB).
    private func daemonRSS(bus: PrivateBus, dataHome: URL, _ body: (SignalClock) throws -> Void) throws -> Int {
        let reeld = Installed.reeld
        let home = bus.dir.appendingPathComponent("home-\(dataHome.lastPathComponent)")
        let child = try ChildProcess(reeld, ["--ao", "null", "--fresh"], busAddress: bus.address, home: home,
                                     environment: ["XDG_DATA_HOME": dataHome.path])
        defer { child.stop() }
        let probe = try SignalClock(bus: bus, name: "org.mpris.MediaPlayer2.reel")
        try probe.waitForOwner()
        try body(probe)
        return Usage.measure(pid: child.process.processIdentifier, seconds: 0.1).rssKiB
    }
}

/// A seeded generator for reproducible synthetic libraries.
struct SplitMixRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
