/// The playback engine: a pure state machine.
///
/// Inputs are commands and backend events, each with the monotonic time it
/// happened at; outputs are effects for the caller to perform. The engine
/// holds the only copy of the playback truth: queue, state, position anchor.
public struct Engine: Sendable {
    public static let minimumRate = 0.25
    public static let maximumRate = 4.0
    public static let maximumVolume = 1.5
    /// Previous restarts the current entry when it is further in than this.
    public static let restartThreshold: MediaTime = 3_000_000
    /// While playing, the position is saved at most this often.
    public static let saveInterval: MonotonicTime = 1_000_000
    /// A stored position this close to the end counts as finished.
    public static let finishedMargin: MediaTime = 10_000_000
    /// When the backend's real position departs from the anchor's prediction
    /// by more than this, the engine re-anchors and announces Seeked.
    public static let driftTolerance: MediaTime = 8_000

    public private(set) var queue = Queue()
    public private(set) var state: PlaybackState = .stopped
    public private(set) var anchor = PositionAnchor(position: 0, at: 0, rate: 1, running: false)
    public private(set) var settings = Settings()
    public private(set) var seekable = false
    public private(set) var lastError: String?

    /// A seek was sent and has not landed; Seeked waits for its real position.
    private var seekInFlight = false
    /// The current load has not yet started playing (no `restarted` yet).
    private var awaitingStart = false
    private var failuresInARow = 0
    /// When the position was last saved while playing.
    private var lastSave: MonotonicTime?
    private var loadSerial: UInt64 = 0
    private var rng: SplitMix64

    public init(seed: UInt64 = 0x5EED) {
        rng = SplitMix64(seed: seed)
    }

    // MARK: Commands

    public mutating func handle(_ command: Command, now: MonotonicTime) -> Result<[Effect], CommandError> {
        switch command {
        case .play: return .success(play(now: now))
        case .pause: return .success(pause(now: now))
        case .playPause: return .success(state.wantsToPlay ? pause(now: now) : play(now: now))
        case .stop: return .success(stop(now: now))
        case .next: return .success(next(now: now))
        case .previous: return .success(previous(now: now))
        case .seek(let offset): return .success(seek(by: offset, now: now))
        case .setPosition(let id, let position):
            // MPRIS: a stale track id or an out-of-range position is ignored.
            guard id == queue.currentID, position >= 0,
                  position <= (queue.current?.metadata.length ?? .max) else { return .success([]) }
            return .success(seek(to: position, now: now))
        case .add(let entries, let after, let atStart, let play):
            if let after, queue[after] == nil { return .failure(.noSuchTrack(after)) }
            return .success(add(entries, after: after, atStart: atStart, play: play, now: now))
        case .remove(let id):
            guard queue[id] != nil else { return .failure(.noSuchTrack(id)) }
            return .success(remove(id, now: now))
        case .goTo(let id):
            guard queue[id] != nil else { return .failure(.noSuchTrack(id)) }
            return .success(start(id, play: true, now: now))
        case .clear:
            let effects: [Effect] = state.token == nil ? [] : [.unload]
            queue.removeAll()
            enterStopped()
            return .success(effects + [.trackListReplaced])
        case .setRate(let rate):
            return setRate(rate, now: now)
        case .setVolume(let volume):
            guard volume.isFinite else { return .failure(.invalidArgument("Volume must be a finite number")) }
            let clamped = min(max(volume, 0), Engine.maximumVolume)
            guard clamped != settings.volume else { return .success([]) }
            settings.volume = clamped
            return .success([.setVolume(clamped)])
        case .setLoop(let loop):
            settings.loop = loop
            return .success([])
        case .setShuffle(let on):
            guard on != settings.shuffle else { return .success([]) }
            settings.shuffle = on
            queue.setShuffle(on, rng: &rng)
            return .success([])
        }
    }

    private mutating func play(now: MonotonicTime) -> [Effect] {
        switch state {
        case .stopped:
            // Play from the current entry, or the first in play order.
            guard let id = queue.currentID ?? queue.playOrder.first else { return [] }
            return start(id, play: true, now: now)
        case .loading(let t, false):
            state = .loading(t, play: true)
            return [.setPaused(false)]
        case .paused(let t):
            state = .playing(t)
            anchor = anchor.rebased(at: now, running: !awaitingStart)
            return [.setPaused(false)]
        case .loading(_, true), .playing, .buffering:
            return []
        }
    }

