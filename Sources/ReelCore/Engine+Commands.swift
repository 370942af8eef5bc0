/// Commands: what users ask for.
extension Engine {
    mutating func apply(_ command: Command, now: MonotonicTime) -> Result<[Effect], CommandError> {
        switch command {
        case .play: return .success(play(now: now))
        case .pause: return .success(pause(now: now))
        case .playPause: return .success(state.wantsToPlay ? pause(now: now) : play(now: now))
        case .setPaused(true): return .success(pause(now: now))
        case .setPaused(false): return .success(state.status == .paused ? play(now: now) : [])
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
        case .move(let id, let index):
            guard queue[id] != nil else { return .failure(.noSuchTrack(id)) }
            guard (0..<queue.count).contains(index) else {
                return .failure(.invalidArgument("there is no position \(index) in a queue of \(queue.count)"))
            }
            guard queue.index(of: id) != index else { return .success([]) }
            queue.move(id, to: index)
            let after = index > 0 ? queue.entries[index - 1].id : nil
            // MPRIS has no move: the track leaves its place and comes back at the new one.
            return .success([.announce(.trackRemoved(id)), .announce(.trackAdded(id, after: after))])
        case .shuffleTrackList(let range):
            guard range.lowerBound >= 0, range.upperBound <= queue.count else {
                return .failure(.invalidArgument("there are no places \(range.lowerBound)..<\(range.upperBound) in a queue of \(queue.count)"))
            }
            guard range.count > 1 else { return .success([]) }
            queue.shuffleTrackList(range, rng: &rng)
            return .success([.announce(.trackListReplaced)])
        case .goTo(let id):
            guard queue[id] != nil else { return .failure(.noSuchTrack(id)) }
            return .success(start(id, play: true, now: now))
        case .startAt(let id, let position):
            guard let entry = queue[id] else { return .failure(.noSuchTrack(id)) }
            guard position >= 0, position <= (entry.metadata.length ?? .max) else {
                return .failure(.invalidArgument("the position is past the end of the track"))
            }
            if id == state.token?.entry, let load = state.load, load.seekable || load.pending {
                return .success(seek(to: position, now: now))
            }
            let paused = switch state {
            case .paused, .loading(_, play: false): true
            default: false
            }
            return .success(start(id, play: !paused, now: now, from: position))
        case .clear:
            let effects: [Effect] = state.token == nil ? [] : [.backend(.unload)]
            queue.removeAll()
            enterStopped()
            return .success(effects + [.announce(.trackListReplaced)])
        case .setRate(let rate):
            return setRate(rate, now: now)
        case .setVolume(let volume):
            guard volume.isFinite else { return .failure(.invalidArgument("Volume must be a finite number")) }
            let clamped = min(max(volume, 0), Engine.maximumVolume)
            guard clamped != settings.volume else { return .success([]) }
            settings.volume = clamped
            return .success([.backend(.setVolume(heardVolume(now: now)))])
        case .setLoop(let loop):
            settings.loop = loop
            return .success([])
        case .setStopAfter(let mode):
            settings.stopAfter = mode
            return .success([])
        case .setConsume(let on):
            settings.consume = on
            return .success([])
        case .setReplayGain(let mode):
            guard mode != settings.replayGain else { return .success([]) }
            settings.replayGain = mode
            return .success([.backend(.setReplayGain(mode))])
        case .setVideo(let on):
            guard on != settings.video else { return .success([]) }
            settings.video = on
            return .success([.backend(.setVideo(on))])
        case .setChapterKeys(let keys):
            settings.chapterKeys = keys
            return .success([])
        case .goToChapter(let move):
            return goToChapter(move, now: now)
        case .setSleep(let mode):
            return setSleep(mode, now: now)
        case .setEpisodeSettings(let settings):
            return .success(setEpisodeSettings(settings, now: now))
        case .setTags(let id, var metadata):
            guard let entry = queue[id] else { return .failure(.noSuchTrack(id)) }
            metadata.chapters = entry.metadata.chapters   // not a tag: what the file or its feed says
            guard entry.metadata != metadata else { return .success([]) }
            queue.update(id) { $0.metadata = metadata }
            return .success([.announce(.trackMetadataChanged(id))])
        case .setRange(let id, let range):
            return setRange(id, range)
        case .setShuffle(let on):
            guard on != settings.shuffle else { return .success([]) }
            settings.shuffle = on
            queue.setShuffle(on, rng: &rng)
            return .success([])
        }
    }

