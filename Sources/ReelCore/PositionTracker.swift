/// The best estimate of the position that is heard, built from the backend's
/// position samples (mpv's `audio-pts`, the clock of what is heard; `time-pos`
/// only while a file has no audio).
///
/// On a real sound server the samples do two things that a silent output
/// never shows. When playback starts (after a load, a seek, a resume or a
/// stall) they sit still, or even wander, while the audio stream opens:
/// 0.1 s for about 1.5 s on PulseAudio. And in steady playback they jitter
/// by a few ms. So the estimate holds until two consecutive samples agree on
/// when the audio started, and while running it moves only for a departure
/// that persists over several samples.
public struct PositionTracker: Equatable, Sendable {
    /// The estimate: held, or running from the moment the audio was heard to start.
    public private(set) var anchor: PositionAnchor
    /// The position should run, but the audio has not been heard to start yet.
    public private(set) var awaitingAudio = false
    /// While awaiting audio: the start time implied by the last sample that moved, and when
    /// that sample came.
    private var impliedStart: ImpliedStart?
    private struct ImpliedStart: Equatable {
        let start: MonotonicTime
        let seen: MonotonicTime
    }
    /// Whether samples still short of the held position tell when they will
    /// reach it: behind snapserver, mpv's clock runs a second ahead of the
    /// rooms, so after a seek or a resume the samples climb towards the target
    /// at the rate, and the moment the rooms reach it is known before it comes.
    /// (A sound server's samples may sit still or wander while its stream
    /// opens: there only samples past the position count.)
    public var predictsStart = false
    /// While awaiting audio: when the samples say it will be heard, once two agree.
    public private(set) var predictedStart: MonotonicTime?
    /// While awaiting audio: the last sample, to tell samples that climb from ones that sit still.
    private var previousSample: MediaTime?
    /// While running: how far the last samples were from the estimate.
    private var departures: [MediaTime] = []
    /// While running, after a change of rate, until the estimate has met the samples again: when
    /// the rate changed. The sound already handed to the output plays out at the old rate (0.1 s
    /// on PipeWire, 0.5 s on PulseAudio), and mpv's samples meanwhile scale it by the new one, so
    /// the estimate is moved by a transient; the samples after it may then be 15 ms from the
    /// estimate for good (measured: 15.04 ms on PulseAudio at 1.5), which the steady
    /// `tolerance` would leave.
    private var rateChangedAt: MonotonicTime?

    /// A departure beyond this, persisting over `persistence` samples, moves
    /// the estimate. Wider than jitter, and wider than the drift of a server's
    /// clock as a stream settles (PipeWire's drifted 13 ms from CLOCK_MONOTONIC
    /// over a stream's first five seconds, then held), yet inside the 20 ms a
    /// widget may be off.
    public static let tolerance: MediaTime = 15_000
    public static let persistence = 3
    /// A departure this large is a real skip, not jitter: it moves the estimate at once.
    public static let jump: MediaTime = 500_000
    /// After a change of rate, departures beyond this move the estimate, until one within
    /// `tolerance` did (it has met the samples) or `realignment` has passed.
    public static let realignTolerance: MediaTime = 3_000
    public static let realignment: MonotonicTime = 3_000_000
    /// Two samples agree on the start of the audio when their implied start times are this close.
    public static let startAgreement: MonotonicTime = 3_000
    /// ... and when they came at least this far apart: two samples of one moment agree whatever
    /// the audio does (on a suspended PulseAudio sink, mpv's first samples climbed 17 ms, then
    /// 100 ms in 229 ms, then fell back to 0 when the sink woke 1.5 s later).
    public static let startEvidence: MonotonicTime = 20_000
    /// A sample must have moved this far past the held position to count as motion.
    static let minimumMotion: MediaTime = 1_000

    public init(position: MediaTime = 0, at now: MonotonicTime = 0, rate: Double = 1) {
        anchor = PositionAnchor(position: position, at: now, rate: rate, running: false)
    }

    public func position(at now: MonotonicTime) -> MediaTime { anchor.position(at: now) }

    /// Holds at `position`: loading, paused, stopped.
    public mutating func hold(at position: MediaTime, now: MonotonicTime) {
        anchor = PositionAnchor(position: position, at: now, rate: anchor.rate, running: false)
        reset(awaiting: false)
    }