    private mutating func pause(now: MonotonicTime) -> [Effect] {
        switch state {
        case .playing(let t), .buffering(let t):
            state = .paused(t)
            anchor = anchor.rebased(at: now, running: false)
            return [.setPaused(true)] + save(now: now)
        case .loading(let t, true):
            state = .loading(t, play: false)
            return [.setPaused(true)]
        case .stopped, .paused, .loading(_, false):
            return []
        }
    }

    private mutating func stop(now: MonotonicTime) -> [Effect] {
        guard state.token != nil else { return [] }
        let saved = save(now: now)
        enterStopped()
        return [.unload] + saved
    }

    /// Saves the current entry's position (on pause, stop, seek, track change, exit).
    private mutating func save(now: MonotonicTime) -> [Effect] {
        guard let id = state.token?.entry, !awaitingStart else { return [] }
        let position = max(anchor.position(at: now), 0)
        lastSave = now
        queue.update(id) { $0.resumeAt = position }
        return [.savePosition(id, position)]
    }

    /// What must be stored before the daemon exits.
    public mutating func checkpoint(now: MonotonicTime) -> [Effect] {
        save(now: now)
    }

    private mutating func enterStopped() {
        state = .stopped
        anchor = PositionAnchor(position: 0, at: anchor.at, rate: settings.rate, running: false)
        seekable = false
        seekInFlight = false
        awaitingStart = false
    }

    private mutating func next(now: MonotonicTime) -> [Effect] {
        guard let current = queue.currentID,
              let target = queue.entry(after: current, wrap: settings.loop == .playlist) else { return [] }
        return move(to: target, now: now)
    }

    private mutating func previous(now: MonotonicTime) -> [Effect] {
        guard let current = queue.currentID else { return [] }
        let loaded = state.token != nil
        if loaded, anchor.position(at: now) > Engine.restartThreshold {
            return seek(to: 0, now: now)
        }
        if let target = queue.entry(before: current, wrap: settings.loop == .playlist) {
            return move(to: target, now: now)
        }
        return loaded ? seek(to: 0, now: now) : []
    }

    /// Makes `id` current, keeping the play intent: stopped stays stopped,
    /// paused loads paused, playing loads playing.
    private mutating func move(to id: EntryID, now: MonotonicTime) -> [Effect] {
        guard state.token != nil else {
            queue.setCurrent(id)
            return []
        }
        return start(id, play: state.wantsToPlay, now: now)
    }

    private mutating func start(_ id: EntryID, play: Bool, now: MonotonicTime) -> [Effect] {
        guard let entry = queue[id] else { return [] }
        var effects = save(now: now)   // where the entry we leave stopped
        let (position, finished) = Engine.resumePoint(entry)
        if finished {
            queue.update(id) { $0.resumeAt = 0 }
            effects.append(.finished(id))
        }
        queue.setCurrent(id)
        loadSerial += 1
        let token = LoadToken(entry: id, serial: loadSerial)
        state = .loading(token, play: play)
        anchor = PositionAnchor(position: position, at: now, rate: settings.rate, running: false)
        seekable = false
        seekInFlight = false
        awaitingStart = true
        return effects + [.load(token, uri: entry.uri, start: position, paused: !play)]
    }

    /// Where playing an entry starts: its stored position, unless that is
    /// within the last 10 s or 5 %, which counts as finished (start from 0).
    public static func resumePoint(_ entry: QueueEntry) -> (start: MediaTime, finished: Bool) {
        let stored = entry.resumeAt
        guard stored > 0 else { return (0, false) }
        if let length = entry.metadata.length, length > 0,
           length - stored <= finishedMargin || stored >= length / 20 * 19 {
            return (0, true)
        }
        return (stored, false)
    }

    private mutating func seek(by offset: MediaTime, now: MonotonicTime) -> [Effect] {
        guard state.token != nil, seekable else { return [] }
        let (target, overflow) = anchor.position(at: now).addingReportingOverflow(offset)
        if overflow { return offset > 0 ? next(now: now) : seek(to: 0, now: now) }
        if let length = queue.current?.metadata.length, target >= length {
            return next(now: now)   // MPRIS: past the end acts like Next
        }
        return seek(to: max(target, 0), now: now)
    }

