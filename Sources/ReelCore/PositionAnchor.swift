/// The position model a desktop widget builds from PlaybackStatus, Rate and Seeked:
/// a position taken at a moment, advancing at `rate` while `running`.
///
/// The engine keeps exactly this model so that every signal it emits lets a
/// widget reproduce the daemon's own prediction.
public struct PositionAnchor: Equatable, Sendable {
    public var position: MediaTime
    public var at: MonotonicTime
    public var rate: Double
    public var running: Bool

    public init(position: MediaTime, at: MonotonicTime, rate: Double, running: Bool) {
        self.position = position
        self.at = at
        self.rate = rate
        self.running = running
    }

    /// The predicted position at `now`. Computed from the integer elapsed time
    /// each call, so no error accumulates.
    public func position(at now: MonotonicTime) -> MediaTime {
        guard running, now > at else { return position }
        return position + MediaTime((Double(now - at) * rate).rounded())
    }

    /// When the motion reaches `target` (µs, rounded up, so never before); nil while it does not run.
    public func time(reaching target: MediaTime) -> MonotonicTime? {
        guard running, rate > 0 else { return nil }
        return at + MonotonicTime((Double(target - position) / rate).rounded(.up))
    }

    /// The same motion re-based at `now`, with new rate and running flag.
    public func rebased(at now: MonotonicTime, rate: Double? = nil, running: Bool? = nil) -> PositionAnchor {
        PositionAnchor(position: position(at: now), at: now, rate: rate ?? self.rate, running: running ?? self.running)
    }
}
