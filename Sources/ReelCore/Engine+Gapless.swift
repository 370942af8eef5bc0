/// Gapless playback: the backend holds the current entry and the next one in
/// play order, so that it goes from one to the other with its audio output
/// open. The queue stays here; the backend's playlist is a two-entry window
/// onto it, and the engine takes the backend starting the queued entry as the
/// track change, once that entry is heard.

/// The entry queued in the backend after the current one.
public struct QueuedNext: Equatable, Sendable {
    public let token: LoadToken
    /// Where it starts (its resume point).
    public let start: MediaTime
    /// The rate it was queued to play at.
    public let rate: Double
}

/// A queued entry that the backend has started while the end of the current
/// one is still playing from its audio buffer.
public struct Incoming: Equatable, Sendable {
    public let token: LoadToken
    public let start: MediaTime
    /// The rate the backend plays it at: its own, which may not be the current entry's.
    public let rate: Double
    public var seekable = false
    /// Its position as the backend reports it: before `start` (negative, from
    /// 0) by as much of the previous entry as is still to be heard. Nil until
    /// the backend has restarted it.
    public var tracker: PositionTracker?

    /// When it becomes audible, once its position is known.
    public var audibleAt: MonotonicTime? {
        guard let anchor = tracker?.anchor, anchor.running else { return nil }
        guard anchor.position < start else { return anchor.at }
        return anchor.at + MonotonicTime((Double(start - anchor.position) / anchor.rate).rounded(.up))
    }
}

/// The gapless window of a load: what the backend holds after it. One value, carried by
/// `CurrentLoad`, so that a new load or a stop starts with an empty window and a switch hands
/// on what was queued after the incoming entry; none of it is cleared by hand.
enum GaplessWindow: Equatable, Sendable {
    /// The load plays; `next` is queued in the backend after it (nil: nothing is).
    case open(next: QueuedNext?)
    /// The backend has finished the load and is committed to `next`; nil: nothing follows,
    /// and there is nothing more to save of the load.
    case ended(next: QueuedNext?)
    /// The backend has started the queued entry while the load's end is still heard;
    /// `next` is queued after the incoming entry.
    case incoming(Incoming, next: QueuedNext?)

    var next: QueuedNext? {
        switch self {
        case .open(let next), .ended(let next), .incoming(_, let next): next
        }
    }

    var incoming: Incoming? {
        if case .incoming(let arriving, _) = self { arriving } else { nil }
    }

    /// The backend has finished the load (its end may still be heard).
    var isEnded: Bool {
        if case .open = self { false } else { true }
    }

    /// The same phase with `next` queued instead.
    func queuing(_ next: QueuedNext?) -> GaplessWindow {
        switch self {
        case .open: .open(next: next)
        case .ended: .ended(next: next)
        case .incoming(let arriving, _): .incoming(arriving, next: next)
        }
    }

    /// Nothing queued after the load (or the incoming entry) any more.
    mutating func dropNext() { self = queuing(nil) }

    mutating func updateIncoming(_ change: (inout Incoming) -> Void) {
        guard case .incoming(var arriving, let next) = self else { return }
        change(&arriving)
        self = .incoming(arriving, next: next)
    }
}

/// What the queued entry was chosen from.
struct QueuedFrom: Equatable, Sendable {
    let base: LoadToken
    let loop: LoopStatus
    let stopAfter: StopAfter
    let revision: UInt64
    let failedAhead: Set<EntryID>
}

extension Engine {
    /// The entry queued in the backend to follow the one it plays without a gap.
    public var queuedNext: QueuedNext? { state.load?.window.next }
    /// The queued entry once the backend has moved on to it, until it is heard.
    public var incoming: Incoming? { state.load?.window.incoming }

    /// Keeps the queued entry equal to the next in play order after the
    /// backend's entry. Cheap when nothing it depends on changed.
    mutating func syncQueuedNext() -> [Effect] {
        // Nothing loaded: the backend holds nothing (a stop unloads it). Between the end of the
        // current entry and the start of the queued one, the backend is already committed to it.
        guard var load = state.load else { return [] }
        if case .ended = load.window { return [] }
        // The entry the backend plays: the incoming one once it has started.
        let base = load.window.incoming?.token ?? load.token
        let from = QueuedFrom(base: base, loop: settings.loop, stopAfter: settings.stopAfter, revision: queue.revision,
                              failedAhead: load.failedAhead)
        if from == load.queuedFrom { return [] }
        load.queuedFrom = from
        state.load = load
        // One that trims silence starts by a load of its own, so that its cuts are the current
        // load's from its first sample. One of another rate (a feed's episode after a song) is
        // queued with its rate, which mpv takes at its first sample (a load of its own after the
        // end of the one before held Position for a second while the sound server started again).
        let desired = nextToQueue(after: base.entry).flatMap { id in
            queue[id].map { Engine.trim(for: $0) == nil } == true ? id : nil
        }
        if desired == load.window.next?.token.entry, desired.flatMap({ queue[$0] }).map(rate(for:)) == load.window.next?.rate {
            return []
        }
        guard let desired, let entry = queue[desired] else {
            state.load?.window = load.window.queuing(nil)
            return [.backend(.unqueueNext)]
        }
        loadSerial += 1
        let token = LoadToken(entry: desired, serial: loadSerial)
        let (start, end) = entry.bounds(from: Engine.resumePoint(entry, policy: resumePolicy).start)
        let rate = rate(for: entry)
        state.load?.window = load.window.queuing(QueuedNext(token: token, start: start, rate: rate))
        // What a stream played before no longer holds (as in `start`); with Loop Track the
        // entry playing is its own next, and keeps its title.
        if desired != base.entry { queue.update(desired) { $0.metadata.streamTitle = nil } }
        let boost: [Effect] = entry.episode.voiceBoost ? [.backend(.setVoiceBoost(token, true))] : []
        return boost + [.backend(.queueNext(token, uri: entry.uri, start: start, end: end, rate: rate))]
    }

