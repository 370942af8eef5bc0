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
