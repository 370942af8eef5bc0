/// Backend events: what the player reports, and what the engine makes of it.
extension Engine {
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

    mutating func entryEnded(_ id: EntryID, play: Bool, now: MonotonicTime, failed: Bool = false) -> [Effect] {
        if settings.loop == .track, !failed { return start(id, play: play, now: now) }
        if let next = queue.entry(after: id, wrap: settings.loop == .playlist) {
            return start(next, play: play, now: now)
        }
        enterStopped()
        return [.unload]
    }

    mutating func merge(_ tags: TrackMetadata, into id: EntryID) -> [Effect] {
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
}
