/// Position samples that jitter, laid onto a line of the playback rate.
///
/// Behind reel's FIFO and snapserver's pipe, mpv's `audio-pts` strays by
/// ±10 ms from one sample to the next (mpv counts its output periods as
/// played two periods after their callback, and the pipes set when that
/// comes); consecutive samples then rarely agree on when the audio started
/// (`PositionTracker.startAgreement`, 3 ms), and after a seek the start was
/// found up to 700 ms late. On the line, each sample moves it by its share of
/// the mean of the samples so far, and then by a tenth of its departure: the
/// line follows their mean, and agrees with itself.
public struct SampleSmoother: Equatable, Sendable {
    private var line: (at: MonotonicTime, position: MediaTime)?
    /// Samples on this line so far.
    private var count = 0

    /// A sample further than this from the line starts a new one: a seek, a
    /// resume, another file, a stall.
    public static let reach: MediaTime = 25_000
    /// How much of each departure the line takes up, once settled.
    public static let pull = 0.1

    /// The weight of the `n`th measure (from 1) in an average that settles:
    /// the plain mean of the first ten, then a tenth of each new one. The
    /// line uses it; so does the Snapcast relay for what waits in its pipes.
    public static func weight(ofMeasure n: Int) -> Double { max(pull, 1 / Double(max(n, 1))) }

    public init() {}

    public mutating func smooth(_ sample: MediaTime, at now: MonotonicTime, rate: Double) -> MediaTime {
        guard let line else {
            start(sample, at: now)
            return sample
        }
        let predicted = line.position + MediaTime((Double(now - line.at) * rate).rounded())
        let departure = sample - predicted
        guard abs(departure) <= Self.reach else {
            start(sample, at: now)
            return sample
        }
        count += 1
        let value = predicted + MediaTime((Double(departure) * Self.weight(ofMeasure: count)).rounded())
        self.line = (now, value)
        return value
    }

    private mutating func start(_ sample: MediaTime, at now: MonotonicTime) {
        line = (now, sample)
        count = 1
    }

    /// Forgets the line (a new load).
    public mutating func reset() { line = nil }

    public static func == (a: SampleSmoother, b: SampleSmoother) -> Bool {
        a.line?.at == b.line?.at && a.line?.position == b.line?.position
    }
}
