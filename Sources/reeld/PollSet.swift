import Glibc

/// The descriptors the run loop waits on, each by name, and what a poll found ready.
struct PollSet {
    enum Source: Int, CaseIterable {
        /// The session bus's socket.
        case bus
        /// The backend's wakeup pipe: mpv's events, the cache's and the sink's news.
        case backend
        /// The self-pipe the stop signals write.
        case stop
        /// Results posted by worker threads (imports, cover art, probes, library writes).
        case tasks
        /// The timerfd armed at the engine's deadline.
        case timer
    }

    private let sources: [pollfd]
    private var polled: [pollfd] = []

    init(_ descriptors: (Source) -> Int32) {
        sources = Source.allCases.map { pollfd(fd: descriptors($0), events: Int16(POLLIN), revents: 0) }
    }

    /// Waits until a source or one of `extra` (the MPD bus's sockets, with their own events)
    /// is ready, or `timeoutMs` passed (-1: no limit); poll's result.
    mutating func wait(extra: [pollfd], timeoutMs: Int32) -> Int32 {
        polled = sources + extra
        return poll(&polled, nfds_t(polled.count), timeoutMs)
    }

    /// Whether the last wait found `source` ready.
    func isReady(_ source: Source) -> Bool { polled.indices.contains(source.rawValue) && polled[source.rawValue].revents != 0 }

    /// The extra descriptors as the last wait left them; empty when there were none.
    var extraPolled: [pollfd] { Array(polled.dropFirst(sources.count)) }
}
