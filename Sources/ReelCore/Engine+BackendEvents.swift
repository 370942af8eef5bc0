/// Backend events: what the player reports, and what the engine makes of it.
extension Engine {
    mutating func apply(_ event: BackendEvent, now: MonotonicTime) -> [Effect] {
        switch event {
        case .started(let token):
            return backendStarted(token, now: now)
        case .opensLocally(let token):
            guard case .loading(var load, let play) = state, load.token == token, !load.seekable else { return [] }
            load.seekable = true
            state = .loading(load, play: play)
            return []
        case .loaded(let token, let metadata, let canSeek, _):
            if token == incoming?.token {
                state.load?.window.updateIncoming { $0.seekable = canSeek }
                return mergeLoaded(metadata, into: token.entry, seekable: canSeek)
            }
            guard case .loading(var load, let play) = state, load.token == token else { return [] }
            load.seekable = canSeek
            state = play ? .playing(load) : .paused(load)
            failuresInARow = 0
            return mergeLoaded(metadata, into: token.entry, seekable: canSeek)
        case .restarted(let token, let position):
            if token == incoming?.token { return incomingRestarted(at: position, now: now) }
            guard var load = state.load, load.token == token, load.seekInFlight || load.pending else { return [] }
            let wasSeek = load.seekInFlight
            load.seekInFlight = false
            load.pending = false
            if let target = load.seekAfterStart {
                load.seekAfterStart = nil
                if load.seekable && target != position {
                    // Its start is not news: the seek asked for while it opened is, once it lands.
                    load.seekInFlight = true
                    state.load = load
                    tracker.hold(at: target, now: now)
                    return [.backend(.seek(to: target))]
                }
            }
            state.load = load
            var reached = position
            if case .playing = state {
                tracker.runWhenHeard(from: position, now: now)
            } else {
                // Paused, mpv has written nothing from the new place yet, and its audio-pts takes the
                // sound server's latency off it (90 ms short on PulseAudio): what will be heard on
                // resuming is where the load or the seek went, unless mpv went elsewhere.
                let asked = tracker.position(at: now)
                if abs(asked - position) < Engine.pausedLatencyBound { reached = asked }
                tracker.hold(at: reached, now: now)
            }
            tellWidgets(now: now)
            // mpv restarts a file with an encoder delay before 0 (audio-pts -0.3 s): MPRIS
            // positions are never negative, as Position is not.
            return [.announce(.seeked(max(reached, 0)))] + (wasSeek ? save(now: now) : [])
        case .position(let token, let sample):
            if token == incoming?.token {
                incomingPosition(sample, now: now)
                return []
            }
            guard let load = state.load, load.token == token, !load.seekInFlight, !load.pending else { return [] }
            switch state {
            case .playing: break
            case .paused:
                // mpv's PipeWire output plays on to the end of the graph's cycle (up to 43 ms):
                // its samples climb after a pause, then hold where the sound stopped. Widgets
                // that show the paused position are put right when it settles that far off.
                guard load.settling != nil else { return [] }
                tracker.settle(at: sample, now: now)
                return seekedIfDeparted(now: now)
            case .stopped, .loading, .buffering: return []
            }
            var effects: [Effect] = []
            if tracker.observe(sample, at: now) { effects += seekedIfDeparted(now: now) }
            if !load.heard, !tracker.awaitingAudio { state.load?.heard = true }
            if case .playing = state, !tracker.awaitingAudio,
               lastSave.map({ now - $0 >= Engine.saveInterval }) ?? true {
                effects += save(now: now)
            }
            return effects
        case .buffering(let token, let stalled):
            switch (state, stalled) {
            case (.playing(let load), true) where load.token == token:
                state = .buffering(load)
                tracker.freeze(now: now)
            case (.buffering(let load), false) where load.token == token:
                state = .playing(load)
                if !load.pending {
                    tracker.runWhenHeard(from: tracker.position(at: now), now: now)
                    tellWidgets(now: now)
                    return [.announce(.seeked(widgetsTold.position))]
                }
            default: break
            }
            return []
        case .endOfFile(let token):
            if token == incoming?.token {
                // Shorter than the audio still buffered before it: it was heard all the same.
                return completeSwitch(now: now, cutTail: false) + apply(event, now: now)
            }
            guard let load = state.load, load.token == token, !load.window.isEnded else { return [] }
            if let short = endedEarly(token, now: now) { return failed(token, reason: short, now: now) }
            if load.window.next == nil, let paused = sleepAtTheEnd(of: token.entry, now: now) { return paused }
            var effects = [markFinished(token.entry)]
            // With an entry queued, the backend goes on to it by itself, without a gap.
            state.load?.window = .ended(next: load.window.next)
            if load.window.next != nil { return effects }
            effects += entryEnded(token.entry, play: true, now: now)
            return effects
        case .idle:
            // The backend stopped instead of starting the queued entry (it was
            // queued too late): load it the ordinary way.
            guard let load = state.load, case .ended = load.window else { return [] }
            let current = load.token
            state.load?.window = .ended(next: nil)
            return entryEnded(current.entry, play: state.wantsToPlay, now: now)
        case .failed(let token, let reason):
            return failed(token, reason: reason, now: now)
        case .streamTitle(let token, let title, let station):
            // Only the entry playing, or the one the backend opened to follow it, has a stream
            // title; a new title replaces the old at once. It may come before the stream counts
            // as loaded (mpv reads the ICY headers first), or long before a queued station starts
            // (its stream opens ahead), so the title of an earlier play is dropped when a load
            // starts or is queued, not when it is loaded.
            guard [state.token, incoming?.token, queuedNext?.token].contains(token), let entry = queue[token.entry],
                  entry.metadata.streamTitle != title || entry.metadata.station != station else { return [] }
            queue.update(token.entry) {
                $0.metadata.streamTitle = title
                $0.metadata.station = station
            }
            return [.announce(.trackMetadataChanged(token.entry)), .store(.learned(token.entry))]
        case .outputProblem(let problem):
            guard problem != outputProblem else { return [] }
            outputProblem = problem
            return [.log(problem.map { "the audio output stopped: \($0)" } ?? "the audio output takes audio again")]
        case .windowClosed:
            guard settings.video else { return [] }
            settings.video = false
            return [.backend(.setVideo(false))]
        }
    }