    mutating func play(now: MonotonicTime) -> [Effect] {
        switch state {
        case .stopped:
            // Play from the current entry, or the first in play order.
            guard let id = queue.currentID ?? queue.first else { return [] }
            return start(id, play: true, now: now)
        case .loading(let t, false):
            state = .loading(t, play: true)
            return [.backend(.setPaused(false))]
        case .paused(var t):
            t.settling = nil
            state = .playing(t)
            if !t.pending && !t.seekInFlight { tracker.runWhenHeard(from: tracker.position(at: now), now: now) }
            tellWidgets(now: now)
            return [.backend(.setPaused(false))]
        case .loading(_, true), .playing, .buffering:
            return []
        }
    }

    mutating func pause(now: MonotonicTime) -> [Effect] {
        switch state {
        case .playing(var t), .buffering(var t):
            // On a sound server, once its stream is open, mpv's samples settle where the sound stopped.
            t.settling = t.heard && outputDelay == 0 && !t.seekInFlight ? .askAt(now + Engine.settleDelay) : nil
            state = .paused(t)
            // What the output already holds is still heard: the sound stops that much later.
            if !t.seekInFlight { tracker.freeze(now: now, playingOutFor: outputDelay, trustingMotion: t.heard) }
            tellWidgets(now: now)
            return [.backend(.setPaused(true))] + save(now: now)
        case .loading(let t, true):
            state = .loading(t, play: false)
            return [.backend(.setPaused(true))]
        case .stopped, .paused, .loading(_, false):
            return []
        }
    }

    mutating func stop(now: MonotonicTime) -> [Effect] {
        guard let id = state.token?.entry else { return [] }
        let saved = save(now: now)
        // MPRIS: Play after Stop starts the track from the beginning. The library keeps
        // the position, for the next time the item is queued.
        queue.update(id) { $0.resumeAt = 0 }
        enterStopped()
        return [.backend(.unload)] + saved
    }

    /// Saves the current entry's position (on pause, stop, seek, track change, exit).
    /// A live stream has no position to come back to: it cannot seek.
    mutating func save(now: MonotonicTime) -> [Effect] {
        guard let load = state.load, !load.pending, !load.window.isEnded, load.seekable else { return [] }
        let id = load.token.entry
        let position = max(tracker.position(at: now), 0)
        lastSave = now
        queue.update(id) { $0.resumeAt = position }
        return [.store(.savePosition(id, position))]
    }

    /// What must be stored before the daemon exits.
    public mutating func checkpoint(now: MonotonicTime) -> [Effect] {
        save(now: now)
    }

    mutating func enterStopped() {
        state = .stopped
        tracker.hold(at: 0, now: tracker.anchor.at)
        widgetsTold = tracker.anchor
    }

    mutating func next(now: MonotonicTime) -> [Effect] {
        if let chapter = nextChapter(now: now) { return chapter }
        guard let current = queue.currentID,
              let target = queue.entry(after: current, wrap: settings.loop == .playlist) else { return [] }
        let played = state.token?.entry == current
        return move(to: target, now: now) + (played ? consumed(current) : [])
    }

    /// Under consume, takes an entry that was played (to its end, or until Next) out of the queue.
    mutating func consumed(_ id: EntryID) -> [Effect] {
        guard settings.consume, queue[id] != nil, state.token?.entry != id else { return [] }
        queue.remove(id)
        return [.announce(.trackRemoved(id))]
    }

    mutating func previous(now: MonotonicTime) -> [Effect] {
        guard let current = queue.currentID else { return [] }
        if let chapter = previousChapter(now: now) { return chapter }
        let loaded = state.token != nil
        let first = queue.current?.range?.start ?? 0
        if loaded, tracker.position(at: now) > first + Engine.restartThreshold {
            return seek(to: first, now: now)
        }
        if let target = queue.entry(before: current, wrap: settings.loop == .playlist) {
            return move(to: target, now: now)
        }
        return loaded ? seek(to: first, now: now) : []
    }

    /// Makes `id` current, keeping the play intent: stopped stays stopped,
    /// paused loads paused, playing loads playing.
    mutating func move(to id: EntryID, now: MonotonicTime) -> [Effect] {
        guard state.token != nil else {
            queue.setCurrent(id)
            return []
        }
        return start(id, play: state.wantsToPlay, now: now)
    }

