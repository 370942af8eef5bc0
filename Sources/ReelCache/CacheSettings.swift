import FoundationEssentials
import Glibc

/// Limits and timings shared by every resource.
public struct CacheSettings: Sendable {
    /// Bytes fetched ahead of the read position.
    public var readahead: Int64 = 4 << 20
    /// Seconds without a byte before a request is given up.
    public var timeout = 15
    /// Attempts without progress, after a drop or a stall, before the fetch fails.
    public var retries = 3
    /// The most a resource of unknown length may take: an endless stream
    /// without ICY headers would otherwise fill the disk (the cache sets half its size).
    public var largestUnknownLength: Int64 = 1 << 30
    /// First pause between attempts, doubled each time.
    public var backoff = 0.5

    /// Seconds to wait after `attempts` failed attempts in a row: `backoff`, doubled each time (up to 32×).
    func delay(afterAttempts attempts: Int) -> Double { backoff * Double(1 << min(max(attempts - 1, 0), 5)) }
    public init() {}
}
