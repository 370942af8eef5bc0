import Glibc

/// CLOCK_MONOTONIC in µs (ReelCore's `MonotonicTime`): the time adapters stamp inputs with.
/// It lives here, not in ReelCore: the engine never reads a clock; it is given the time with
/// every input.
public func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1_000
}

/// CLOCK_REALTIME in ns since 1970: what file times are compared with, and what clients are told as dates.
public func wallClockNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