    /// Loads an entry; `policy` overrides which entries resume (a restored session always does).
    mutating func start(_ id: EntryID, play: Bool, now: MonotonicTime, policy: ResumePolicy? = nil,
                        from chosen: MediaTime? = nil) -> [Effect] {
        guard let entry = queue[id] else { return [] }
        var effects = save(now: now)   // where the entry we leave stopped
        let (position, finished) = chosen.map { ($0, false) } ?? Engine.resumePoint(entry, policy: policy ?? resumePolicy)
        if finished { effects.append(markFinished(id)) }
        queue.setCurrent(id)
        queue.update(id) { $0.metadata.streamTitle = nil }   // what a stream played before no longer holds
        loadSerial += 1
        let token = LoadToken(entry: id, serial: loadSerial)
        let rateBefore = rate
        state = .loading(CurrentLoad(token: token, seekable: Engine.expectsSeeking(in: entry)), play: play)
        var (start, end) = entry.bounds(from: position)
        if chosen != nil { start = position }   // the user's (MPD's seek into another song): only a resume skips the intro
        if rate != rateBefore {
            tracker.setRate(rate, now: now)
            effects.append(.backend(.setRate(rate)))
        }
        state.load?.outroUnsent = entry.episode.skipOutro > 0 && end == nil
        if let trim = Engine.trim(for: entry) {
            state.load?.trim = trim
            start = trim.heard(start)
            effects.append(.backend(.setTrim(token, trim)))
        }
        tracker.hold(at: start, now: now)
        tellWidgets(now: now)
        // The new load's window is empty: a load replaces the backend's whole playlist.
        if entry.episode.voiceBoost { effects.append(.backend(.setVoiceBoost(token, true))) }
        return effects + [.backend(.load(token, uri: entry.uri, start: start, end: end, paused: !play, rate: rate))]
    }

    mutating func setRange(_ id: EntryID, _ range: PlayRange?) -> Result<[Effect], CommandError> {
        guard let entry = queue[id] else { return .failure(.noSuchTrack(id)) }
        if id == state.token?.entry || id == incoming?.token.entry {
            return .failure(.invalidArgument("Cannot edit the range of the entry that plays"))
        }
        var range = range
        if let given = range, let length = entry.metadata.length {
            guard given.start <= length else { return .failure(.invalidArgument("Invalid start offset")) }   // MPD's words
            if let end = given.end, end >= length { range = PlayRange(start: given.start, end: nil) }
        }
        guard range != entry.range else { return .success([]) }
        queue.update(id) { $0.range = range }
        if queuedNext?.token.entry == id {
            // Queued in the backend with the old range: syncQueuedNext queues it again.
            state.load?.window.dropNext()
            state.load?.queuedFrom = nil
        }
        return .success([.announce(.trackMetadataChanged(id))])
    }

    /// Whether an entry that opens will be seekable: a local file, or a remote one whose length
    /// is known (downloaded, cached or probed: a file, not a live stream). The backend's word
    /// replaces this once the entry is loaded.
    static func expectsSeeking(in entry: QueueEntry) -> Bool {
        !entry.isRemote || entry.metadata.length != nil
    }

    /// Where playing an entry starts: its stored position, when the policy
    /// resumes it, unless that is within the last 10 s or 5 %, which counts
    /// as finished (start from 0).
    /// Within the entry's range, if it has one.
    public static func resumePoint(_ entry: QueueEntry, policy: ResumePolicy = .always) -> (start: MediaTime, finished: Bool) {
        let point = storedResumePoint(entry, policy: policy)
        return (entry.range?.clamp(point.start) ?? point.start, point.finished)
    }

    private static func storedResumePoint(_ entry: QueueEntry, policy: ResumePolicy) -> (start: MediaTime, finished: Bool) {
        let stored = entry.resumeAt
        guard stored > 0 else { return (0, false) }
        switch policy {
        case .never: return (0, false)
        case .always: break
        case .auto(let minLength):
            // An unknown length resumes: a stream's episode is more likely long than a song.
            guard entry.prefersResume || (entry.metadata.length ?? minLength) >= minLength else { return (0, false) }
        }
        if let length = entry.metadata.length, length > 0,
           length - stored <= finishedMargin || stored >= length / 20 * 19 {
            return (0, true)
        }
        return (stored, false)
    }

    mutating func seek(by offset: MediaTime, now: MonotonicTime) -> [Effect] {
        guard let load = state.load, load.seekable || load.pending else { return [] }
        let (target, overflow) = tracker.position(at: now).addingReportingOverflow(offset)
        if overflow { return offset > 0 ? next(now: now) : seek(to: 0, now: now) }
        if let length = queue.current?.metadata.length, target >= length {
            return next(now: now)   // MPRIS: past the end acts like Next
        }
        return seek(to: max(target, 0), now: now)
    }

