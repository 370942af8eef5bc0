import FoundationEssentials
import ReelCore

/// The fetch's decisions about requests: what to ask for next, whether the
/// running transfer goes on, what a response means, and what an ended
/// transfer leaves to do.
extension FetchState {

    /// One request of the main transfer.
    struct Plan: Equatable {
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

    /// What the fetcher does next.
    enum Next: Equatable {
        case fetch(Plan)
        /// Nothing is wanted: the fetcher ends. `idle`: nobody reads or downloads.
        case done(idle: Bool)
    }

    /// What the running transfer does between two reads.
    enum Turn: Equatable {
        case go, pause, stop
        /// Fetch these bytes first on a connection of their own (a reader moved away), then go on.
        case side(from: Int64, to: Int64)
    }

    /// What a response is, once checked against what is stored.
    enum Accepted: Equatable {
        /// Not the bytes wanted: the transfer stops.
        case refused
        /// The resource's bytes; `restarted`: it changed on the server, the file is emptied and the
        /// index told this record.
        case media(restarted: ResourceRecord?)
        /// A live stream: its connection goes to a `LiveStream`, with the readers who came already.
        case live(readers: Int, holdExpiry: Date)
    }

    /// What an ended transfer leaves to do.
    enum Ended: Equatable {
        case again
        /// Wait until then (while someone still wants the bytes), then again.
        case backOff(until: Date)
    }

    /// What to fetch next; when nothing is wanted, the fetcher ends.
    mutating func next() -> Next {
        if let plan = nextPlan() { return .fetch(plan) }
        fetcherRunning = false
        transferAt = nil
        holdUntil = 0
        // Nobody who asked what the URL is may be left waiting (mpv waits on them).
        if askingKind > 0 {
            let nothing = record.length == 0 ? "\(url) is empty" : "\(host) sent nothing to tell what \(url) is"
            announce(failure.map { .failed($0.reason) } ?? kind ?? .failed(nothing))
        }
        wake = true
        return .done(idle: readers == 0 && !downloading)
    }

