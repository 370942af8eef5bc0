import FoundationEssentials
import Glibc

/// What the first response says a URL is.
public enum ResourceKind: Equatable, Sendable {
    /// A file with bytes at fixed offsets: it goes through the cache.
    case media
    /// A live stream (ICY, or audio without a length that says it is one):
    /// relayed through the cache over its one connection, never stored.
    case live
    /// A playlist or a stream manifest (M3U, PLS, HLS, DASH): mpv opens it itself.
    case direct
    /// The request failed; the reason is for the user.
    case failed(String)
}

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
    public init() {}
}