    private mutating func seek(to target: MediaTime, now: MonotonicTime) -> [Effect] {
        guard state.token != nil, seekable || target == 0 else { return [] }
        anchor = PositionAnchor(position: target, at: now, rate: settings.rate, running: anchor.running)
        seekInFlight = true
        return [.seek(to: target)]
    }

    private mutating func add(_ new: [NewEntry], after: EntryID?, atStart: Bool, play: Bool,
                              now: MonotonicTime) -> [Effect] {
        var previous = atStart ? nil : (after ?? queue.entries.last?.id)
        let added = queue.insert(new, after: after, atStart: atStart, rng: &rng)
        var effects: [Effect] = []
        for entry in added {
            effects.append(.trackAdded(entry.id, after: previous))
            previous = entry.id
        }
        if play, let first = added.first {
            effects += start(first.id, play: true, now: now)
        } else if queue.currentID == nil, let first = added.first, state.token == nil {
            queue.setCurrent(first.id)   // so that Play and the widgets have a track
        }
        return effects
    }

    private mutating func remove(_ id: EntryID, now: MonotonicTime) -> [Effect] {
        var effects: [Effect] = []
        if id == queue.currentID {
            let successor = queue.entry(after: id, wrap: settings.loop == .playlist).flatMap { $0 == id ? nil : $0 }
            if let successor {
                effects += move(to: successor, now: now)
            } else {
                if state.token != nil { effects.append(.unload) }
                enterStopped()
            }
        }
        queue.remove(id)
        return effects + [.trackRemoved(id)]
    }

    private mutating func setRate(_ rate: Double, now: MonotonicTime) -> Result<[Effect], CommandError> {
        guard rate.isFinite, rate >= 0 else {
            return .failure(.invalidArgument("Rate must be a finite, non-negative number"))
        }
        if rate == 0 { return .success(pause(now: now)) }   // MPRIS: rate 0 pauses
        guard rate >= Engine.minimumRate, rate <= Engine.maximumRate else {
            return .failure(.invalidArgument("Rate must be 0 or between \(Engine.minimumRate) and \(Engine.maximumRate)"))
        }
        guard rate != settings.rate else { return .success([]) }
        settings.rate = rate
        anchor = anchor.rebased(at: now, rate: rate)
        // playerctl ignores Rate; a Seeked makes it re-read the position.
        return .success([.setRate(rate), .seeked(anchor.position)])
    }

    // MARK: Backend events

    public mutating func handle(_ event: BackendEvent, now: MonotonicTime) -> [Effect] {
        switch event {
        case .loaded(let token, let metadata, let canSeek, _):
            guard case .loading(token, let play) = state else { return [] }
            state = play ? .playing(token) : .paused(token)
            seekable = canSeek
            failuresInARow = 0
            return merge(metadata, into: token.entry)
        case .restarted(let token, let position):
            guard token == state.token, seekInFlight || awaitingStart else { return [] }
            let wasSeek = seekInFlight
            seekInFlight = false
            awaitingStart = false
            anchor = PositionAnchor(position: position, at: now, rate: settings.rate, running: state == .playing(token))
            return [.seeked(position)] + (wasSeek ? save(now: now) : [])
        case .position(let token, let truth):
            guard token == state.token, !seekInFlight, !awaitingStart else { return [] }
            switch state {
            case .playing, .paused: break
            case .stopped, .loading, .buffering: return []
            }
            var effects: [Effect] = []
            if abs(truth - anchor.position(at: now)) > Engine.driftTolerance {
                anchor = PositionAnchor(position: truth, at: now, rate: settings.rate, running: anchor.running)
                effects.append(.seeked(truth))
            }
            if case .playing = state, lastSave.map({ now - $0 >= Engine.saveInterval }) ?? true { effects += save(now: now) }
            return effects
        case .buffering(let token, let stalled):
            switch (state, stalled) {
            case (.playing(token), true):
                state = .buffering(token)
                anchor = anchor.rebased(at: now, running: false)
            case (.buffering(token), false):
                state = .playing(token)
                anchor = anchor.rebased(at: now, running: !awaitingStart)
                return [.seeked(anchor.position)]
            default: break
            }
            return []
        case .endOfFile(let token):
            guard token == state.token else { return [] }
            queue.update(token.entry) { $0.resumeAt = 0 }
            awaitingStart = true   // nothing more to save for this entry
            return [.finished(token.entry)] + entryEnded(token.entry, play: true, now: now)
        case .failed(let token, let reason):
            guard token == state.token else { return [] }
            let title = queue[token.entry]?.metadata.title ?? queue[token.entry]?.uri ?? "?"
            queue.update(token.entry) { $0.lastError = reason }
            lastError = "\(title): \(reason)"
            failuresInARow += 1
            var effects: [Effect] = [.log("cannot play \(queue[token.entry]?.uri ?? "?"): \(reason)")]
            if failuresInARow >= queue.entries.count {
                // Every entry failed in turn: stop rather than spin.
                failuresInARow = 0
                enterStopped()
                effects.append(.unload)
                return effects
            }
            return effects + entryEnded(token.entry, play: state.wantsToPlay, now: now, failed: true)
        }
    }