    private mutating func nextPlan() -> Plan? {
        guard failure == nil else { return nil }
        switch kind {
        case .direct?:
            if downloading { fail("\(url) is a playlist or a stream manifest, not a file to download") }
            return nil
        case .live?:
            // Its connection is the `LiveStream`'s, never the fetcher's.
            if downloading { fail("\(url) is a live stream: it has no end to download") }
            return nil
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
        // Resources are fetched in bounded chunks (the first one too, which tells the length), so
        // that a transfer never runs into bytes a side fetch brought meanwhile, and stopping one
        // (nobody wants its bytes any more) loses little in flight.
        let unread = downloading && readers == 0
        let bulk = unread && record.length != nil
        let chunk = bulk ? Int64.max - from : Self.chunk
        let to = min(record.present.nextPresent(after: from) ?? Int64.max, from + chunk, record.length ?? Int64.max)
        transferAt = from
        return Plan(from: from, to: to == Int64.max ? nil : to, ifRange: record.present.isEmpty ? nil : record.validator,
                    bulk: bulk, unread: unread)
    }

    /// How far ahead bytes are wanted without a download.
    var horizon: Int64 {
        max(readers > 0 ? readPosition + settings.readahead : 0, holdUntil)
    }

    /// Whether the running transfer goes on.
    mutating func steer(_ plan: Plan, now: Date) -> Turn {
        // A reader came: the rest is fetched in bounded chunks, which side fetches can work around.
        guard interested, failure == nil, let at = transferAt, !(plan.bulk && readers > 0) else { return .stop }
        // A read away from the transfer is served by side fetches, which grow while the reader
        // reads on (a seek) and start before it catches up; the main transfer waits, paused, so
        // that no byte in flight is lost. A wanted byte that has arrived since is no reason to fetch.
        var target = wanted.flatMap { record.present.contains($0) ? nil : $0 }
        if target == nil, readers > 0, let end = sideEnd, readPosition >= end - sideSize / 2, readPosition < end,
           !record.present.contains(end), record.length.map({ end < $0 }) ?? true {
            target = end
        }
        // Bytes the running request will bring are waited for.
        let requestEnd = plan.to ?? Int64.max
        if let target, target < at || (!ignoresRanges && target >= at + Self.nearby && target >= requestEnd) {
            // Only a new request from the start reaches a byte behind this one.
            if ignoresRanges { return .stop }
            sideSize = target == sideEnd ? min(sideSize * 2, max(settings.readahead, Self.sideBytes)) : Self.sideBytes
            let to = min(record.present.nextPresent(after: target) ?? Int64.max, target + sideSize,
                         record.length ?? Int64.max)
            sideEnd = to
            return .side(from: target, to: to)
        }
        // Far enough ahead: a reader's transfer waits (its connection open), and so does a probe's
        // for a while, for the reader that mpv is about to open. Behind a reader that moved on
        // (side fetches serve it) counts as ahead too.
        let ahead = !downloading && wanted == nil && (at >= horizon || (readers > 0 && at + Self.nearby < readPosition))
        return !ahead ? .go : readers > 0 || now < holdExpiry ? .pause : .stop
    }

    /// Whether a side fetch goes on.
    var sideGoesOn: Bool { interested && failure == nil }

    /// Whether a side fetch's response is the exact range asked for; when it is not, from now on
    /// only the main transfer fetches.
    mutating func acceptSide(status: Int, contentRange: ContentRange?, from: Int64) -> Bool {
        guard status == 206, let range = contentRange, range.first == from, record.length == nil || range.total == record.length
        else {
            ignoresRanges = true
            return false
        }
        return true
    }

    /// A side fetch ended, having reached `reached`.
    mutating func sideEnded(from: Int64, reached: Int64, _ outcome: HTTPTransfer.Outcome) {
        if reached > from {
            sideFailures = 0
        } else if outcome != .stopped {
            sideFailures += 1
            if sideFailures > settings.retries { fail(describe(outcome)) }
        }
    }

    /// Checks a response against what is stored.
    mutating func accept(status: Int, headers: [String: String], for plan: Plan) -> Accepted {
        wake = true
        let length = status == 206 ? nil : headers["content-length"].flatMap { Int64($0) }
        switch Self.kind(contentType: headers["content-type"], length: status == 206 ? 0 : length,
                         icy: headers.keys.contains { $0.hasPrefix("icy-") }) {
        case .direct:
            if downloading {
                kind = .direct
                fail("\(url) is a playlist or a stream manifest, not a file to download")
            } else {
                announce(.direct)
            }
            return .refused
        case .live:
            guard !downloading else {
                kind = .live
                fail("\(url) is a live stream: it has no end to download")
                return .refused
            }
            record.contentType = headers["content-type"] ?? record.contentType
            announce(.live)
            // The connection, and those waiting on it, go to the live stream: the fetcher's work is done.
            let handed = Accepted.live(readers: readers, holdExpiry: holdExpiry)
            readers = 0
            wanted = nil
            holdUntil = 0
            fetcherRunning = false
            transferAt = nil
            return handed
        default: break
        }
        let etag = headers["etag"], lastModified = headers["last-modified"]
        var start: Int64 = 0
        var total: Int64?
        if status == 206 {
            guard let range = ContentRange(headers["content-range"]), range.first == plan.from else {
                fail("\(host) answered a range other than the one asked for")
                return .refused
            }
            start = range.first
            total = range.total
        } else {
            // A whole body: the server ignores Range, or the resource changed.
            total = length
            if plan.from > 0 || plan.to != nil { ignoresRanges = true }
        }
        let changed = (etag != nil && record.etag != nil && etag != record.etag)
            || (total != nil && record.length != nil && total != record.length)
            || (status == 200 && plan.ifRange != nil && etag == nil && lastModified != record.lastModified)
        var restarted: ResourceRecord?
        if changed, !record.present.isEmpty {
            record.present = ByteRanges()
            ignoresRanges = false
            restarted = record
        }
        record.length = total ?? (changed ? nil : record.length)
        record.etag = etag ?? record.etag
        record.lastModified = lastModified ?? record.lastModified
        record.contentType = headers["content-type"] ?? record.contentType
        transferAt = start
        if kind == nil { announce(.media) }
        return .media(restarted: restarted)
    }

    /// The main transfer ended with `outcome`, having found `before` bytes present when it began.
    mutating func ended(_ outcome: HTTPTransfer.Outcome, plan: Plan, before: Int64, now: Date) -> Ended {
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
            fail("HTTP \(code) from \(host)", status: code)
        case .timedOut(let answered) where !progressed && record.present.isEmpty:
            // Trying again would only wait as long again.
            fail(answered ? "no data from \(host) in \(settings.timeout) s"
                 : "timed out connecting to \(host): no answer in \(settings.timeout) s")
        case .timedOut, .failed:
            attempts = progressed ? 1 : attempts + 1
            if attempts > settings.retries {
                fail(describe(outcome))
            } else {
                return .backOff(until: now.addingTimeInterval(settings.delay(afterAttempts: attempts)))
            }
        }
        return .again
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
}
