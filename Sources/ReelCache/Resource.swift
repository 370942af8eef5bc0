import Foundation
import ReelCore

/// One cached resource: its sparse data file, what is present, and its one
/// fetcher thread, which every reader (the player, a download) waits on.
final class Resource: @unchecked Sendable {
    let url: String
    let key: String
    let file: DataFile
    private let index: CacheIndex
    private let settings: CacheSettings
    private let cond = NSCondition()
    /// Called (off the lock) after bytes were made durable, for eviction and progress.
    var onPersist: (@Sendable () -> Void)?
    /// Called (off the lock) when nothing reads, fetches or downloads it any more.
    var onIdle: (@Sendable () -> Void)?

    // Everything below is guarded by `cond`.
    private(set) var record: ResourceRecord
    private var failure: String?
    private var kind: ResourceKind?
    private var kindWaiters: [@Sendable (ResourceKind) -> Void] = []
    private var readers = 0
    /// Where the latest read wanted bytes; the readahead counts from here.
    private var readPosition: Int64 = 0
    /// A reader waits for this missing byte.
    private var wanted: Int64?
    private var downloading = false
    /// Bytes from the start wanted with no reader yet (a probe, the next entry).
    private var holdUntil: Int64 = 0
    /// Until when a held transfer waits, paused, for its reader to come.
    private var holdExpiry = Date.distantPast
    private var fetcherRunning = false
    private var transfer: HTTPTransfer?
    /// The next byte the running transfer will write.
    private var transferAt: Int64?
    /// The server sends whole bodies whatever the Range: never move, wait.
    private var ignoresRanges = false
    /// The end of the last out-of-window fetch: a read there is a real seek.
    private var sideEnd: Int64?
    private var sideSize = sideBytes
    /// Side fetches in a row that brought nothing.
    private var sideFailures = 0
    /// Kept, so that side fetches reuse their connection; used by the fetcher thread only.
    private lazy var side = HTTPTransfer()
    private var unsynced: Int64 = 0
    /// What the index was last given.
    private var persisted: ResourceRecord?
    private let persisting = NSLock()
    /// Bytes received from the network, for the statistics.
    private(set) var fetched: Int64 = 0

    init(record: ResourceRecord, file: DataFile, index: CacheIndex, settings: CacheSettings) {
        url = record.url
        key = record.key
        self.record = record
        self.file = file
        self.index = index
        self.settings = settings
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        cond.lock()
        defer { cond.unlock() }
        return try body()
    }

    var snapshot: ResourceRecord { locked { record } }
    var fetchedBytes: Int64 { locked { fetched } }
    /// Read, fetched or downloaded now: never evicted.
    var isBusy: Bool { locked { readers > 0 || fetcherRunning || downloading } }
    var isDownloading: Bool { locked { downloading } }
    var lastFailure: String? { locked { failure } }
    /// Worth keeping in memory while idle: what it says of the URL (a failure, a live stream) is not in the index.
    var remembers: Bool { locked { failure != nil || kind == .live } }

    // MARK: Interest