    mutating func seek(to asked: MediaTime, now: MonotonicTime) -> [Effect] {
        let target = heard(min(asked, Engine.farthestPosition))
        if state.load?.pending == true {
            // mpv cannot seek in a file it is still opening: the seek waits for the start.
            state.load?.seekAfterStart = target
            tracker.hold(at: target, now: now)
            return []
        }
        guard let load = state.load, load.seekable || target == 0 else { return [] }
        tracker.hold(at: target, now: now)   // until it lands: never ahead of what is heard
        state.load?.seekInFlight = true
        state.load?.settling = nil
        return [.backend(.seek(to: target))]
    }

    mutating func add(_ new: [NewEntry], after: EntryID?, atStart: Bool, play: Bool,
                              now: MonotonicTime) -> [Effect] {
        var previous = atStart ? nil : (after ?? queue.entries.last?.id)
        let added = queue.insert(new, after: after, atStart: atStart, rng: &rng)
        var effects: [Effect] = []
        for entry in added {
            effects.append(.announce(.trackAdded(entry.id, after: previous)))
            previous = entry.id
        }
        if play, let first = added.first {
            effects += start(first.id, play: true, now: now)
        } else if queue.currentID == nil, let first = added.first, state.token == nil {
            queue.setCurrent(first.id)   // so that Play and the widgets have a track
        }
        return effects
    }

    mutating func remove(_ id: EntryID, now: MonotonicTime) -> [Effect] {
        var effects: [Effect] = []
        if id == queue.currentID {
            let successor = queue.entry(after: id, wrap: settings.loop == .playlist).flatMap { $0 == id ? nil : $0 }
            if let successor {
                effects += move(to: successor, now: now)
            } else {
                if state.token != nil { effects.append(.backend(.unload)) }
                enterStopped()
            }
        }
        queue.remove(id)
        return effects + [.announce(.trackRemoved(id))]
    }

    mutating func setRate(_ rate: Double, now: MonotonicTime) -> Result<[Effect], CommandError> {
        guard rate.isFinite, rate >= 0 else {
            return .failure(.invalidArgument("Rate must be a finite, non-negative number"))
        }
        if rate == 0 { return .success(pause(now: now)) }   // MPRIS: rate 0 pauses
        guard rate >= Engine.minimumRate, rate <= Engine.maximumRate else {
            return .failure(.invalidArgument("Rate must be 0 or between \(Engine.minimumRate) and \(Engine.maximumRate)"))
        }
        guard rate != self.rate else { return .success([]) }
        if let load = state.load, queue[load.token.entry]?.episode.rate != nil {
            state.load?.rateOverride = rate   // for this episode; the session's rate stays
        } else {
            settings.rate = rate
        }
        return .success(rateChanged(now: now))
    }

    /// Playback runs at `rate` from now on: the estimates, the backend and the widgets.
    ///
    /// A change of rate also restarts the sound where it is heard, for two reasons that the
    /// sound tests measured. The output's buffer was made at the old rate, and until it has played
    /// out (0.1 s on PipeWire, 0.5 s on PulseAudio) mpv's samples scale it by the new one: Position
    /// was 64 ms behind or 107 ms ahead of what was heard 0.2 s after a change to 1.5. And mpv 0.35
    /// keeps its tempo filter across a change between two rates other than 1, whose count of the
    /// audio it holds then drifts: six changes between 0.25 and 4 left Position 38 ms behind
    /// (PipeWire) or 119 ms ahead (PulseAudio) for good. After a restart the new rate is heard at
    /// once, with the filter afresh, and Position is within 7 ms from the first beep heard. The
    /// price: 1-4 ms of silence in a tone, and on PipeWire one graph cycle (42.7 ms) in 2 of 35
    /// changes, as at any seek.
    mutating func rateChanged(now: MonotonicTime) -> [Effect] {
        let rate = self.rate
        tracker.setRate(rate, now: now)
        // The next entry may have been queued at the old rate: it is queued again at its own.
        state.load?.queuedFrom = nil
        state.load?.window.updateIncoming { $0.tracker?.setRate(rate, now: now) }
        var effects: [Effect] = [.backend(.setRate(rate))]
        // Not while the next entry has started under the tail of this one: mpv's file is the next
        // one, which starts its filter afresh anyway. Not into an output that cannot take back what
        // it holds (snapserver's second): the rooms would hear that second again.
        if incoming == nil, outputDelay == 0, let load = state.load, load.seekable, !load.pending {
            effects += seek(to: tracker.position(at: now), now: now)
        }
        tellWidgets(now: now)
        // playerctl ignores Rate; a Seeked makes it re-read the position.
        return effects + [.announce(.seeked(widgetsTold.position))]
    }
}
