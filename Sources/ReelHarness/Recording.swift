import Foundation
import ReelCore
import ReelSystem

/// What a sound server's monitor heard (or a snapclient played): mono
/// 16-bit samples, each mapped to the monotonic clock, with the questions
/// the tests ask of it.
public final class Recording: @unchecked Sendable {
    // @unchecked: the reader thread and the test share `data` and `arrivals` under `lock`; the rest is set in stop().
    public static let rate = 48_000
    /// A 1 ms window is sound when its peak exceeds this (test tones peak near 4,000).
    public static let threshold: Int16 = 300

    private let process = Process()
    private let lock = NSLock()
    private var data = Data()
    /// (arrival time, bytes received so far) for every chunk read.
    private var arrivals: [(MonotonicTime, Int)] = []
    /// With a recorder that stamps its buffers by the graph's clock (`reel-pw-capture`): the first
    /// sample of each buffer and when the graph played it. Then arrivals play no part.
    private var stamps: [(sample: Int, at: MonotonicTime)] = []
    private var reader: Thread?
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)
    private var samples: [Int16] = []
    /// Stretches of samples that arrived as one continuous stream: (first
    /// sample, clock time sample 0 would have had). A server sends nothing
    /// from its monitor while nothing plays, so each stretch needs its own origin.
    private var runs: [(first: Int, origin: MonotonicTime)] = []
    /// Interleaved channels in what the tool writes; the first is kept.
    private let channels: Int
    /// How long after a chunk arrives its last sample is played (0: it was already heard).
    private let lead: MonotonicTime

    /// `stamped`: the tool writes `reel-pw-capture`'s framing (a time header before each buffer).
    init(_ tool: String, _ args: [String], environment: [String: String], channels: Int = 1, lead: MonotonicTime = 0,
         stamped: Bool = false) throws {
        self.channels = channels
        self.lead = lead
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = args
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        let thread = Thread { [self] in
            var framing = StampedFraming()
            while true {
                let chunk = handle.availableData
                let now = monotonicNow()
                if chunk.isEmpty { break }
                lock.lock()
                if stamped {
                    for (stamp, samples) in framing.take(chunk) {
                        stamps.append((data.count / 2, stamp))
                        data.append(samples)
                    }
                } else {
                    data.append(chunk)
                }
                arrivals.append((now, data.count))
                lock.unlock()
            }
            finished.signal()
        }
        reader = thread
        thread.start()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Waits until the recorder delivers data (it takes a moment to connect).
    public func waitUntilRunning(timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while bytesReceived == 0 {
            if Date() > deadline || !process.isRunning { throw HarnessError("the recorder did not start") }
            usleep(10_000)
        }
    }

    private var bytesReceived: Int {
        lock.lock()
        defer { lock.unlock() }
        return data.count
    }

    /// Stops recording and maps the samples to the clock. The last sample of
    /// a chunk that arrived at t was heard no later than t; within a stretch
    /// of continuous data the earliest such bound places it (to a few ms).
    /// A chunk later than continuous data explains by 20 ms starts a new stretch.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        _ = finished.wait(timeout: .now() + 5)
        lock.lock()
        defer { lock.unlock() }
        let all = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        samples = channels == 1 ? all : stride(from: 0, to: all.count - channels + 1, by: channels).map { all[$0] }
        let perSample = 1_000_000.0 / Double(Recording.rate)
        runs = []
        if !stamps.isEmpty {
            // Each buffer is placed by the graph's clock.
            runs = stamps.map { ($0.sample, $0.at - MonotonicTime(Double($0.sample) * perSample)) }
            return
        }
        var received = 0
        for (arrival, bytes) in arrivals {
            let origin = arrival + lead - MonotonicTime(Double(bytes / 2 / channels) * perSample)
            if let last = runs.last, origin - last.origin <= 20_000 {
                runs[runs.count - 1].origin = min(last.origin, origin)
            } else {
                runs.append((received, origin))
            }
            received = bytes / 2 / channels
        }
        if runs.isEmpty { runs = [(0, 0)] }
    }

    // MARK: Questions

    /// With graph-clock stamps: how long one buffer, the graph's cycle, lasts (the most common length).
    public var cycle: MediaTime? {
        guard stamps.count > 1 else { return nil }
        let lengths = zip(stamps, stamps.dropFirst()).map { $1.sample - $0.sample }
        let counts = Dictionary(lengths.map { ($0, 1) }, uniquingKeysWith: +)
        return counts.max { $0.value < $1.value }.map { MediaTime($0.key) * 1_000_000 / MediaTime(Recording.rate) }
    }

    public func time(ofSample n: Int) -> MonotonicTime {
        let run = runs.last { $0.first <= n } ?? runs[0]
        return run.origin + MonotonicTime(Double(n) * 1_000_000 / Double(Recording.rate))
    }

    /// The sample heard at `time`; in a stretch with no data, the first one after it.
    private func sample(at time: MonotonicTime) -> Int {
        for (i, run) in runs.enumerated() {
            let n = Int(Double(time - run.origin) * Double(Recording.rate) / 1_000_000)
            let end = i + 1 < runs.count ? runs[i + 1].first : samples.count
            if n < end { return min(max(n, run.first), samples.count) }
        }
        return samples.count
    }

    /// Stretches of sound, in 1 ms windows, as (start, end) clock times.
    public func sounds(from: MonotonicTime? = nil, to: MonotonicTime? = nil) -> [(start: MonotonicTime, end: MonotonicTime)] {
        let window = Recording.rate / 1000
        let first = from.map(sample(at:)) ?? 0
        let last = to.map(sample(at:)) ?? samples.count
        var result: [(MonotonicTime, MonotonicTime)] = []
        var start: Int?
        var i = first
        while i + window <= last {
            let loud = samples[i..<i + window].contains { $0 > Recording.threshold || $0 < -Recording.threshold }
            if loud, start == nil { start = i }
            if !loud, let s = start {
                result.append((time(ofSample: s), time(ofSample: i)))
                start = nil
            }
            i += window
        }
        if let s = start { result.append((time(ofSample: s), time(ofSample: i))) }
        return result
    }

    /// Stretches of sound with the short silences inside them (within speech, between words)
    /// joined: passages, as (start, end) clock times.
    public func phrases(joining shorter: MonotonicTime = 150_000) -> [(start: MonotonicTime, end: MonotonicTime)] {
        var result: [(start: MonotonicTime, end: MonotonicTime)] = []
        for sound in sounds() {
            if let last = result.last, sound.start - last.end < shorter {
                result[result.count - 1].end = sound.end
            } else {
                result.append(sound)
            }
        }
        return result
    }

    /// The silences between the first and the last sound, longest first, in µs.
    public func gaps(from: MonotonicTime? = nil, to: MonotonicTime? = nil) -> [(at: MonotonicTime, length: MonotonicTime)] {
        let parts = sounds(from: from, to: to)
        return zip(parts, parts.dropFirst()).map { ($0.end, $1.start - $0.end) }.sorted { $0.length > $1.length }
    }

    /// The position in what was recorded that was being heard at `time`,
    /// counted from the first sound, in µs of the server's own clock (which
    /// may run at another rate than the system's). Nil before the first sound.
    ///
    /// Chunks arrive some ms after they were played (45 ms with pw-record),
    /// and late ones later still; so sample counts are fitted against time
    /// along the earliest arrivals of each second, a line whose slope is the
    /// server's clock and which carries no delivery delay.
    public func heard(by time: MonotonicTime) -> MediaTime? {
        let window = Recording.rate / 1000
        guard let first = stride(from: 0, to: samples.count - window, by: window).first(where: { i in
            samples[i..<i + window].contains { $0 > Recording.threshold || $0 < -Recording.threshold }
        }) else { return nil }
        if !stamps.isEmpty {
            // The graph's clock says when each buffer played: no fit needed.
            guard let run = runs.last(where: { $0.origin + MonotonicTime(Double($0.first) * 1e6 / Double(Recording.rate)) <= time }) else { return nil }
            let n = Double(time - run.origin) * Double(Recording.rate) / 1e6
            guard n > Double(first) else { return nil }
            return MediaTime((n - Double(first)) * 1e6 / Double(Recording.rate))
        }
        lock.lock()
        let points = arrivals.map { (t: Double($0.0 + lead), n: Double($0.1 / 2 / channels)) }
        lock.unlock()
        // The least-delayed arrival of each second: smallest t - n/rate.
        var earliest: [Int: (t: Double, n: Double)] = [:]
        for p in points where p.n > Double(first) {
            let second = Int(p.t / 1e6)
            if let e = earliest[second], e.t - e.n * 1e6 / Double(Recording.rate) <= p.t - p.n * 1e6 / Double(Recording.rate) { continue }
            earliest[second] = p
        }
        let fit = Array(earliest.values)
        guard fit.count >= 2 else { return nil }
        // Least squares: n = a + b·t.
        let mt = fit.map(\.t).reduce(0, +) / Double(fit.count)
        let mn = fit.map(\.n).reduce(0, +) / Double(fit.count)
        let b = fit.map { ($0.t - mt) * ($0.n - mn) }.reduce(0, +) / fit.map { ($0.t - mt) * ($0.t - mt) }.reduce(0, +)
        // Shifted to the lower envelope: the earliest the samples could have been played.
        let a = fit.map { $0.n - b * $0.t }.max()!
        let n = a + b * Double(time)
        guard n > Double(first) else { return nil }
        return MediaTime((n - Double(first)) * 1e6 / Double(Recording.rate))
    }

    /// The first sound at or after `time`.
    public func firstSound(after time: MonotonicTime) -> MonotonicTime? {
        sounds(from: time).first?.start
    }

    /// The RMS level between two times, in dB relative to full scale.
    public func level(from: MonotonicTime, to: MonotonicTime) -> Double {
        let range = sample(at: from)..<sample(at: to)
        guard !range.isEmpty else { return -.infinity }
        let power = samples[range].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(range.count)
        return 10 * log10(power / (32768.0 * 32768.0))
    }

    /// The dominant frequency around `time` (from zero crossings over 20 ms), in Hz.
    public func frequency(at time: MonotonicTime) -> Double {
        let start = sample(at: time - 10_000)
        let end = sample(at: time + 10_000)
        guard end > start + 1 else { return 0 }
        var crossings = 0
        for i in start + 1..<end where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(end - start) / Double(Recording.rate))
    }

    /// When the frequency heard first comes within `within` Hz (default 10 %) of `hz`, searching from `after` in 5 ms steps.
    public func onset(of hz: Double, after: MonotonicTime, within: Double? = nil) -> MonotonicTime? {
        var t = after
        let end = time(ofSample: samples.count)
        while t < end {
            if abs(frequency(at: t) - hz) < within ?? hz / 10 { return t - 10_000 }
            t += 5_000
        }
        return nil
    }
}