    /// A remote entry that ends well short of its length was cut off by the
    /// server (mpv takes a read that times out for the end of the file).
    private func endedEarly(_ token: LoadToken, now: MonotonicTime) -> String? {
        guard let entry = queue[token.entry], entry.isRemote, let length = entry.metadata.length else { return nil }
        let reached = tracker.position(at: now)
        guard reached < length - max(5_000_000, length / 20) else { return nil }
        return "the server stopped sending at \(ClockText.format(max(reached, 0))) of \(ClockText.format(length))"
    }

    private mutating func failed(_ token: LoadToken, reason: String, now: MonotonicTime) -> [Effect] {
        let known = [state.token, incoming?.token, queuedNext?.token, state.load?.switchedFrom].contains(token)
        guard known, let entry = queue[token.entry] else { return [] }
        queue.update(token.entry) { $0.lastError = reason }
        lastError = "\(entry.displayTitle): \(reason)"
        let effects: [Effect] = [.log("cannot play \(entry.uri): \(reason)")]
        if token == queuedNext?.token {
            // Found out before its turn: queue the one after it instead.
            state.load?.window.dropNext()
            state.load?.failedAhead.insert(token.entry)
            return effects
        }
        guard token == state.token || token == incoming?.token else { return effects }
        failuresInARow += 1
        if failuresInARow >= queue.count {
            // Every entry failed in turn: stop rather than spin.
            failuresInARow = 0
            let loaded = state.token != nil
            enterStopped()
            return effects + (loaded ? [.backend(.unload)] : [])
        }
        if token == incoming?.token {
            let next = queuedNext
            state.load?.window = .ended(next: next)
            state.load?.failedAhead.insert(token.entry)
            if next != nil { return effects }   // the backend goes on to the one after it
        }
        return effects + entryEnded(token.entry, play: state.wantsToPlay, now: now, failed: true)
    }