    /// Says what the URL is, from the index when it knows, else from the
    /// first response, whose body is kept. Calls `done` on any thread.
    func classify(_ done: @escaping @Sendable (ResourceKind) -> Void) {
        cond.lock()
        if kind == nil, record.length != nil || !record.present.isEmpty {
            kind = Self.isLive(contentType: record.contentType, length: record.length, icy: false) ? .live : .media
        }
        if let kind, kind != .live || !fetcherRunning {
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

    /// Fetches the first `bytes` ahead of any reader (the next entry in play order).
    func prefetch(_ bytes: Int64) {
        locked {
            guard !record.isComplete else { return }
            beginAttempt()
            holdUntil = max(holdUntil, bytes)
            holdExpiry = Date().addingTimeInterval(10)
            startFetcher()
        }
    }

    func openReader() {
        locked {
            beginAttempt()
            readers += 1
            readPosition = 0
            sideEnd = nil
        }
    }

    func closeReader() {
        locked {
            readers -= 1
            if readers == 0 { wanted = nil }
            transfer?.wake()
            cond.broadcast()
        }
        persist()
        if !isBusy { onIdle?() }
    }

    /// Fetches every missing byte, with or without readers. False when it was already complete.
    @discardableResult
    func download(_ on: Bool) -> Bool {
        locked {
            downloading = on
            guard on, !record.isComplete else { downloading = false; transfer?.wake(); return false }
            beginAttempt()
            startFetcher()
            transfer?.wake()
            return true
        }
    }

    /// Waits until no fetch runs (a download completes or fails), or `timeout` passes; whether idle.
    func waitIdle(timeout: Double) -> Bool {
        locked {
            if fetcherRunning { _ = cond.wait(until: Date().addingTimeInterval(timeout)) }
            return !fetcherRunning
        }
    }

    /// A failed attempt is forgotten when something asks again.
    private func beginAttempt() {
        if !fetcherRunning, failure != nil {
            failure = nil
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
            if let end = record.present.runEnd(from: offset) {
                let n = Int(min(Int64(count), end - offset))
                readPosition = offset + Int64(n)
                if wanted != nil { wanted = nil }
                transfer?.wake()
                cond.unlock()
                let got = file.read(into: buffer, count: n, at: offset)
                return got > 0 ? got : -1
            }
            if let length = record.length, offset >= length { cond.unlock(); return 0 }
            if failure != nil { cond.unlock(); return -1 }
            readPosition = offset
            wanted = offset
            startFetcher()
            transfer?.wake()
            _ = cond.wait(until: Date().addingTimeInterval(0.1))
            if !reportedStall, Date().timeIntervalSince(started) >= 0.1 {
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
            !ignoresRanges || record.present.contains(offset) || offset <= (transferAt ?? 0) + Self.sideBytes
                || record.length.map { offset >= $0 } == true
        }
    }

    /// Wakes readers blocked in `read` so that they see their cancellation.
    func wakeReaders() { locked { cond.broadcast() } }

    // MARK: The fetcher

    private struct Plan {
        var from: Int64
        var to: Int64?
        var ifRange: String?
    }

    /// Under the lock.
    private var interested: Bool { readers > 0 || downloading || holdUntil > 0 || !kindWaiters.isEmpty }

    private func startFetcher() {
        guard !fetcherRunning, failure == nil else { return }
        fetcherRunning = true
        let thread = Thread { [self] in fetchLoop() }
        thread.name = "reel-fetch"
        thread.start()
    }

    /// What to fetch next, under the lock; nil when nothing is wanted.
    private func nextPlan() -> Plan? {
        guard failure == nil, interested else { return nil }
        var from = record.present.firstMissing(from: wanted ?? (readers > 0 ? readPosition : 0))
        if let length = record.length, from >= length {
            guard downloading || holdUntil > 0 || readers > 0 else { return nil }
            from = record.present.firstMissing(from: 0)
            if from >= length { return nil }
        }
        if !downloading, wanted == nil, from >= horizon { return nil }
        let validator = record.etag.flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? record.lastModified
        // Resources are fetched in bounded chunks (the first one too, which
        // tells the length), so that a transfer never
        // runs into bytes a side fetch brought meanwhile, and stopping one
        // (nobody wants its bytes any more) loses little in flight.
        let chunk = downloading ? Self.downloadChunk : Self.chunk
        let to = min(record.present.nextPresent(after: from) ?? Int64.max, from + chunk, record.length ?? Int64.max)
        return Plan(from: from, to: to == Int64.max ? nil : to, ifRange: record.present.isEmpty ? nil : validator)
    }

    /// How far ahead bytes are wanted without a download.
    private var horizon: Int64 {
        max(readers > 0 ? readPosition + settings.readahead : 0, holdUntil)
    }

    private func fetchLoop() {
        var attempts = 0
        let transfer = HTTPTransfer()
        while true {
            cond.lock()
            guard let plan = nextPlan() else {
                fetcherRunning = false
                self.transfer = nil
                transferAt = nil
                holdUntil = 0
                if !kindWaiters.isEmpty, let failure { notifyKind(.failed(failure)) }
                cond.broadcast()
                let idle = readers == 0 && !downloading
                cond.unlock()
                persist()
                if idle { onIdle?() }
                return
            }
            self.transfer = transfer
            transferAt = plan.from
            let before = record.present.count
            cond.unlock()

            trace("fetch \(plan.from)-\(plan.to.map(String.init) ?? "") of \(url)")
            let outcome = transfer.run(
                HTTPTransfer.Request(url: url, from: plan.from, to: plan.to, ifRange: plan.ifRange, timeout: settings.timeout),
                steer: { steer(plan) },
                onResponse: { [self] in accept($0, for: plan) },
                onData: { [self] in store($0) })
            persist()
            trace("fetch of \(url) ended: \(outcome) at \(locked { transferAt ?? -1 })")

            cond.lock()
            // Bytes sent again (a server ignoring Range) are no progress.
            let progressed = record.present.count > before
            switch outcome {
            case .completed:
                // A body that ended short of the range asked for (or a whole body) ended at the end.
                if record.length == nil, let at = transferAt, at != plan.to { record.length = at }
                attempts = 0
            case .status(416) where record.length == nil:
                record.length = plan.from
            case .stopped:
                attempts = 0
            case .status(let code):
                fail("HTTP \(code) from \(host)")
            case .timedOut(answered: false) where !progressed && record.present.isEmpty:
                fail("timed out connecting to \(host): no answer in \(settings.timeout) s")
            case .timedOut, .failed:
                attempts = progressed ? 1 : attempts + 1
                if attempts > settings.retries {
                    fail(describe(outcome))
                } else {
                    // Back off, unless nobody wants the bytes any more.
                    let until = Date().addingTimeInterval(settings.backoff * Double(1 << min(attempts - 1, 5)))
                    while interested, Date() < until { _ = cond.wait(until: until) }
                }
            }
            cond.unlock()
        }
    }

    /// Under the lock.
    private func fail(_ reason: String) {
        failure = reason
        notifyKind(.failed(reason))
        cond.broadcast()
    }

    private func describe(_ outcome: HTTPTransfer.Outcome) -> String {
        let reached = transferAt ?? 0
        let total = record.length.map { " of \(ByteCount.text($0))" } ?? ""
        switch outcome {
        case .timedOut where reached > 0 || !record.present.isEmpty:
            return "the server stopped sending at \(ByteCount.text(reached))\(total) (no data for \(settings.timeout) s)"
        case .failed(let message) where reached > 0:
            return "the connection to \(host) dropped at \(ByteCount.text(reached))\(total): \(message)"
        case .failed(let message): return "cannot reach \(host): \(message)"
        default: return "timed out connecting to \(host): no answer in \(settings.timeout) s"
        }
    }

    private var host: String { URL(string: url)?.host ?? "the server" }

    /// Called by the transfer between reads: whether to go on.
    private func steer(_ plan: Plan) -> HTTPTransfer.Steer {
        cond.lock()
        guard interested, failure == nil, let at = transferAt else { cond.unlock(); return .stop }
        // A read away from the transfer is served by side fetches, which grow
        // while the reader reads on (a seek) and start before it catches up;
        // the main transfer waits, paused, so that no byte in flight is lost.
        // A wanted byte that has arrived since is no reason to fetch.
        var target = wanted.flatMap { record.present.contains($0) ? nil : $0 }
        if target == nil, readers > 0, let end = sideEnd, readPosition >= end - sideSize / 2, readPosition < end,
           !record.present.contains(end), record.length.map({ end < $0 }) ?? true {
            target = end
        }
        // Bytes the running request will bring are waited for.
        let requestEnd = plan.to ?? Int64.max
        if let target, target < at || (!ignoresRanges && target >= at + Self.nearby && target >= requestEnd) {
            if ignoresRanges {
                // Only a new request from the start reaches a byte behind this one.
                cond.unlock()
                return .stop
            }
            sideSize = target == sideEnd ? min(sideSize * 2, max(settings.readahead, Self.sideBytes)) : Self.sideBytes
            let to = min(record.present.nextPresent(after: target) ?? Int64.max, target + sideSize,
                         record.length ?? Int64.max)
            sideEnd = to
            cond.unlock()
            let started = Date()
            sideFetch(from: target, to: to)
            return Date().timeIntervalSince(started) > 0.1 ? .resetTimer : .go
        }
        // Far enough ahead: a reader's transfer waits (its connection open), and so
        // does a probe's for a while, for the reader that mpv is about to open.
        // Behind a reader that moved on (side fetches serve it) counts as ahead too.
        let ahead = !downloading && wanted == nil && (at >= horizon || (readers > 0 && at + Self.nearby < readPosition))
        let steer: HTTPTransfer.Steer = !ahead ? .go : readers > 0 || Date() < holdExpiry ? .pause : .stop
        cond.unlock()
        return steer
    }

    /// Bytes ahead of the transfer that a reader waits for rather than move it.
    private static let nearby: Int64 = 64 << 10
    private static let sideBytes: Int64 = 256 << 10
    private static let chunk: Int64 = 1 << 20
    private static let downloadChunk: Int64 = 16 << 20

    private func sideFetch(from: Int64, to: Int64) {
        trace("side fetch \(from)-\(to) of \(url)")
        var at = from
        let ifRange = locked { record.etag.flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? record.lastModified }
        let outcome = side.run(HTTPTransfer.Request(url: url, from: from, to: to == Int64.max ? nil : to, ifRange: ifRange,
                                          timeout: settings.timeout),
                     steer: { [self] in locked { interested && failure == nil } ? .go : .stop },
                     onResponse: { [self] response in
                         // Anything but the exact range asked for is left to the main transfer.
                         guard response.status == 206, let range = ContentRange(response.headers["content-range"]),
                               range.first == from, locked({ record.length == nil || range.total == record.length })
                         else {
                             // Not the range asked for: from now on only the main transfer fetches.
                             locked { ignoresRanges = true }
                             return false
                         }
                         return true
                     },
                     onData: { [self] bytes in
                         guard (try? file.write(bytes, at: at)) != nil else { return false }
                         locked {
                             record.present.insert(at..<at + Int64(bytes.count))
                             fetched += Int64(bytes.count)
                             unsynced += Int64(bytes.count)
                             cond.broadcast()
                         }
                         at += Int64(bytes.count)
                         return true
                     })
        locked {
            if at > from {
                sideFailures = 0
            } else if outcome != .stopped {
                sideFailures += 1
                if sideFailures > settings.retries { fail(describe(outcome)) }
            }
        }
    }

    /// Checks the response against what is stored; false stops the transfer.
    private func accept(_ response: HTTPTransfer.Response, for plan: Plan) -> Bool {
        cond.lock()
        defer { cond.broadcast(); cond.unlock() }
        let headers = response.headers
        let etag = headers["etag"], lastModified = headers["last-modified"]
        var start: Int64 = 0
        var total: Int64?
        if response.status == 206 {
            guard let range = ContentRange(headers["content-range"]), range.first == plan.from else {
                failure = "\(host) answered a range other than the one asked for"
                notifyKind(.failed(failure!))
                return false
            }
            start = range.first
            total = range.total
        } else {
            // A whole body: the server ignores Range, or the resource changed.
            total = headers["content-length"].flatMap { Int64($0) }
            if plan.from > 0 || plan.to != nil { ignoresRanges = true }
        }
        let changed = (etag != nil && record.etag != nil && etag != record.etag)
            || (total != nil && record.length != nil && total != record.length)
            || (response.status == 200 && plan.ifRange != nil && etag == nil && lastModified != record.lastModified)
        if changed, !record.present.isEmpty {
            file.truncate()
            record.present = ByteRanges()
            ignoresRanges = false
            try? index.save(record)
        }
        record.length = total ?? (changed ? nil : record.length)
        record.etag = etag ?? record.etag
        record.lastModified = lastModified ?? record.lastModified
        record.contentType = headers["content-type"] ?? record.contentType
        transferAt = start
        let live = Self.isLive(contentType: headers["content-type"], length: total,
                               icy: headers.keys.contains { $0.hasPrefix("icy-") })
        if kind == nil || live { notifyKind(live ? .live : .media) }
        return !live
    }

    /// Under the lock.
    private func notifyKind(_ new: ResourceKind) {
        if case .failed = new {} else { kind = new }
        let waiters = kindWaiters
        kindWaiters.removeAll()
        for waiter in waiters { waiter(new) }
    }

    /// Writes body bytes at the transfer's offset.
    private func store(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let at = locked({ transferAt }) else { return false }
        let length = locked { record.length }
        if let length, at + Int64(bytes.count) > length {
            locked { fail("\(host) sent more than the \(length) bytes it announced") }
            return false
        }
        if length == nil, at + Int64(bytes.count) > settings.largestUnknownLength {
            locked { fail("\(host) sends without end and gives no length; more than \(ByteCount.text(settings.largestUnknownLength)) is not cached") }
            return false
        }
        do {
            try file.write(bytes, at: at)
        } catch {
            locked { fail("\(error)") }
            return false
        }
        let flush = locked { () -> Bool in
            record.present.insert(at..<at + Int64(bytes.count))
            transferAt = at + Int64(bytes.count)
            fetched += Int64(bytes.count)
            unsynced += Int64(bytes.count)
            cond.broadcast()
            return unsynced >= 1 << 20
        }
        if flush { persist() }
        return true
    }

    /// Syncs the data file, then lets the index claim what is now durable:
    /// the claim is taken before the sync, so it holds only synced bytes.
    func persist() {
        // One at a time: a persist that finds nothing new must not return before another's save is done.
        persisting.lock()
        defer { persisting.unlock() }
        let claim = locked { () -> ResourceRecord? in
            // A live stream is never cached.
            guard kind != .live, unsynced > 0 || record != persisted else { return nil }
            unsynced = 0
            persisted = record
            return record
        }
        guard let claim else { return }
        do {
            try file.sync()
        } catch {
            locked { fail("\(error)") }
            return
        }
        try? index.save(claim)
        onPersist?()
    }

    static func isLive(contentType: String?, length: Int64?, icy: Bool) -> Bool {
        if length == nil, icy { return true }
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return liveTypes.contains(type)
    }

    /// Playlists and stream manifests: mpv expands or follows them itself.
    static let liveTypes: Set<String> = [
        "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl",
        "audio/x-scpls", "application/pls+xml", "application/dash+xml", "video/vnd.mpeg.dash.mpd",
        "application/xspf+xml", "audio/x-ms-wax", "video/x-ms-asf", "application/smil+xml",
    ]
}

private let tracing = ProcessInfo.processInfo.environment["REEL_TRACE"] != nil

/// REEL_TRACE=1 logs every fetch.
func trace(_ line: @autoclosure () -> String) {
    if tracing { FileHandle.standardError.write(Data("reeld: cache: \(line())\n".utf8)) }
}