/// `reel-pw-capture`'s output, split into buffers: each a header of eight little-endian Int64
/// (magic, now in ns, ticks, rate numerator and denominator, delay and buffered in the rate's
/// units, byte count), then its samples. A buffer's first sample played at now − delay − buffered
/// − its own length (see `take`).
struct StampedFraming {
    static let magic: Int64 = 0x5245_454C_5057_4331
    private var pending = Data()

    mutating func take(_ chunk: Data) -> [(MonotonicTime, Data)] {
        pending.append(chunk)
        var out: [(MonotonicTime, Data)] = []
        var offset = pending.startIndex
        while pending.endIndex - offset >= 64 {
            let header = (0..<8).map { i in
                pending[offset + i * 8 ..< offset + i * 8 + 8].enumerated().reduce(Int64(0)) { $0 | Int64($1.element) << (8 * $1.offset) }
            }
            guard header[0] == Self.magic, header[7] >= 0 else { pending = Data(); return out }
            let size = Int(header[7])
            guard pending.endIndex - offset >= 64 + size else { break }
            let (now, num, denom, delay, buffered) = (header[1], header[3], header[4], header[5], header[6])
            // A sink that drives the graph hands its monitor what it took one cycle later (the
            // driver's outputs are produced as the next cycle starts): a buffer of one cycle played
            // that long before its cycle began.
            let played = Int64(size / 2)
            let back = denom > 0 ? (delay + buffered + played) * num * 1_000_000 / denom : 0
            out.append((now / 1000 - back, pending[offset + 64 ..< offset + 64 + size]))
            offset += 64 + size
        }
        pending = Data(pending[offset...])
        return out
    }
}
