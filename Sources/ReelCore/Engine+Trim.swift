/// Trimmed silence: the loaded entry plays without the middles of its long silences, and its
/// position jumps over each one at the moment it is heard.
extension Engine {
    /// The cuts an entry plays with: its feed trims silence and a scan found silences long enough.
    /// A song never trims (its feed settings are none).
    static func trim(for entry: QueueEntry) -> Trim? {
        guard entry.episode.trimSilence else { return nil }
        return entry.metadata.silences.flatMap(Trim.init)
    }

    /// When the next cut of the loaded entry is reached, by the estimate of what is heard.
    var nextCutHeardAt: MonotonicTime? {
        guard let trim = state.load?.trim, !tracker.awaitingAudio,
              let cut = trim.cut(after: tracker.anchor.position) else { return nil }
        return tracker.anchor.time(reaching: cut.start)
    }

    /// Moves the estimate over every cut reached by now: it goes on from the cut's end, from the
    /// moment its start was reached (the samples say the same a little later). Widgets learn it
    /// with Seeked; the library learns the time saved.
    mutating func followCuts(now: MonotonicTime) -> [Effect] {
        guard var load = state.load, let trim = load.trim, !tracker.awaitingAudio else { return [] }
        var effects: [Effect] = []
        while let cut = trim.cut(after: tracker.anchor.position),
              let reached = tracker.anchor.time(reaching: cut.start), reached <= now {
            tracker.run(PositionAnchor(position: cut.end, at: reached, rate: tracker.anchor.rate, running: true))
            load.timeSaved += cut.length
            effects.append(.store(.timeSaved(load.token.entry, cut.length)))
        }
        guard !effects.isEmpty else { return [] }
        state.load = load
        return effects + seekedIfDeparted(now: now)
    }

    /// Where playing from `position` of the loaded entry really goes: past a cut it falls in.
    func heard(_ position: MediaTime) -> MediaTime {
        state.load?.trim?.heard(position) ?? position
    }
}

extension Engine {
    /// The loaded entry plays with other cuts than its feed's settings and its silences now call
    /// for (trimming turned on or off, or a scan that has just found its silences): it is loaded
    /// again from where it is heard (or, still opening, from where it was to start), so that the
    /// change is heard at once.
    mutating func retrimIfChanged(now: MonotonicTime) -> [Effect] {
        guard let load = state.load, !load.window.isEnded, load.seekable,
              let entry = queue[load.token.entry], Engine.trim(for: entry) != load.trim else { return [] }
        return start(entry.id, play: state.wantsToPlay, now: now, from: position(at: now))
    }
}
