import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// The fetcher: what to fetch next, the transfer loop, side fetches, and
/// what each response and each byte does to the resource. Runs on the
/// resource's own thread; shares the resource's state under `cond`.
extension Resource {

    struct Plan {
        var from: Int64
        var to: Int64?
        var ifRange: String?
        /// A download with no reader and a known length: the whole gap in one request;
        /// a reader that comes ends it (`steer`).
        var bulk = false
        /// A download with no reader, in one request or not: large reads (see
        /// `HTTPTransfer.Request.bulk`), and bytes written around the page cache
        /// until a reader comes (`DirectWriter`).
        var unread = false
    }

    /// Under the lock.
    var interested: Bool { readers > 0 || downloading || holdUntil > 0 || !kindWaiters.isEmpty }

    func startFetcher() {
        guard !fetcherRunning, failure == nil else { return }
        fetcherRunning = true
        Threads.start(name: "reel-fetch") { [self] in fetchLoop() }
    }

    /// What to fetch next, under the lock; nil when nothing is wanted.
    func nextPlan() -> Plan? {
        guard failure == nil else { return nil }
        switch kind {
        case .direct?:
            if downloading { fail("\(url) is a playlist or a stream manifest, not a file to download") }
            return nil
        case .live?:
            if downloading { fail("\(url) is a live stream: it has no end to download") }
            // One connection while someone listens (or is about to), never more.
            return failure == nil && (readers > 0 || Date() < holdExpiry) ? Plan(from: 0, to: nil, ifRange: nil) : nil
        default: break
        }
        // A stored file is complete, and the user's: nothing is fetched into it.
        guard interested, !record.stored else { return nil }
        var from = record.present.firstMissing(from: wanted ?? (readers > 0 ? readPosition : 0))
        if let length = record.length, from >= length {
            // Filling the holes behind a reader is for the cache: bytes held in memory would only go again.
            guard downloading || holdUntil > 0 || readers > 0, memory == nil else { return nil }
            from = record.present.firstMissing(from: 0)
            if from >= length { return nil }
        }
        if !downloading, wanted == nil, from >= horizon { return nil }
        // Resources are fetched in bounded chunks (the first one too, which
        // tells the length), so that a transfer never
        // runs into bytes a side fetch brought meanwhile, and stopping one
        // (nobody wants its bytes any more) loses little in flight.
        let unread = downloading && readers == 0
        let bulk = unread && record.length != nil
        let chunk = bulk ? Int64.max - from : Self.chunk
        let to = min(record.present.nextPresent(after: from) ?? Int64.max, from + chunk, record.length ?? Int64.max)
        return Plan(from: from, to: to == Int64.max ? nil : to, ifRange: record.present.isEmpty ? nil : validator, bulk: bulk,
                    unread: unread)
    }

    /// What `If-Range` carries, under the lock.
    var validator: String? { record.validator }

    /// How far ahead bytes are wanted without a download.
    var horizon: Int64 {
        max(readers > 0 ? readPosition + settings.readahead : 0, holdUntil)
    }

    func fetchLoop() {
        var attempts = 0
        let transfer = HTTPTransfer()
        while true {
            cond.lock()
            guard let plan = nextPlan() else {
                fetcherRunning = false
                self.transfer = nil
                transferAt = nil
                holdUntil = 0
                // Nobody who asked what the URL is may be left waiting (mpv waits on them).
                if !kindWaiters.isEmpty {
                    let nothing = record.length == 0 ? "\(url) is empty" : "\(host) sent nothing to tell what \(url) is"
                    notifyKind(failure.map { .failed($0) } ?? kind ?? .failed(nothing))
                }
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
            let direct = plan.unread ? DirectWriter(file: file, onWritten: { [self] range in
                if wrote(range, advancing: false, cached: false) >= Self.persistEvery { persist() }
            }) : nil
            let outcome = transfer.run(
                HTTPTransfer.Request(url: url, from: plan.from, to: plan.to, ifRange: plan.ifRange, timeout: settings.timeout,
                                     bulk: plan.unread),
                steer: { steer(plan) },
                onResponse: { [self] in accept($0, for: plan) },
                onData: { [self] in store($0, direct: direct) })
            if let direct { _ = failingOnError { try direct.close() } }
            persist()
            trace("fetch of \(url) ended: \(outcome) at \(locked { transferAt ?? -1 })")

            cond.lock()
            if kind == .live {
                liveEnded(outcome, attempts: &attempts)
                cond.unlock()
                continue
            }
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
                failedStatus = code
                fail("HTTP \(code) from \(host)")
            case .timedOut(let answered) where !progressed && record.present.isEmpty:
                // Trying again would only wait as long again.
                fail(answered ? "no data from \(host) in \(settings.timeout) s"
                     : "timed out connecting to \(host): no answer in \(settings.timeout) s")
            case .timedOut, .failed:
                attempts = progressed ? 1 : attempts + 1
                if attempts > settings.retries {
                    fail(describe(outcome))
                } else {
                    backOff(attempts)
                }
            }
            cond.unlock()
        }
    }

