import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// A 100,000-entry queue: how fast it builds, what a single change costs the
/// daemon's loop, shuffled or not, and how fast clients read it.
struct QueueBench {
    let size: Int
    let file: URL

    struct Figures {
        var buildPerSecond = 0.0
        /// Loop time of one change (the call and a Ping after it), µs, by change.
        var changes: [(String, Stats)] = []
        var metadata1000 = Stats([])
        var cliQueue = Stats([])
        var rss = 0
        /// The same daemon before the queue was built.
        var rssEmpty = 0
    }

    func run() throws -> Figures {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: [], bus: bus)
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        var figures = Figures()
        figures.rssEmpty = Usage.measure(pid: subject.child.process.processIdentifier, seconds: 0.5).rssKiB

        // Built 1,000 entries a call, as `reel add` of a big folder would.
        let batch = [String](repeating: file.absoluteString, count: 1000)
        let t0 = monotonicNow()
        for _ in 0..<(size / 1000) {
            _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "Add",
                                                [.strings(batch), .boolean(false)], timeoutMs: 60_000)
        }
        try ping(probe)
        figures.buildPerSecond = Double(size) / (Double(monotonicNow() - t0) / 1e6)

        try probe.player("Play")
        for shuffled in [false, true] {
            try probe.set("Shuffle", .boolean(shuffled))
            let label = shuffled ? "shuffle on" : "shuffle off"
            figures.changes.append(("add 1 entry, \(label)", try timed(probe, 20) {
                _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "Add",
                                                    [.strings([file.absoluteString]), .boolean(false)])
            }))
            figures.changes.append(("remove 1 entry, \(label)", try timed(probe, 20) {
                guard let id = try trackIDs(probe, from: size / 2, count: 1).first else { return }
                _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.trackList, "RemoveTrack", [id])
            }))
            figures.changes.append(("Next, \(label)", try timed(probe, 20) { try probe.player("Next") }))
        }
        var toggles: [Bool: [Double]] = [:]
        for on in [false, true, false, true, false, true, false, true, false, true, false, true, false, true] {
            toggles[on, default: []].append(try loopTime(probe) { try probe.set("Shuffle", .boolean(on)) })
        }
        figures.changes.append(("Shuffle on (a new order of all of it)", Stats(toggles[true]!)))
        figures.changes.append(("Shuffle off", Stats(toggles[false]!)))

        let ids = try trackIDs(probe, from: size / 3, count: 1000)
        guard ids.count == 1000 else { throw HarnessError("QueuePage gave \(ids.count) entries, not 1000") }
        var reads: [Double] = []
        for _ in 0..<10 {
            let start = monotonicNow()
            _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.trackList, "GetTracksMetadata",
                                                [.array(elementSignature: "o", ids)])
            reads.append(Double(monotonicNow() - start))
        }
        figures.metadata1000 = Stats(reads)

        let reel = Installed.reel
        var runs: [Double] = []
        for _ in 0..<3 {
            let start = monotonicNow()
            let child = try ChildProcess(reel, ["queue"], busAddress: bus.address, home: bus.dir)
            _ = child.waitForExit(timeout: 60)
            runs.append(Double(monotonicNow() - start))
        }
        figures.cliQueue = Stats(runs)
        figures.rss = Usage.measure(pid: subject.child.process.processIdentifier, seconds: 0.1).rssKiB
        return figures
    }

    /// Track ids (object paths) of `count` entries from `offset`, read with QueuePage.
    private func trackIDs(_ probe: SignalClock, from offset: Int, count: Int) throws -> [DBusValue] {
        let rows = try probe.connection.callMethod(probe.name, MPRIS.objectPath, MPRIS.reel, "QueuePage",
                                                   [.uint32(UInt32(offset)), .int32(Int32(count))])[2].array ?? []
        return rows.compactMap { row in
            guard case .structure(let fields) = row, let id = fields.first?.int64 else { return nil }
            return .objectPath("/dev/reel/Track/\(id)")
        }
    }

    private func ping(_ probe: SignalClock) throws {
        _ = try probe.connection.callMethod(probe.name, MPRIS.objectPath, "org.freedesktop.DBus.Peer", "Ping", [])
    }

    /// From sending a change until a Ping after it is answered: the change's
    /// reply comes within the loop turn, the Ping's only when the turn, with
    /// its signals and its library hand-over, is done.
    private func loopTime(_ probe: SignalClock, _ change: () throws -> Void) throws -> Double {
        probe.listen(0.05) { _, _ in }
        let start = monotonicNow()
        try change()
        try ping(probe)
        return Double(monotonicNow() - start)
    }

    private func timed(_ probe: SignalClock, _ runs: Int, _ change: () throws -> Void) throws -> Stats {
        Stats(try (0..<runs).map { _ in try loopTime(probe, change) })
    }
}
