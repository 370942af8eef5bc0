import FoundationEssentials
import ReelSystem
import Glibc

/// What a live stream's connection knows and decides: a pure value, like `FetchState`.
struct LiveState {
    let url: String
    let settings: CacheSettings
    var buffer = LiveBuffer()
    var readers = 0
    /// Until when the connection stays open with nobody listening (a probe's, for the reader about to come).
    var holdExpiry: Date
    var failure: FetchFailure?
    /// A connection (its thread) runs.
    var connecting: Bool
    /// Connections in a row that brought no audio.
    var attempts = 0

    /// Whether a connection must start now for a reader who came.
    mutating func openReader() -> Bool {
        readers += 1
        guard !connecting else { return false }
        failure = nil
        connecting = true
        attempts = 0
        return true
    }

    mutating func closeReader() {
        readers -= 1
        if readers == 0 {
            // Nobody listens: the connection closes, and the next listener hears what is live then.
            buffer.dropAudio()
            holdExpiry = .distantPast
        }
    }

    /// One connection while someone listens (or is about to), never more; false ends the thread.
    mutating func connectsAgain(now: Date) -> Bool {
        connecting = failure == nil && (readers > 0 || now < holdExpiry)
        return connecting
    }

    /// Held while the reader has enough; closed when nobody listens.
    func steer(now: Date) -> HTTPTransfer.Steer {
        failure != nil || (readers == 0 && now >= holdExpiry) ? .stop : buffer.isFull ? .pause : .go
    }

    /// The connection ended: the listener gone, or the station dropped it (then it reconnects,
    /// backing off). When to try again, if it is to wait.
    mutating func ended(_ outcome: HTTPTransfer.Outcome, now: Date) -> Date? {
        let heard = buffer.received > 0
        switch outcome {
        case .stopped:
            attempts = 0
        case .status(let code):
            failure = FetchFailure("HTTP \(code) from \(host)", status: code)
        case .timedOut(answered: true) where !heard:
            failure = FetchFailure("no audio from \(host) in \(settings.timeout) s")
        default:
            attempts = heard ? 1 : attempts + 1
            if attempts > settings.retries {
                failure = FetchFailure(describe(outcome))
            } else {
                return now.addingTimeInterval(settings.delay(afterAttempts: attempts))
            }
        }
        return nil
    }

    func describe(_ outcome: HTTPTransfer.Outcome) -> String {
        switch outcome {
        case .failed(let message): "the stream from \(host) dropped: \(message)"
        case .timedOut(answered: false): "timed out connecting to \(host): no answer in \(settings.timeout) s"
        default: "\(host) ended the stream"
        }
    }

    var host: String { HTTPTransfer.serverName(of: url) }
}

/// A live stream (ICY, or audio without a length that says it is one): its
/// one connection while someone listens, relayed through a bounded buffer to
/// the reader, never stored. It is made from the connection that found the
/// URL to be live (the probe's, handed over), so that a listener costs the
/// station one connection; later listeners connect when they open.
final class LiveStream: @unchecked Sendable {
    // @unchecked: `state`, `listeners` and `transfer` are read and written under `cond`; the rest is immutable.
    let url: String
    private let settings: CacheSettings
    private let cond = Condition()
    private var state: LiveState
    /// Readers told of the stream's title and station, by their number.
    private var listeners: [Int: @Sendable (_ title: String?, _ station: String?) -> Void]
    /// The running connection, woken when its reader takes bytes or leaves.
    private var transfer: HTTPTransfer?

    /// The stream of a connection that answered `headers` and goes on, handed over with the readers
    /// waiting on it (their title listeners) and the time it may stay open with none.
    init(url: String, settings: CacheSettings, headers: [String: String], readers: Int, holdExpiry: Date,
         listeners: [Int: @Sendable (_ title: String?, _ station: String?) -> Void]) {
        self.url = url
        self.settings = settings
        state = LiveState(url: url, settings: settings, readers: readers, holdExpiry: holdExpiry, connecting: true)
        state.buffer.connected(metaint: headers["icy-metaint"], station: headers["icy-name"])
        self.listeners = listeners
    }

    var failure: String? { cond.withLock { state.failure?.reason } }
    var isBusy: Bool { cond.withLock { state.readers > 0 || state.connecting } }

    // MARK: Readers

    func openReader(_ number: Int, onTitle: @escaping @Sendable (_ title: String?, _ station: String?) -> Void) {
        let (start, known) = cond.withLock { () -> (Bool, (String?, String?)?) in
            listeners[number] = onTitle
            let buffer = state.buffer
            return (state.openReader(), buffer.title != nil || buffer.station != nil ? (buffer.title, buffer.station) : nil)
        }
        if let known { onTitle(known.0, known.1) }
        if start { Threads.start(name: "reel-live") { [self] in connect(after: nil, on: HTTPTransfer()) } }
    }

    func closeReader(_ number: Int) {
        cond.withLock {
            listeners[number] = nil
            state.closeReader()
            transfer?.wake()
            cond.broadcast()
        }
    }

    /// Audio as it comes: up to `count` bytes, waiting while none is there; -1 on a failure or when
    /// cancelled. A live stream has no end, and its bytes have no offset.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, cancelled: () -> Bool) -> Int {
        cond.withLock {
            while true {
                if cancelled() { return -1 }
                let n = state.buffer.take(into: buffer, count: count)
                if n > 0 {
                    transfer?.wake()
                    return n
                }
                if state.failure != nil { return -1 }
                _ = cond.wait(until: Date().addingTimeInterval(0.1))
            }
        }
    }

    func wakeReaders() { cond.withLock { cond.broadcast() } }

    // MARK: The connection (its own thread)

    /// Runs the connection: the handed-over one that ended with `first`, if any, then reconnecting
    /// while someone listens. Returns when nobody does, or the station failed for good.
    func connect(after first: HTTPTransfer.Outcome?, on transfer: HTTPTransfer) {
        var outcome = first
        while true {
            let goOn = cond.withLock { () -> Bool in
                if let ended = outcome {
                    trace("live stream \(url) ended (\(ended))")
                    if let until = state.ended(ended, now: Date()) {
                        // Waits while someone still listens.
                        while state.readers > 0 || Date() < state.holdExpiry, Date() < until { _ = cond.wait(until: until) }
                    }
                }
                let again = state.connectsAgain(now: Date())
                self.transfer = again ? transfer : nil
                cond.broadcast()
                return again
            }
            guard goOn else { return }
            outcome = transfer.run(
                HTTPTransfer.Request(url: url, from: 0, to: nil, ifRange: nil, timeout: settings.timeout),
                steer: steer,
                onResponse: { [self] response in
                    cond.withLock { state.buffer.connected(metaint: response.headers["icy-metaint"],
                                                          station: response.headers["icy-name"]) }
                    return true
                },
                onData: store)
        }
    }

    /// Whether the running connection goes on.
    func steer() -> HTTPTransfer.Steer { cond.withLock { state.steer(now: Date()) } }

    /// Audio from the connection: into the buffer, telling the readers a new title.
    func store(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let (news, told) = cond.withLock { () -> ((String?, String?), [@Sendable (String?, String?) -> Void]) in
            let changed = state.buffer.push(bytes)
            cond.broadcast()
            return ((state.buffer.title, state.buffer.station), changed ? Array(listeners.values) : [])
        }
        told.forEach { $0(news.0, news.1) }
        return true
    }
}
