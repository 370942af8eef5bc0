import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// One cached resource: its sparse data file, what is present, and its one
/// fetcher thread, which every reader (the player, a download) waits on.
final class Resource: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `cond`; the rest is immutable.
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

    // Everything below is guarded by `cond`; Resource+Fetching.swift shares it.
    var record: ResourceRecord
    var failure: String?
    /// The HTTP status behind `failure`, when there was one.
    var failedStatus: Int?
    var kind: ResourceKind?
    var kindWaiters: [@Sendable (ResourceKind) -> Void] = []
    var readers = 0
    /// Where the latest read wanted bytes; the readahead counts from here.
    var readPosition: Int64 = 0
    /// A reader waits for this missing byte.
    var wanted: Int64?
    /// Readers waiting for bytes: only they need waking when some arrive.
    var byteWaiters = 0
    var downloading = false
    /// Bytes from the start wanted with no reader yet (a probe, the next entry).
    var holdUntil: Int64 = 0
    /// Until when a held transfer waits, paused, for its reader to come.
    var holdExpiry = Date.distantPast
    var fetcherRunning = false
    var transfer: HTTPTransfer?
    /// The next byte the running transfer will write.
    var transferAt: Int64?
    /// The server sends whole bodies whatever the Range: never move, wait.
    var ignoresRanges = false
    /// The end of the last out-of-window fetch: a read there is a real seek.
    var sideEnd: Int64?
    var sideSize = sideBytes
    /// Side fetches in a row that brought nothing.
    var sideFailures = 0
    /// Kept, so that side fetches reuse their connection; used by the fetcher thread only.
    lazy var side = HTTPTransfer()
    var unsynced: Int64 = 0
    /// Bytes written since the kernel was last asked to write back.
    var unflushed: Int64 = 0
    /// What the index was last given (or had when the resource was made).
    var persisted: ResourceRecord
    let persisting = Lock()
    /// A live stream's audio on its way from its one connection to the reader.
    var live: LiveBuffer?
    /// Once the disk refused a write: the bytes fetched since, for the reader
    /// (`record.present` counts them; the index never claims them).
    var memory: MemoryWindow?
    /// Readers told of a live stream's title and station.
    var titleListeners: [Int: @Sendable (_ title: String?, _ station: String?) -> Void] = [:]
    var nextListener = 0

    init(record: ResourceRecord, file: DataFile, index: CacheIndex, settings: CacheSettings) {
        url = record.url
        key = record.key
        self.record = record
        persisted = record
        self.file = file
        self.index = index
        self.settings = settings
    }

    /// Runs `body` holding the resource's lock.
    func locked<T>(_ body: () throws -> T) rethrows -> T { try cond.withLock(body) }

    /// What is present on disk (bytes held in memory are not).
    var snapshot: ResourceRecord { locked { onDisk } }
    /// Under the lock.
    var onDisk: ResourceRecord {
        guard let memory else { return record }
        var disk = record
        memory.ranges.forEach { disk.present.remove($0) }
        return disk
    }
    /// Read, fetched or downloaded now: never evicted.
    var isBusy: Bool { locked { readers > 0 || fetcherRunning || downloading } }
    var isDownloading: Bool { locked { downloading } }
    var lastFailure: String? { locked { failure } }
    /// Why its disk refused a write, once it did (it goes on from memory).
    var diskRefusal: String? { locked { memory?.reason } }
    /// A failure that trying again will not mend: the server said the request is wrong (4xx), or the URL is
    /// a live stream or a playlist, which have no file to download.
    var failedForGood: Bool {
        locked { failure != nil && ((failedStatus.map { (400..<500).contains($0) } ?? false) || kind == .live || kind == .direct) }
    }
    /// Worth keeping in memory while idle: what it says of the URL (a failure, a live stream, a playlist)
    /// is not in the index.
    var remembers: Bool { locked { failure != nil || kind == .live || kind == .direct } }

    // MARK: Interest

    /// Says what the URL is, from the index when it knows, else from the
    /// first response, whose body is kept. Calls `done` on any thread.
    func classify(_ done: @escaping @Sendable (ResourceKind) -> Void) {
        cond.lock()
        if kind == nil, record.length != nil || !record.present.isEmpty {
            kind = Self.kind(contentType: record.contentType, length: record.length, icy: false)
        }
        // A live stream known already connects when its reader opens: one connection, no probe.
        if let kind {
            cond.unlock()
            return done(kind)
        }
        beginAttempt()
        kindWaiters.append(done)
        holdUntil = max(holdUntil, settings.readahead)
        holdExpiry = Date().addingTimeInterval(10)
        startFetcher()
        cond.unlock()
    }

    /// A new reader; `onTitle` hears a live stream's title and station. The reader's number.
    func openReader(onTitle: @escaping @Sendable (_ title: String?, _ station: String?) -> Void) -> Int {
        let (number, known) = locked { () -> (Int, (String?, String?)?) in
            beginAttempt()
            readers += 1
            readPosition = 0
            sideEnd = nil
            nextListener += 1
            titleListeners[nextListener] = onTitle
            return (nextListener, live.flatMap { $0.title != nil || $0.station != nil ? ($0.title, $0.station) : nil })
        }
        if let known { onTitle(known.0, known.1) }
        return number
    }

    func closeReader(_ number: Int) {
        locked {
            readers -= 1
            titleListeners[number] = nil
            if readers == 0 {
                wanted = nil
                if kind == .live {
                    // Nobody listens: the connection closes, and the next listener hears what is live then.
                    live?.dropAudio()
                    holdUntil = 0
                    holdExpiry = .distantPast
                }
            }
            transfer?.wake()
            cond.broadcast()
        }
        persist()
        if !isBusy { onIdle?() }
    }

    /// Fetches every missing byte, with or without readers. False when it was already complete.
    /// A download keeps the resource busy until `download(false)`, complete or not: an idle
    /// release (the last reader's fetcher winding down) must not drop it while it is moved
    /// into the media store, or the move would take it for gone and leave a second copy.
    @discardableResult
    func download(_ on: Bool) -> Bool {
        locked {
            // Once the disk refused a write, no download can be whole on disk (`diskRefusal` says why).
            downloading = on && memory == nil
            guard downloading, !record.isComplete else { transfer?.wake(); return false }
            beginAttempt()
            startFetcher()
            transfer?.wake()
            return true
        }
    }

    /// Waits until no fetch runs (a download completes or fails), or `timeout` passes; whether idle.
    func waitIdle(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return locked {
            // Every stored chunk wakes the waiters (readers wait for bytes): wait on until the deadline.
            while fetcherRunning, cond.wait(until: deadline) {}
            return !fetcherRunning
        }
    }

    /// A failed attempt is forgotten when something asks again.
    func beginAttempt() {
        if !fetcherRunning, failure != nil {
            failure = nil
            failedStatus = nil
            if kind != .live { kind = nil }
        }
    }

    // MARK: Reading (mpv's threads)

    /// Reads up to `count` bytes at `offset`, waiting while they are missing.
    /// 0 only at the end of the resource; -1 on a failure or when cancelled.
    /// `stalled` hears when a read has waited long enough for playback to stall, and when it ends.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64, cancelled: () -> Bool,
              stalled: (Bool) -> Void = { _ in }) -> Int {
        cond.lock()
        record.lastRead = Int64(Date().timeIntervalSince1970)
        let started = Date()
        var reportedStall = false
        defer { if reportedStall { stalled(false) } }
        while true {
            if cancelled() { cond.unlock(); return -1 }
            if kind == .live, live != nil {
                let n = live!.take(into: buffer, count: count)
                if n > 0 {
                    transfer?.wake()
                    cond.unlock()
                    return n
                }
            } else if var end = record.present.runEnd(from: offset) {
                if let memory {
                    let n = memory.copy(into: buffer, count: count, at: offset)
                    if n > 0 {
                        readPosition = offset + Int64(n)
                        if wanted != nil { wanted = nil }
                        transfer?.wake()
                        cond.unlock()
                        return n
                    }
                    end = min(end, memory.firstHeld(from: offset) ?? end)   // the file holds up to there
                }
                let n = Int(min(Int64(count), end - offset))
                readPosition = offset + Int64(n)
                if wanted != nil { wanted = nil }
                transfer?.wake()
                cond.unlock()
                let got = file.read(into: buffer, count: n, at: offset)
                return got > 0 ? got : -1
            }
            if kind != .live, let length = record.length, offset >= length { cond.unlock(); return 0 }
            if failure != nil { cond.unlock(); return -1 }
            readPosition = offset
            wanted = offset
            startFetcher()
            transfer?.wake()
            byteWaiters += 1
            _ = cond.wait(until: Date().addingTimeInterval(0.1))
            byteWaiters -= 1
            // A live stream's bytes come in real time: waiting for them is no stall (mpv's cache tells those).
            if !reportedStall, kind != .live, Date().timeIntervalSince(started) >= 0.1 {
                reportedStall = true
                cond.unlock()
                stalled(true)
                cond.lock()
            }
        }
    }

    /// Whether a reader may move to `offset`. A server that ignores Range
    /// can reach a far byte only by sending everything before it: such a
    /// seek is refused (mpv then does without, as it does over plain HTTP).
    func canSeek(to offset: Int64) -> Bool {
        locked {
            kind != .live && !ignoresRanges || record.present.contains(offset) || offset <= (transferAt ?? 0) + Self.sideBytes
                || record.length.map { offset >= $0 } == true
        }
    }

    /// Wakes readers blocked in `read` so that they see their cancellation.
    func wakeReaders() { locked { cond.broadcast() } }

    /// Syncs the data file, then lets the index claim what is now durable:
    /// the claim is taken before the sync, so it holds only synced bytes.
    func persist() {
        // One at a time: a persist that finds nothing new must not return before another's save is done.
        persisting.lock()
        defer { persisting.unlock() }
        let claim = locked { () -> (ResourceRecord, Int64, ResourceRecord)? in
            // A live stream is never cached, nor a playlist, nor anything once the disk refused a write.
            guard kind != .live, kind != .direct, memory == nil, unsynced > 0 || record != persisted else { return nil }
            let gained = record.present.count - persisted.present.count
            let before = persisted
            unsynced = 0
            persisted = record
            return (record, gained, before)
        }
        guard let (claim, gained, before) = claim else { return }
        do {
            try file.sync()
        } catch {
            // The disk failed under the bytes written since the last claim (EIO, EROFS): they are
            // neither claimed nor trusted (a failed disk may drop them), but fetched again into
            // memory, where what comes next goes on (a download fails).
            locked {
                record.present = before.present
                persisted = before
            }
            _ = refusedByDisk(error)
            return
        }
        try? index.save(claim)
        onPersist?(gained)
    }

    /// The bytes now live in the media store (the file was moved there); what the index is to say.
    func markStored() -> ResourceRecord {
        locked {
            record.stored = true
            persisted = record
            return record
        }
    }

    /// What a response says the URL is.
    static func kind(contentType: String?, length: Int64?, icy: Bool) -> ResourceKind {
        let type = contentType?.split(separator: ";").first?.trimmed().lowercased()
        if let type, directTypes.contains(type) { return .direct }
        return length == nil && icy ? .live : .media
    }

    /// Playlists and stream manifests: mpv expands or follows them itself.
    static let directTypes: Set<String> = [
        "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl",
        "audio/x-scpls", "application/pls+xml", "application/dash+xml", "video/vnd.mpeg.dash.mpd",
        "application/xspf+xml", "audio/x-ms-wax", "video/x-ms-asf", "application/smil+xml",
    ]
}

private let tracing = ProcessInfo.processInfo.environment["REEL_TRACE"] != nil

/// REEL_TRACE=1 logs every fetch.
func trace(_ line: @autoclosure () -> String) {
    if tracing { writeStandardError("reeld: cache: \(line())") }
}