    mutating func entryEnded(_ id: EntryID, play: Bool, now: MonotonicTime, failed: Bool = false) -> [Effect] {
        if settings.loop == .track, !failed { return start(id, play: play, now: now) }
        // A failed entry was not played: consume leaves it in the queue.
        if settings.stopAfter != .never, !failed {
            // MPD's single: stop with the entry that ended still current; "oneshot" only this once.
            if settings.stopAfter == .thisEntry { settings.stopAfter = .never }
            enterStopped()
            return [.backend(.unload)] + consumed(id)
        }
        if let next = queue.entry(after: id, wrap: settings.loop == .playlist) {
            return start(next, play: play, now: now) + (failed ? [] : consumed(id))
        }
        enterStopped()
        return [.backend(.unload)] + (failed ? [] : consumed(id)) + sleepEnded()
    }

    /// The tags a load opened with. A stream that opens unseekable and without a length has none:
    /// a length guessed for it before (ffprobe on a live station, which a probe may give the
    /// length of what it read) goes.
    private mutating func mergeLoaded(_ tags: TrackMetadata, into id: EntryID, seekable: Bool) -> [Effect] {
        guard !seekable, tags.length == nil, queue[id]?.metadata.length != nil else { return merge(tags, into: id) }
        queue.update(id) { $0.metadata.length = nil }
        let effects = merge(tags, into: id)
        return effects.isEmpty ? [.announce(.trackMetadataChanged(id))] : effects
    }

    mutating func merge(_ tags: TrackMetadata, into id: EntryID) -> [Effect] {
        guard let old = queue[id]?.metadata else { return [] }
        var merged = old
        merged.title = tags.title ?? old.title
        if !tags.artists.isEmpty { merged.artists = tags.artists }
        if !tags.albumArtists.isEmpty { merged.albumArtists = tags.albumArtists }
        merged.album = tags.album ?? old.album
        if !tags.genres.isEmpty { merged.genres = tags.genres }
        merged.trackNumber = tags.trackNumber ?? old.trackNumber
        merged.disc = tags.disc ?? old.disc
        merged.date = tags.date ?? old.date
        merged.length = tags.length ?? old.length
        merged.artURL = tags.artURL ?? old.artURL
        if !tags.chapters.isEmpty { merged.chapters = tags.chapters }
        if let found = tags.silences { merged.silences = found }
        let cut = tags.length.map { merged.chapters.cut(at: $0) } ?? []
        guard merged != old else { return [] }
        // The entries of one file then share the box their tags came in.
        queue.update(id) { $0.metadata = merged == tags ? tags : merged }
        let said: [Effect] = cut.isEmpty ? [] : [.log("\(queue[id]?.displayTitle ?? "the entry"): " + Chapter.leftOut(cut, length: tags.length ?? 0))]
        return said + [.announce(.trackMetadataChanged(id)), .store(.learned(id))]
    }

    /// An entry played to its end (or past where it counts as played): from 0 next time, one more play.
    mutating func markFinished(_ id: EntryID) -> Effect {
        queue.update(id) { $0.resumeAt = 0 }
        return .store(.finished(id))
    }

    /// Drops the stored position of every queued entry of a library item.
    public mutating func forgetPosition(ofItem item: Int64) {
        for entry in queue.entries where entry.itemID == item {
            queue.update(entry.id) { $0.resumeAt = 0 }
        }
    }

