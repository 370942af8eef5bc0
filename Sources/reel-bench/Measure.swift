import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// The measurements `make bench` makes on each player.
struct Measure {
    let probe: SignalClock

    /// Time from sending PlayPause to receiving the PropertiesChanged that carries PlaybackStatus.
    func playPauseLatency(calls: Int) throws -> Stats {
        var samples: [Double] = []
        for _ in 0..<calls {
            let sent = try probe.send(MPRIS.player, "PlayPause")
            guard let (_, at) = probe.wait(for: { $0.changed["PlaybackStatus"] != nil }) else {
                throw HarnessError("no PlaybackStatus change after PlayPause")
            }
            samples.append(Double(at - sent))
        }
        return Stats(samples)
    }

    /// Time from sending Next to receiving the new Metadata.
    func nextLatency(calls: Int) throws -> Stats {
        try probe.set("LoopStatus", .string("Playlist"))
        var samples: [Double] = []
        for _ in 0..<calls {
            let before = try probe.get("Metadata").dictionary?["mpris:trackid"]
            let sent = try probe.send(MPRIS.player, "Next")
            guard let (_, at) = probe.wait(for: {
                guard let id = $0.changed["Metadata"]?.dictionary?["mpris:trackid"] else { return false }
                return id != before
            }) else { throw HarnessError("no Metadata change after Next") }
            samples.append(Double(at - sent))
            probe.listen(0.15) { _, _ in }   // let the load finish before the next one
        }
        return Stats(samples)
    }

    enum Change: String, CaseIterable {
        case pause, resume, seek, rate = "rate change"
    }

    /// How far a widget that models the position from signals is from the
    /// Position property, `settle` seconds after each kind of change.
    func widgetDrift(_ change: Change, runs: Int, settle: Double = 0.5) throws -> Stats {
        var samples: [Double] = []
        for _ in 0..<runs {
            try prepare(for: change)
            var widget = WidgetModel()
            widget.reset(properties: try probe.connection.getAllProperties(probe.name, MPRIS.objectPath, MPRIS.player),
                         at: monotonicNow())
            probe.listen(0.3) { widget.apply($0, at: $1) }
            switch change {
            case .pause: try probe.player("Pause")
            case .resume: try probe.player("Play")
            case .seek: try probe.player("Seek", [.int64(2_000_000)])
            case .rate: try probe.set("Rate", .double(1.5))
            }
            probe.listen(settle) { widget.apply($0, at: $1) }
            let t0 = monotonicNow()
            let truth = try probe.get("Position").int64 ?? 0
            let t1 = monotonicNow()
            samples.append(Double(abs(widget.estimate(at: (t0 + t1) / 2) - truth)))
        }
        try probe.set("Rate", .double(1))
        return Stats(samples)
    }

    /// Puts the player at rate 1, a few seconds into a track, playing (or paused before a resume).
    private func prepare(for change: Change) throws {
        try probe.set("Rate", .double(1))
        try probe.player("Play")
        if let id = try probe.get("Metadata").dictionary?["mpris:trackid"] {
            try probe.player("SetPosition", [id, .int64(5_000_000)])
        }
        probe.listen(0.3) { _, _ in }
        if change == .resume {
            try probe.player("Pause")
            probe.listen(0.3) { _, _ in }
        }
    }
}

/// Resident memory and CPU use of a process over a stretch of playback.
struct Usage {
    let rssKiB: Int
    let cpuPercent: Double

    /// Measures while `wait` lets `seconds` pass (it may listen to the bus meanwhile).
    static func measure(pid: pid_t, seconds: Double, wait: (Double) -> Void = { usleep(UInt32($0 * 1_000_000)) }) -> Usage {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let start = cpuTicks(pid)
        let t0 = monotonicNow()
        wait(seconds)
        let used = Double(cpuTicks(pid) - start) / ticksPerSecond
        let elapsed = Double(monotonicNow() - t0) / 1e6
        return Usage(rssKiB: rss(pid), cpuPercent: 100 * used / elapsed)
    }

    /// CPU seconds `pid` has used so far.
    static func cpuSeconds(_ pid: pid_t) -> Double {
        Double(cpuTicks(pid)) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields after the command: state is [0]; utime and stime are [11] and [12].
        return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
    }

    static func rss(_ pid: pid_t) -> Int { status("VmRSS", pid) }

    /// The most RSS `pid` has had, KiB.
    static func peakRSS(_ pid: pid_t) -> Int { status("VmHWM", pid) }

    private static func status(_ field: String, _ pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
        return Int(line.split(separator: " ")[1]) ?? 0
    }
}
