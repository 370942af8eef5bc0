import Foundation
import ReelCore

/// CLOCK_MONOTONIC in µs: the clock position anchors are measured against.
func monotonicNow() -> MonotonicTime {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return MonotonicTime(ts.tv_sec) * 1_000_000 + MonotonicTime(ts.tv_nsec) / 1_000
}