    /// Waits before another attempt, unless nobody wants the bytes any more. Under the lock.
    func backOff(_ attempts: Int) {
        let until = Date().addingTimeInterval(settings.backoff * Double(1 << min(attempts - 1, 5)))
        while interested, Date() < until { _ = cond.wait(until: until) }
    }

    /// A live stream's connection ended: the listener gone, or the station
    /// dropped it (then it reconnects, backing off). Under the lock.
    func liveEnded(_ outcome: HTTPTransfer.Outcome, attempts: inout Int) {
        let heard = (live?.received ?? 0) > 0
        switch outcome {
        case .stopped:
            attempts = 0
        case .status(let code):
            failedStatus = code
            fail("HTTP \(code) from \(host)")
        case .timedOut(answered: true) where !heard:
            fail("no audio from \(host) in \(settings.timeout) s")
        default:
            attempts = heard ? 1 : attempts + 1
            if attempts > settings.retries {
                fail(describeLive(outcome))
            } else {
                trace("live stream \(url) ended (\(outcome)); reconnecting")
                backOff(attempts)
            }
        }
    }

    func describeLive(_ outcome: HTTPTransfer.Outcome) -> String {
        switch outcome {
        case .failed(let message): "the stream from \(host) dropped: \(message)"
        case .timedOut(answered: false): "timed out connecting to \(host): no answer in \(settings.timeout) s"
        default: "\(host) ended the stream"
        }
    }

    /// Under the lock.
    func fail(_ reason: String) {
        failure = reason
        notifyKind(.failed(reason))
        cond.broadcast()
    }