    /// Adds what was found out about an entry off the loop thread (its tags
    /// from a probe, its cover art, its silences); one TrackMetadataChanged if anything is new. The
    /// silences of the loaded entry trim it at once, if its feed trims.
    public mutating func learn(_ metadata: TrackMetadata, for id: EntryID, now: MonotonicTime) -> [Effect] {
        var metadata = metadata
        if let load = state.load, load.token.entry == id, !load.pending, !load.seekable {
            metadata.length = nil   // it plays as a stream: a probe's length for it is a guess
        }
        let effects = merge(metadata, into: id)
        return effects + (metadata.silences == nil ? [] : retrimIfChanged(now: now))
    }

    /// Replaces an entry's cover art; nil when what it had is gone (a deleted file).
    public mutating func replaceArt(_ url: String?, for id: EntryID) -> [Effect] {
        guard let entry = queue[id], entry.metadata.artURL != url else { return [] }
        queue.update(id) { $0.metadata.artURL = url }
        return [.announce(.trackMetadataChanged(id)), .store(.learned(id))]
    }

    /// Puts back a stored queue and settings (at start-up). The current entry
    /// is loaded paused at its stored position.
    public mutating func restore(_ stored: Queue, settings restored: Settings, now: MonotonicTime) -> [Effect] {
        queue = stored
        savedQueueState = QueueState(current: stored.currentID?.raw, nextID: stored.nextID, settings: restored)
        var kept = restored
        kept.replayGain = settings.replayGain
        kept.video = settings.video
        kept.chapterKeys = settings.chapterKeys
        settings = kept
        if settings.shuffle && !queue.isShuffled { queue.setShuffle(true, rng: &rng) }
        if !settings.shuffle && queue.isShuffled { queue.setShuffle(false, rng: &rng) }
        _ = queue.takeChanges()   // what was just read needs no writing (but a new shuffle order does)
        tracker.setRate(restored.rate, now: now)
        var effects: [Effect] = [.backend(.setRate(restored.rate)), .backend(.setVolume(restored.volume))]
        if let current = queue.currentID {
            // The session comes back where it was, whatever the entry: this is no new play of it.
            effects += start(current, play: false, now: now, policy: .always)
        } else if let first = queue.first {
            queue.setCurrent(first)
        }
        return effects + syncQueuedNext()
    }

    /// Whether `saveQueue` has anything to store: asked first, so that a loop turn that changed
    /// nothing leaves the engine as it is (and the snapshot made of it stands).
    public var queueNeedsSaving: Bool { queue.hasChanges || queueState != savedQueueState }

    private var queueState: QueueState { QueueState(current: queue.currentID?.raw, nextID: queue.nextID, settings: settings) }

    /// What the store must write of the queue since it last asked, as one effect: asked at the
    /// end of a loop turn, so that a turn's many changes make one write. Cheap: the rows of the
    /// entries concerned, or, for a new shuffle order or ranks laid out afresh, one number per entry.
    public mutating func saveQueue() -> [Effect] {
        let changes = queue.takeChanges()
        var save = QueueSave()
        save.cleared = changes.cleared
        save.rows = changes.upserted.compactMap { id in
            queue.index(of: id).map { QueueRow(queue.entries[$0], queue.place(at: $0)) }
        }
        save.removed = changes.removed.map(\.raw)
        if changes.reshuffled { save.shuffleKeys = Numbering(ids: queue.ids, values: queue.keys) }
        if changes.reranked { save.ranks = Numbering(ids: queue.ids, values: queue.rankList) }
        let state = queueState
        if state != savedQueueState {
            save.state = state
            savedQueueState = state
        }
        return save.isEmpty ? [] : [.store(.queue(save))]
    }

    /// Names the library items of entries that were queued without one (the store made them);
    /// tags an entry learnt meanwhile go to its item now.
    public mutating func attach(items: [(entry: EntryID, item: Int64)]) -> [Effect] {
        items.compactMap { entry, item in
            queue.update(entry) { $0.itemID = item }
            return queue[entry]?.metadata.length == nil ? nil : .store(.learned(entry))
        }
    }
}