    /// Holds where it is now: a pause or a stall. With `playingOutFor`, where
    /// it will be once an output that cannot hold its buffer has played it out.
    /// With `trustingMotion` (a resumed stream, whose samples tell the truth at
    /// once), a pause that comes before a second sample confirmed the start
    /// holds where the one sample that moved says the sound has got to, or,
    /// with none yet (mpv's samples came 100 ms apart with ao=null), where it
    /// has got to if it started at the resume, as widgets were told: a 0.1 s
    /// play between pauses would otherwise leave the position where it was.
    public mutating func freeze(now: MonotonicTime, playingOutFor delay: MediaTime = 0, trustingMotion: Bool = false) {
        let end = now + MonotonicTime(delay)
        if awaitingAudio, trustingMotion {
            let started = impliedStart?.start ?? anchor.at
            hold(at: anchor.position + MediaTime((Double(max(end - started, 0)) * anchor.rate).rounded()), now: now)
        } else {
            hold(at: anchor.position(at: end), now: now)
        }
    }

    /// While paused: `sample` is where the sound stopped. The caller says when
    /// samples can be trusted so (an open stream on a sound server).
    public mutating func settle(at sample: MediaTime, now: MonotonicTime) {
        guard !anchor.running, !awaitingAudio else { return }
        anchor = PositionAnchor(position: sample, at: now, rate: anchor.rate, running: false)
    }

    /// Holds at `position` until the samples show that the audio runs.
    public mutating func runWhenHeard(from position: MediaTime, now: MonotonicTime) {
        anchor = PositionAnchor(position: position, at: now, rate: anchor.rate, running: false)
        reset(awaiting: true)
    }

    /// Runs from a known anchor (a predicted gapless start).
    public mutating func run(_ known: PositionAnchor) {
        anchor = known
        reset(awaiting: false)
    }

    /// A new rate from `now` on.
    public mutating func setRate(_ rate: Double, now: MonotonicTime) {
        anchor = anchor.rebased(at: now, rate: rate)
        departures.removeAll()
        impliedStart = nil
        rateChangedAt = anchor.running ? now : nil
    }

    /// Takes a sample of the backend's position. Returns true when the
    /// estimate changed: the audio was heard to start, or it departed.
    public mutating func observe(_ sample: MediaTime, at now: MonotonicTime) -> Bool {
        if awaitingAudio { return observeStart(sample, at: now) }
        // A held position was set by what happened (a pause, a landing); a
        // sample then is stale at best (mpv reads 0 as a file opens).
        guard anchor.running else { return false }
        let departure = sample - anchor.position(at: now)
        if abs(departure) > Self.jump {
            anchor = PositionAnchor(position: sample, at: now, rate: anchor.rate, running: true)
            departures.removeAll()
            return true
        }
        departures.append(departure)
        if departures.count > Self.persistence { departures.removeFirst() }
        if let changed = rateChangedAt, now - changed > Self.realignment { rateChangedAt = nil }
        let tolerance = rateChangedAt == nil ? Self.tolerance : Self.realignTolerance
        guard departures.count == Self.persistence,
              departures.allSatisfy({ $0 > tolerance }) || departures.allSatisfy({ $0 < -tolerance }) else {
            return false
        }
        let median = departures.sorted()[Self.persistence / 2]
        anchor = PositionAnchor(position: anchor.position(at: now) + median, at: now, rate: anchor.rate, running: true)
        departures.removeAll()
        if abs(median) <= Self.tolerance { rateChangedAt = nil }
        return true
    }

    private mutating func observeStart(_ sample: MediaTime, at now: MonotonicTime) -> Bool {
        let moved = sample - anchor.position
        let climbing = predictsStart && previousSample.map { sample - $0 >= Self.minimumMotion } == true
        previousSample = sample
        guard moved >= Self.minimumMotion || climbing else {
            impliedStart = nil   // still, or back where it was: not started
            predictedStart = nil
            return false
        }
        let implied = now - MonotonicTime((Double(moved) / anchor.rate).rounded())
        guard let previous = impliedStart, abs(implied - previous.start) <= Self.startAgreement else {
            impliedStart = ImpliedStart(start: implied, seen: now)
            predictedStart = nil
            return false
        }
        // The same moment again: a later sample must confirm it.
        guard now - previous.seen >= Self.startEvidence else { return false }
        guard implied <= now else {
            // Heard soon: `startIfDue` starts it then.
            impliedStart = ImpliedStart(start: implied, seen: now)
            predictedStart = implied
            return false
        }
        anchor = PositionAnchor(position: anchor.position, at: implied, rate: anchor.rate, running: true)
        reset(awaiting: false)
        return true
    }

    /// Starts running at the predicted start, once it has come. True when it did.
    public mutating func startIfDue(now: MonotonicTime) -> Bool {
        guard awaitingAudio, let start = predictedStart, start <= now else { return false }
        anchor = PositionAnchor(position: anchor.position, at: start, rate: anchor.rate, running: true)
        reset(awaiting: false)
        return true
    }

    private mutating func reset(awaiting: Bool) {
        awaitingAudio = awaiting
        rateChangedAt = nil
        impliedStart = nil
        predictedStart = nil
        previousSample = nil
        departures.removeAll()
    }
}