    /// The next entry in play order that has not just failed; the same entry with Loop Track.
    private func nextToQueue(after base: EntryID) -> EntryID? {
        let failedAhead = state.load?.failedAhead ?? []
        if settings.loop == .track { return failedAhead.contains(base) ? nil : base }
        if settings.stopAfter != .never { return nil }   // playback stops at its end: nothing follows
        var candidate = base
        for _ in 0..<max(failedAhead.count + 1, 1) {
            guard let next = queue.entry(after: candidate, wrap: settings.loop == .playlist) else { return nil }
            if !failedAhead.contains(next) { return next }
            candidate = next
        }
        return nil
    }

    /// The backend started a queued entry: it becomes current when it is heard.
    mutating func backendStarted(_ token: LoadToken, now: MonotonicTime) -> [Effect] {
        guard let current = state.token, token != current, token != incoming?.token else { return [] }
        guard queue[token.entry] != nil else {
            // It was taken out of the queue meanwhile: play what the queue says instead.
            return entryEnded(current.entry, play: state.wantsToPlay, now: now)
        }
        let next = queuedNext
        let queued = next?.token == token ? next : nil
        let arriving = Incoming(token: token, start: queued?.start ?? 0, rate: queued?.rate ?? rate)
        state.load?.window = .incoming(arriving, next: queued == nil ? next : nil)
        return []
    }

    /// The incoming entry's first position: from it, when it will be heard.
    mutating func incomingRestarted(at position: MediaTime, now: MonotonicTime) -> [Effect] {
        let rate = incoming?.rate ?? rate
        var tracker = PositionTracker(position: position, at: now, rate: rate)
        // The previous entry is playing, so this one's position runs from here.
        if state.wantsToPlay { tracker.run(PositionAnchor(position: position, at: now, rate: rate, running: true)) }
        state.load?.window.updateIncoming { $0.tracker = tracker }
        guard let due = deadline, due <= now else { return [] }
        return completeSwitch(now: now, cutTail: false)
    }

    /// A sample of the incoming entry's position (still before its start):
    /// a persistent departure moves the moment it will be heard. A single
    /// stray sample (mpv's time-pos reads 0 as a file opens) does not.
    mutating func incomingPosition(_ sample: MediaTime, now: MonotonicTime) {
        state.load?.window.updateIncoming { _ = $0.tracker?.observe(sample, at: now) }
    }

    /// Makes the incoming entry current: when it is heard, or at once when the
    /// user acts (then `cutTail` drops the rest of the previous entry).
    mutating func completeSwitch(now: MonotonicTime, cutTail: Bool) -> [Effect] {
        guard let leaving = state.load, case .incoming(let arriving, let next) = leaving.window else { return [] }
        failuresInARow = 0
        let left = leaving.token.entry
        var load = CurrentLoad(token: arriving.token)
        load.pending = false
        load.seekable = arriving.seekable
        load.switchedFrom = leaving.token
        // What is queued after it was chosen with it as the base: both hold.
        load.window = .open(next: next)
        load.queuedFrom = leaving.queuedFrom
        let play = state.wantsToPlay
        state = play ? .playing(load) : .paused(load)
        queue.setCurrent(arriving.token.entry)
        // Queued at a rate of its own: the backend plays it so from its first sample.
        if arriving.rate != tracker.anchor.rate { tracker.setRate(arriving.rate, now: now) }
        lastSave = now
        var effects: [Effect] = []
        effects += consumed(left)
        if let entry = queue[arriving.token.entry], Engine.resumePoint(entry, policy: resumePolicy).finished {
            effects.append(markFinished(entry.id))
        }
        if cutTail && arriving.seekable {
            tracker.hold(at: arriving.start, now: now)
            state.load?.seekInFlight = true
            tellWidgets(now: now)
            return effects + [.backend(.seek(to: arriving.start))]
        }
        if play, let anchor = arriving.tracker?.anchor, anchor.running, anchor.position(at: now) >= arriving.start {
            tracker.run(anchor)   // heard now, as predicted
        } else if play {
            tracker.runWhenHeard(from: arriving.start, now: now)
        } else {
            tracker.hold(at: arriving.start, now: now)
        }
        tellWidgets(now: now)
        return effects + [.announce(.seeked(widgetsTold.position))]
    }
}
