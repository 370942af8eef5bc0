import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// One cached resource: its sparse data file, and its one fetcher thread,
/// which every reader (the player, a download) waits on. The shell around a
/// `FetchState`: it decides under its lock, by asking the state, and acts
/// (threads, the network, the disk, callbacks) outside it. A URL found to be
/// live is handed to a `LiveStream`, which its readers then read.
final class Resource: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `cond`; the callbacks are set once, before use.
    let url: String
    let key: String
    let file: DataFile
    let index: CacheIndex
    let settings: CacheSettings
    let cond = Condition()
    /// Called (off the lock) after the index took a new claim, with the bytes it gained (or lost), for eviction.
    var onPersist: (@Sendable (Int64) -> Void)?
    /// Called (off the lock) when nothing reads, fetches or downloads it any more.
    var onIdle: (@Sendable () -> Void)?
    /// Called (off the lock) when its disk refused a write, with why.
    var onDiskFault: (@Sendable (String) -> Void)?

    // Guarded by `cond`; Resource+Fetching.swift shares them.
    var state: FetchState
    /// Those who asked what the URL is (`state.askingKind` counts them).
    var kindWaiters: [@Sendable (ResourceKind) -> Void] = []
    /// Readers' title listeners, for a live stream they may turn out to be reading.
    var titleListeners: [Int: @Sendable (_ title: String?, _ station: String?) -> Void] = [:]
    var nextReader = 0
    /// The running transfer, woken when a reader wants it to look again.
    var transfer: HTTPTransfer?
    /// Once the URL turned out to be live: its stream, which every reader reads.
    var live: LiveStream?
    /// Kept, so that side fetches reuse their connection; used by the fetcher thread only.
    lazy var side = HTTPTransfer()
    let persisting = Lock()

    init(record: ResourceRecord, file: DataFile, index: CacheIndex, settings: CacheSettings) {
        url = record.url
        key = record.key
        state = FetchState(record: record, settings: settings)
        self.file = file
        self.index = index
        self.settings = settings
    }

    /// Runs `body` on the state under the lock, then wakes whom it says to and tells those who
    /// asked what the URL is, outside the lock.
    @discardableResult
    func perform<T>(_ body: (inout FetchState) -> T) -> T {
        cond.lock()
        let result = body(&state)
        let tell = settle()
        cond.unlock()
        tell()
        return result
    }

    /// Under the lock, after the state decided: wakes whom it says to, and returns the telling of
    /// what the URL is to those who asked, to run outside the lock.
    func settle() -> () -> Void {
        if state.wake {
            state.wake = false
            cond.broadcast()
        }
        guard let news = state.kindNews else { return {} }
        state.kindNews = nil
        let told = kindWaiters
        kindWaiters.removeAll()
        return { told.forEach { $0(news) } }
    }

    /// What is present on disk (bytes held in memory are not).
    var snapshot: ResourceRecord { perform { $0.onDisk } }
    /// Read, fetched or downloaded now: never evicted.
    var isBusy: Bool {
        let (busy, live) = perform { ($0.isBusy, self.live) }
        return busy || live?.isBusy == true
    }
    var isDownloading: Bool { perform { $0.downloading } }
    var lastFailure: String? {
        let (failure, live) = perform { ($0.failure?.reason, self.live) }
        return live?.failure ?? failure
    }
    /// Why its disk refused a write, once it did (it goes on from memory).
    var diskRefusal: String? { perform { $0.memory?.reason } }
    /// A failure that trying again will not mend: the server said the request is wrong (4xx), or the URL is
    /// a live stream or a playlist, which have no file to download.
    var failedForGood: Bool { perform { $0.failedForGood } }
    /// Worth keeping in memory while idle: what it says of the URL (a failure, a live stream, a playlist)
    /// is not in the index.
    var remembers: Bool { perform { $0.remembers } }
    var isLive: Bool { perform { $0.kind == .live } }

    // MARK: Interest

    /// Says what the URL is, from the index when it knows, else from the
    /// first response, whose body is kept. Calls `done` on any thread.
    func classify(_ done: @escaping @Sendable (ResourceKind) -> Void) {
        let known = perform { state -> ResourceKind? in
            let (known, start) = state.classify(now: Date())
            if known == nil { kindWaiters.append(done) }
            if start { startFetcher() }
            return known
        }
        if let known { done(known) }
    }

    /// A new reader; `onTitle` hears a live stream's title and station. The reader's number.
    func openReader(onTitle: @escaping @Sendable (_ title: String?, _ station: String?) -> Void) -> Int {
        let (number, stream) = perform { state -> (Int, LiveStream?) in
            nextReader += 1
            if live == nil {
                state.openReader()
                titleListeners[nextReader] = onTitle
            }
            return (nextReader, live)
        }
        stream?.openReader(number, onTitle: onTitle)
        return number
    }

    func closeReader(_ number: Int) {
        let stream = perform { state -> LiveStream? in
            if live == nil {
                state.closeReader()
                titleListeners[number] = nil
                transfer?.wake()
            }
            return live
        }
        if let stream { return stream.closeReader(number) }
        persist()
        if !isBusy { onIdle?() }
    }

    /// Fetches every missing byte, with or without readers. False when it was already complete.
    /// A download keeps the resource busy until `download(false)`, complete or not: an idle
    /// release (the last reader's fetcher winding down) must not drop it while it is moved
    /// into the media store, or the move would take it for gone and leave a second copy.
    @discardableResult
    func download(_ on: Bool) -> Bool {
        perform { state in
            let (running, start) = state.download(on)
            if start { startFetcher() }
            transfer?.wake()
            return running
        }
    }

    /// Waits until no fetch runs (a download completes or fails), or `timeout` passes; whether idle.
    func waitIdle(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return cond.withLock {
            // Every stored chunk wakes the waiters (readers wait for bytes): wait on until the deadline.
            while state.fetcherRunning, cond.wait(until: deadline) {}
            return !state.fetcherRunning
        }
    }

    // MARK: Reading (mpv's threads)

    /// Reads up to `count` bytes at `offset`, waiting while they are missing.
    /// 0 only at the end of the resource; -1 on a failure or when cancelled.
    /// `stalled` hears when a read has waited long enough for playback to stall, and when it ends.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64, cancelled: () -> Bool,
              stalled: (Bool) -> Void = { _ in }) -> Int {
        let started = Date()
        var reportedStall = false
        defer { if reportedStall { stalled(false) } }
        perform { $0.record.lastRead = Int64(started.timeIntervalSince1970) }
        while true {
            let found = cond.withLock { () -> Found in
                if cancelled() { return .step(.failed) }
                if let live { return .live(live) }
                let step = state.read(into: buffer, count: count, at: offset)
                transfer?.wake()
                guard case .wait(let start) = step else { return .step(step) }
                if start { startFetcher() }
                state.waitingReaders += 1
                _ = cond.wait(until: Date().addingTimeInterval(0.1))
                state.waitingReaders -= 1
                return .step(step)
            }
            switch found {
            case .live(let stream): return stream.read(into: buffer, count: count, cancelled: cancelled)
            case .step(.copied(let n)): return n
            case .step(.file(let n)):
                let got = file.read(into: buffer, count: n, at: offset)
                return got > 0 ? got : -1
            case .step(.end): return 0
            case .step(.failed): return -1
            case .step(.wait):
                if !reportedStall, Date().timeIntervalSince(started) >= 0.1 {
                    reportedStall = true
                    stalled(true)
                }
            }
        }
    }

    /// Where a read found its bytes, or that it must wait on.
    private enum Found {
        case step(FetchState.ReadStep)
        case live(LiveStream)
    }

    /// Whether a reader may move to `offset` (see `FetchState.canSeek`). A live stream plays on
    /// whatever its reader asks: mpv's probe moves back near the start, which it lets pass.
    func canSeek(to offset: Int64) -> Bool {
        perform { state in live == nil ? state.canSeek(to: offset) : offset <= FetchState.sideBytes }
    }

    /// Wakes readers blocked in `read` so that they see their cancellation.
    func wakeReaders() {
        let live = cond.withLock { cond.broadcast(); return self.live }
        live?.wakeReaders()
    }

    /// Syncs the data file, then lets the index claim what is now durable:
    /// the claim is taken before the sync, so it holds only synced bytes.
    func persist() {
        // One at a time: a persist that finds nothing new must not return before another's save is done.
        persisting.lock()
        defer { persisting.unlock() }
        guard let claim = perform({ $0.claim() }) else { return }
        do {
            try file.sync()
        } catch {
            // The disk failed under the bytes written since the last claim (EIO, EROFS): they are
            // neither claimed nor trusted (a failed disk may drop them), but fetched again into
            // memory, where what comes next goes on (a download fails).
            perform { $0.unclaim(back: claim.before) }
            _ = refusedByDisk(error)
            return
        }
        try? index.save(claim.record)
        onPersist?(claim.gained)
    }

    /// The bytes now live in the media store (the file was moved there); what the index is to say.
    func markStored() -> ResourceRecord {
        perform { state in
            state.record.stored = true
            state.persisted = state.record
            return state.record
        }
    }
}

private let tracing = ProcessInfo.processInfo.environment["REEL_TRACE"] != nil

/// REEL_TRACE=1 logs every fetch.
func trace(_ line: @autoclosure () -> String) {
    if tracing { writeStandardError("reeld: cache: \(line())") }
}
