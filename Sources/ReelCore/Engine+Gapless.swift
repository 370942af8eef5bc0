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
}

/// A queued entry that the backend has started while the end of the current
/// one is still playing from its audio buffer.
public struct Incoming: Equatable, Sendable {
    public let token: LoadToken
    public let start: MediaTime
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

/// What the queued entry was chosen from.
struct QueuedFrom: Equatable {
    let base: LoadToken
    let loop: LoopStatus
    let stopAfter: StopAfter
    let revision: UInt64
    let failedAhead: Set<EntryID>
}

extension Engine {
    /// The entry the backend is playing: the incoming one once it has started.
    var backendLoad: LoadToken? { incoming?.token ?? state.token }

    /// Keeps the queued entry equal to the next in play order after the
    /// backend's entry. Cheap when nothing it depends on changed.
    mutating func syncQueuedNext() -> [Effect] {
        // Between the end of the current entry and the start of the queued
        // one, the backend is already committed to it.
        if state.load?.ended == true && incoming == nil { return [] }
        guard let base = backendLoad else {
            queuedFrom = nil
            guard queuedNext != nil else { return [] }
            queuedNext = nil
            return [.backend(.unqueueNext)]
        }
        let from = QueuedFrom(base: base, loop: settings.loop, stopAfter: settings.stopAfter, revision: queue.revision,
                              failedAhead: state.load?.failedAhead ?? [])
        if from == queuedFrom { return [] }
        queuedFrom = from
        // An entry of another rate (a feed's episode after a song) starts by a load of its own:
        // mpv's speed is one for its whole playlist. So does one that trims silence, so that its
        // cuts are the current load's from its first sample.
        let desired = nextToQueue(after: base.entry).flatMap { id in
            queue[id].map { rate(for: $0) == rate && Engine.trim(for: $0) == nil } == true ? id : nil
        }
        if desired == queuedNext?.token.entry { return [] }
        guard let desired, let entry = queue[desired] else {
            queuedNext = nil
            return [.backend(.unqueueNext)]
        }
        loadSerial += 1
        let token = LoadToken(entry: desired, serial: loadSerial)
        let (start, end) = entry.bounds(from: Engine.resumePoint(entry, policy: resumePolicy).start)
        queuedNext = QueuedNext(token: token, start: start)
        // What a stream played before no longer holds (as in `start`); with Loop Track the
        // entry playing is its own next, and keeps its title.
        if desired != base.entry { queue.update(desired) { $0.metadata.streamTitle = nil } }
        let boost: [Effect] = entry.episode.voiceBoost ? [.backend(.setVoiceBoost(token, true))] : []
        return boost + [.backend(.queueNext(token, uri: entry.uri, start: start, end: end))]
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
        let start = queuedNext?.token == token ? queuedNext!.start : 0
        if queuedNext?.token == token { queuedNext = nil }
        state.load?.ended = true
        incoming = Incoming(token: token, start: start)
        return []
    }

    /// The incoming entry's first position: from it, when it will be heard.
    mutating func incomingRestarted(at position: MediaTime, now: MonotonicTime) -> [Effect] {
        var tracker = PositionTracker(position: position, at: now, rate: rate)
        // The previous entry is playing, so this one's position runs from here.
        if state.wantsToPlay { tracker.run(PositionAnchor(position: position, at: now, rate: rate, running: true)) }
        incoming?.tracker = tracker
        guard let due = deadline, due <= now else { return [] }
        return completeSwitch(now: now, cutTail: false)
    }

    /// A sample of the incoming entry's position (still before its start):
    /// a persistent departure moves the moment it will be heard. A single
    /// stray sample (mpv's time-pos reads 0 as a file opens) does not.
    mutating func incomingPosition(_ sample: MediaTime, now: MonotonicTime) {
        _ = incoming?.tracker?.observe(sample, at: now)
    }

    /// Makes the incoming entry current: when it is heard, or at once when the
    /// user acts (then `cutTail` drops the rest of the previous entry).
    mutating func completeSwitch(now: MonotonicTime, cutTail: Bool) -> [Effect] {
        guard let arriving = incoming else { return [] }
        incoming = nil
        failuresInARow = 0
        let left = state.token?.entry
        var load = CurrentLoad(token: arriving.token)
        load.pending = false
        load.seekable = arriving.seekable
        load.switchedFrom = state.token
        let play = state.wantsToPlay
        state = play ? .playing(load) : .paused(load)
        queue.setCurrent(arriving.token.entry)
        lastSave = now
        var effects: [Effect] = []
        if let left { effects += consumed(left) }
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
