import FoundationEssentials
import Glibc

/// A media position or duration in integer microseconds, the unit MPRIS uses.
///
/// Floating-point seconds from the backend are converted once, at the edge,
/// with `MediaTime.fromSeconds`; arithmetic inside reel never uses doubles for time.
public typealias MediaTime = Int64

/// A reading of a monotonic clock, in microseconds.
public typealias MonotonicTime = Int64

extension Int64 {
    /// Converts backend seconds to microseconds, rounding to the nearest µs.
    /// Non-finite input (mpv reports NaN for unknown values) becomes nil.
    public static func fromSeconds(_ seconds: Double) -> Int64? {
        guard seconds.isFinite else { return nil }
        let micros = (seconds * 1_000_000).rounded()
        guard micros > -9.2e18, micros < 9.2e18 else { return nil }
        return Int64(micros)
    }

    /// Microseconds to seconds for display and for backend commands only.
    public var seconds: Double { Double(self) / 1_000_000 }
}
