import ReelCore

/// Where the backend reads remote media from, instead of letting mpv fetch
/// it: the daemon hands it the cache. Called on mpv's threads and the loop's.
public protocol StreamSource: AnyObject, Sendable {
    /// Whether it can take a file now (it logs when that changes); without room, mpv streams remote media itself.
    var hasRoom: Bool { get }
    /// Says what `url` is (on any thread): media and live streams are read
    /// through `openReader`, the rest goes to mpv as it is.
    func classify(_ url: String, _ done: @escaping @Sendable (ResourceKind) -> Void)
    /// A reader of `url`; `onTitle` hears a live stream's title and station (on any thread).
    func openStreamReader(_ url: String, onTitle: @escaping @Sendable (_ title: String?, _ station: String?) -> Void)
        throws -> any StreamReader
}

extension StreamSource {
    /// Starts fetching `url` before it plays (the entry queued next): classifying a resource opens
    /// its connection and fills its read-ahead, so that it starts without a gap.
    public func prefetch(_ url: String) { classify(url) { _ in } }
}

/// One open remote file, read by mpv through a stream callback. `read`
/// blocks while bytes are missing and returns 0 at the end, -1 on failure.
public protocol StreamReader: AnyObject {
    var url: String { get }
    var isLive: Bool { get }
    /// The length, when known.
    var size: Int64? { get }
    /// Why the last read failed.
    var failure: String? { get }
    /// Told when reading starts and stops waiting for the network.
    var onStall: (@Sendable (Bool) -> Void)? { get set }
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int
    /// The offset reached, or -1.
    func seek(to offset: Int64) -> Int64
    /// Wakes a blocked read, which then fails.
    func cancel()
    func close()
}
