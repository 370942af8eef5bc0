import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// The fetcher: the thread that runs what `FetchState` plans, its
/// transfers and side fetches, and the writes of what they bring.
extension Resource {

    /// Starts the fetcher thread (the state said one must start).
    func startFetcher() {
        Threads.start(name: "reel-fetch") { [self] in fetchLoop() }
    }

    func fetchLoop() {
        let transfer = HTTPTransfer()
        while true {
            let (next, before) = perform { state -> (FetchState.Next, Int64) in
                let next = state.next()
                if case .fetch = next { self.transfer = transfer } else { self.transfer = nil }
                return (next, state.record.present.count)
            }
            guard case .fetch(let plan) = next else {
                persist()
                if next == .done(idle: true) { onIdle?() }
                return
            }

            trace("fetch \(plan.from)-\(plan.to.map(String.init) ?? "") of \(url)")
            let direct = plan.unread ? DirectWriter(file: file, onWritten: { [self] range in
                if wrote(range, advancing: false, cached: false) >= FetchState.persistEvery { persist() }
            }) : nil
            // A response that says the URL is live hands this connection to its stream.
            var handedTo: LiveStream?
            let outcome = transfer.run(
                HTTPTransfer.Request(url: url, from: plan.from, to: plan.to, ifRange: plan.ifRange, timeout: settings.timeout,
                                     bulk: plan.unread),
                steer: { [self] in handedTo?.steer() ?? steer(plan) },
                onResponse: { [self] response in
                    switch accept(response, for: plan) {
                    case .refused: return false
                    case .media: return true
                    case .live(let stream):
                        handedTo = stream
                        return true
                    }
                },
                onData: { [self] bytes in handedTo?.store(bytes) ?? store(bytes, direct: direct) })
            if let direct { _ = failingOnError { try direct.close() } }
            // This thread is the stream's from now on (the fetcher ended at the handover).
            if let handedTo { return handedTo.connect(after: outcome, on: transfer) }
            persist()
            trace("fetch of \(url) ended: \(outcome) at \(perform { $0.transferAt ?? -1 })")

            cond.lock()
            if case .backOff(let until) = state.ended(outcome, plan: plan, before: before, now: Date()) {
                // Waits before another attempt, unless nobody wants the bytes any more.
                while state.interested, Date() < until { _ = cond.wait(until: until) }
            }
            let tell = settle()
            cond.unlock()
            tell()
        }
    }

    /// Called by the transfer between reads: whether to go on.
    func steer(_ plan: FetchState.Plan) -> HTTPTransfer.Steer {
        switch perform({ $0.steer(plan, now: Date()) }) {
        case .go: return .go
        case .pause: return .pause
        case .stop: return .stop
        case .side(let from, let to):
            let started = Date()
            sideFetch(from: from, to: to)
            return Date().timeIntervalSince(started) > 0.1 ? .resetTimer : .go
        }
    }

    func sideFetch(from: Int64, to: Int64) {
        trace("side fetch \(from)-\(to) of \(url)")
        var at = from
        let ifRange = perform { $0.record.validator }
        let outcome = side.run(
            HTTPTransfer.Request(url: url, from: from, to: to == Int64.max ? nil : to, ifRange: ifRange,
                                 timeout: settings.timeout),
            steer: { [self] in perform { $0.sideGoesOn } ? .go : .stop },
            onResponse: { [self] response in
                // Anything but the exact range asked for is left to the main transfer.
                perform { $0.acceptSide(status: response.status, contentRange: ContentRange(response.headers["content-range"]),
                                        from: from) }
            },
            onData: { [self] bytes in
                guard keep(bytes, at: at) != nil else { return false }
                at += Int64(bytes.count)
                return true
            })
        perform { $0.sideEnded(from: from, reached: at, outcome) }
    }

    /// What a response is, for the transfer: a live stream's is handed to its new stream.
    enum Response {
        case refused, media
        case live(LiveStream)
    }

    /// Checks the response against what is stored.
    func accept(_ response: HTTPTransfer.Response, for plan: FetchState.Plan) -> Response {
        perform { state in
            switch state.accept(status: response.status, headers: response.headers, for: plan) {
            case .refused:
                return .refused
            case .media(let restarted):
                if let restarted {
                    // It changed on the server: its bytes here belong to another version. Only this
                    // thread writes the file, and no reader reads what is no longer present.
                    file.truncate()
                    try? index.save(restarted)
                }
                return .media
            case .live(let readers, let holdExpiry):
                let stream = LiveStream(url: url, settings: settings, headers: response.headers, readers: readers,
                                        holdExpiry: holdExpiry, listeners: titleListeners)
                titleListeners = [:]
                live = stream
                transfer = nil
                return .live(stream)
            }
        }
    }

    /// Writes body bytes at the transfer's offset, through `direct` when there is one.
    func store(_ bytes: UnsafeRawBufferPointer, direct: DirectWriter?) -> Bool {
        let open = direct?.isOpen == true
        switch perform({ $0.arriving(bytes.count, direct: open) }) {
        case .refused:
            return false
        case .direct(let at):
            return failingOnError { try direct!.append(bytes, at: at) }
        case .cached(let at, let closeDirect):
            if closeDirect, !failingOnError({ try direct!.close() }) { return false }
            guard let unsynced = keep(bytes, at: at, advancing: true) else { return false }
            if unsynced >= FetchState.persistEvery { persist() }
            return true
        }
    }

    /// Runs a write; false when the disk refused it, and the fetch fails with the reason.
    func failingOnError(_ write: () throws -> Void) -> Bool {
        do {
            try write()
            return true
        } catch {
            perform { $0.fail("\(error)") }
            return false
        }
    }

    /// Writes bytes at their offset and marks them present, waking readers; `advancing`: they are the main
    /// transfer's, which moves on past them. The bytes not yet synced, or nil when the disk refused them
    /// (the fetch fails).
    func keep(_ bytes: UnsafeRawBufferPointer, at offset: Int64, advancing: Bool = false) -> Int64? {
        if perform({ $0.memory == nil }) {
            do {
                try file.write(bytes, at: offset)
                return wrote(offset..<offset + Int64(bytes.count), advancing: advancing, cached: true)
            } catch {
                guard refusedByDisk(error) else { return nil }
            }
        }
        return perform { $0.held(bytes, at: offset, advancing: advancing) } ? 0 : nil
    }

    /// The disk refused a write: a download fails, and anything else goes on from memory. False when the
    /// fetch fails.
    func refusedByDisk(_ error: Error) -> Bool {
        let goesOn = perform { state in
            let fresh = state.memory == nil
            let goesOn = state.refusedByDisk("\(error)")
            if goesOn, fresh { trace("\(url) goes on from memory: \(error)") }
            return goesOn
        }
        onDiskFault?("\(error)")
        return goesOn
    }

    /// Marks bytes just written present, waking waiting readers; `cached`: they went through the page
    /// cache, which is asked to write them back. The bytes not yet synced.
    func wrote(_ range: Range<Int64>, advancing: Bool, cached: Bool) -> Int64 {
        let (unsynced, flush) = perform { $0.wrote(range, advancing: advancing, cached: cached) }
        // The bytes just before the range's end are, in a transfer, the ones written since the last time.
        if flush > 0 { file.startWriteback(from: max(0, range.upperBound - flush), to: range.upperBound) }
        return unsynced
    }
}