    func describe(_ outcome: HTTPTransfer.Outcome) -> String {
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

    var host: String { URL(string: url)?.host ?? "the server" }

    /// Called by the transfer between reads: whether to go on.
    func steer(_ plan: Plan) -> HTTPTransfer.Steer {
        cond.lock()
        if kind == .live {
            // Held while the reader has enough; closed when nobody listens.
            let steer: HTTPTransfer.Steer = failure != nil || (readers == 0 && Date() >= holdExpiry) ? .stop
                : live?.isFull == true ? .pause : .go
            cond.unlock()
            return steer
        }
        // A reader came: the rest is fetched in bounded chunks, which side fetches can work around.
        guard interested, failure == nil, let at = transferAt, !(plan.bulk && readers > 0) else { cond.unlock(); return .stop }
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
    static let nearby: Int64 = 64 << 10
    static let sideBytes: Int64 = 256 << 10
    static let chunk: Int64 = 1 << 20

    func sideFetch(from: Int64, to: Int64) {
        trace("side fetch \(from)-\(to) of \(url)")
        var at = from
        let ifRange = locked { validator }
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
                         guard keep(bytes, at: at) != nil else { return false }
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
    func accept(_ response: HTTPTransfer.Response, for plan: Plan) -> Bool {
        cond.lock()
        defer { cond.broadcast(); cond.unlock() }
        let headers = response.headers
        let length = response.status == 206 ? nil : headers["content-length"].flatMap { Int64($0) }
        switch Self.kind(contentType: headers["content-type"], length: response.status == 206 ? 0 : length,
                         icy: headers.keys.contains { $0.hasPrefix("icy-") }) {
        case .direct:
            if downloading {
                kind = .direct
                fail("\(url) is a playlist or a stream manifest, not a file to download")
            } else {
                notifyKind(.direct)
            }
            return false
        case .live:
            guard !downloading else {
                kind = .live
                fail("\(url) is a live stream: it has no end to download")
                return false
            }
            if live == nil { live = LiveBuffer() }
            live!.connected(metaint: headers["icy-metaint"], station: headers["icy-name"])
            record.contentType = headers["content-type"] ?? record.contentType
            transferAt = 0
            if kind != .live { notifyKind(.live) }
            return true
        default: break
        }
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
        if kind == nil { notifyKind(.media) }
        return true
    }

    /// Under the lock.
    func notifyKind(_ new: ResourceKind) {
        if case .failed = new {} else { kind = new }
        let waiters = kindWaiters
        kindWaiters.removeAll()
        for waiter in waiters { waiter(new) }
    }

    /// Writes body bytes at the transfer's offset, through `direct` when there is one.
    func store(_ bytes: UnsafeRawBufferPointer, direct: DirectWriter?) -> Bool {
        cond.lock()
        if live != nil, kind == .live {
            let changed = live!.push(bytes)
            let news = (live!.title, live!.station)
            let listeners = changed ? Array(titleListeners.values) : []
            cond.broadcast()
            cond.unlock()
            listeners.forEach { $0(news.0, news.1) }
            return true
        }
        guard let at = transferAt else { cond.unlock(); return false }
        let end = at + Int64(bytes.count)
        if let length = record.length, end > length {
            fail("\(host) sent more than the \(length) bytes it announced")
            cond.unlock()
            return false
        }
        if record.length == nil, end > settings.largestUnknownLength {
            fail("\(host) sends without end and gives no length; more than \(ByteCount.text(settings.largestUnknownLength)) is not cached")
            cond.unlock()
            return false
        }
        let direct = direct?.isOpen == true ? direct : nil
        // A reader came: what is held is written, and the rest goes through the page cache it reads.
        let readerCame = direct != nil && readers > 0
        if direct != nil, !readerCame { transferAt = end }
        cond.unlock()
        if let direct, !readerCame { return failingOnError { try direct.append(bytes, at: at) } }
        if let direct, !failingOnError({ try direct.close() }) { return false }
        guard let unsynced = keep(bytes, at: at, advancing: true) else { return false }
        if unsynced >= Self.persistEvery { persist() }
        return true
    }

    /// Runs a write; false when the disk refused it, and the fetch fails with the reason.
    func failingOnError(_ write: () throws -> Void) -> Bool {
        do {
            try write()
            return true
        } catch {
            locked { fail("\(error)") }
            return false
        }
    }

    /// Bytes written between two claims in the index. Each claim waits for the disk
    /// (fdatasync), so they are few; the disk is kept busy between them by `writebackEvery`.
    static let persistEvery: Int64 = 32 << 20
    /// Bytes after which the kernel is asked to start writing them out, so that the disk
    /// works while the network does, and a claim finds little left to wait for.
    static let writebackEvery: Int64 = 4 << 20

    /// Writes bytes at their offset and marks them present, waking readers; `advancing`:
    /// they are the main transfer's, which moves on past them. The bytes not yet synced,
    /// or nil when the disk refused them (the fetch fails).
    func keep(_ bytes: UnsafeRawBufferPointer, at offset: Int64, advancing: Bool = false) -> Int64? {
        if locked({ memory == nil }) {
            do {
                try file.write(bytes, at: offset)
                return wrote(offset..<offset + Int64(bytes.count), advancing: advancing, cached: true)
            } catch {
                guard refusedByDisk(error) else { return nil }
            }
        }
        return held(bytes, at: offset, advancing: advancing)
    }

    /// The disk refused a write: a download fails (it could never be whole on disk), and
    /// anything else goes on from memory. False when the fetch fails.
    func refusedByDisk(_ error: Error) -> Bool {
        let goesOn = locked { () -> Bool in
            guard !downloading else {
                fail("\(error)")
                return false
            }
            if memory == nil {
                memory = MemoryWindow(capacity: max(Self.memoryCapacity, settings.readahead * 2), reason: "\(error)")
                trace("\(url) goes on from memory: \(error)")
            }
            return true
        }
        onDiskFault?("\(error)")
        return goesOn
    }

    /// The most held in memory once the disk refused writes (or twice the readahead).
    static let memoryCapacity: Int64 = 8 << 20

    /// Holds bytes the disk refused in memory and marks them present, waking readers.
    func held(_ bytes: UnsafeRawBufferPointer, at offset: Int64, advancing: Bool) -> Int64? {
        locked {
            guard memory != nil else { return nil }
            let dropped = memory!.keep(bytes, at: offset, reading: readPosition)
            record.present.insert(offset..<offset + Int64(bytes.count))
            dropped.forEach { record.present.remove($0) }
            if advancing { transferAt = offset + Int64(bytes.count) }
            if byteWaiters > 0 { cond.broadcast() }
            return 0
        }
    }

    /// Marks bytes just written present, waking readers; `cached`: they went through
    /// the page cache, which is asked to write them back. The bytes not yet synced.
    func wrote(_ range: Range<Int64>, advancing: Bool, cached: Bool) -> Int64 {
        let (pending, flush) = locked { () -> (Int64, Int64) in
            record.present.insert(range)
            if advancing { transferAt = range.upperBound }
            unsynced += Int64(range.count)
            if cached { unflushed += Int64(range.count) }
            let flush = unflushed >= Self.writebackEvery ? unflushed : 0
            if flush > 0 { unflushed = 0 }
            // Waking a thread for every chunk costs a download its speed: only readers that wait are.
            if byteWaiters > 0 { cond.broadcast() }
            return (unsynced, flush)
        }
        // The bytes just before the range's end are, in a transfer, the ones written since the last time.
        if flush > 0 { file.startWriteback(from: max(0, range.upperBound - flush), to: range.upperBound) }
        return pending
    }
}