    private mutating func entryEnded(_ id: EntryID, play: Bool, now: MonotonicTime, failed: Bool = false) -> [Effect] {
        if settings.loop == .track, !failed { return start(id, play: play, now: now) }
        if let next = queue.entry(after: id, wrap: settings.loop == .playlist) {
            return start(next, play: play, now: now)
        }
        enterStopped()
        return [.unload]
    }

    private mutating func merge(_ tags: TrackMetadata, into id: EntryID) -> [Effect] {
        guard let old = queue[id]?.metadata else { return [] }
        var merged = old
        merged.title = tags.title ?? old.title
        if !tags.artists.isEmpty { merged.artists = tags.artists }
        if !tags.albumArtists.isEmpty { merged.albumArtists = tags.albumArtists }
        merged.album = tags.album ?? old.album
        merged.trackNumber = tags.trackNumber ?? old.trackNumber
        merged.length = tags.length ?? old.length
        merged.artURL = tags.artURL ?? old.artURL
        guard merged != old else { return [] }
        queue.update(id) { $0.metadata = merged }
        return [.trackMetadataChanged(id)]
    }

    /// Drops the stored position of every queued entry of a library item.
    public mutating func forgetResume(item: Int64) {
        for entry in queue.entries where entry.itemID == item {
            queue.update(entry.id) { $0.resumeAt = 0 }
        }
    }

    /// Sets an entry's cover once it has been found off the loop thread.
    public mutating func setArt(_ url: String, for id: EntryID) -> [Effect] {
        merge(TrackMetadata(artURL: url), into: id)
    }

    /// Puts back a stored queue and settings (at start-up). The current entry
    /// is loaded paused at its stored position.
    public mutating func restore(_ entries: [NewEntry], current: Int?, shuffleOrder: [Int]?, settings restored: Settings,
                                 now: MonotonicTime) -> [Effect] {
        let added = queue.insert(entries, rng: &rng)
        settings = restored
        if restored.shuffle {
            if let order = shuffleOrder, order.allSatisfy(added.indices.contains) {
                queue.restoreShuffleOrder(order.map { added[$0].id })
            } else {
                queue.setShuffle(true, rng: &rng)
            }
        }
        var effects: [Effect] = [.setRate(restored.rate), .setVolume(restored.volume)]
        if let current, added.indices.contains(current) {
            effects += start(added[current].id, play: false, now: now)
        } else if let first = added.first {
            queue.setCurrent(first.id)
        }
        return effects
    }

    // MARK: Observation

    /// Whether the backend's own position is meaningful now: something is
    /// loaded, it has started, and no seek is on its way.
    public var backendPositionIsLive: Bool {
        switch state {
        case .playing, .paused, .buffering: !awaitingStart && !seekInFlight
        case .stopped, .loading: false
        }
    }

    public var snapshot: Snapshot {
        let current = queue.current
        let loaded = state.token != nil
        return Snapshot(
            status: state.mprisStatus,
            loop: settings.loop,
            shuffle: settings.shuffle,
            rate: settings.rate,
            volume: settings.volume,
            current: current,
            canGoNext: current.flatMap { queue.entry(after: $0.id, wrap: settings.loop == .playlist) } != nil,
            canGoPrevious: current.map { queue.entry(before: $0.id, wrap: settings.loop == .playlist) != nil || loaded } ?? false,
            canPlay: !queue.isEmpty,
            canPause: current != nil,
            canSeek: loaded && seekable,
            entries: queue.entries,
            lastError: lastError)
    }
}
