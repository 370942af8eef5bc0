/// The sleep timer: playback fades out over `sleepFade` and pauses, after some playing time, at
/// the end of the chapter or at the end of the entry; and the resume point goes back to where the
/// fade began, the last that was heard clearly.
extension Engine {
    /// How often the fade lowers the volume.
    public static let sleepFadeStep: MonotonicTime = 100_000
    /// At the end of an entry the pause comes this much before its end, so that the backend never
    /// goes on to the next entry first.
    static let sleepEndMargin: MediaTime = 50_000

    mutating func setSleep(_ mode: SleepMode?, now: MonotonicTime) -> Result<[Effect], CommandError> {
        if case .after(let time) = mode, time <= 0 {
            return .failure(.invalidArgument("the sleep timer needs a time of more than 0"))
        }
        if mode == .endOfTrack || (mode == .endOfChapter && loadedChapters.isEmpty),
           let load = state.load, !load.pending, let entry = queue[load.token.entry], entry.metadata.length == nil {
            return .failure(.invalidArgument("what plays has no end (a live stream): give the sleep timer a time"))
        }
        let restore: [Effect] = sleep?.fadeFrom != nil ? [.backend(.setVolume(settings.volume))] : []
        sleep = mode.map { SleepTimer(mode: $0, left: $0.time ?? 0) }
        return .success(restore)
    }

    /// When the sleep timer pauses, by the estimate of what is heard; nil while that does not run.
    var sleepAt: MonotonicTime? {
        guard let sleep, tracker.anchor.running, tracker.anchor.rate > 0 else { return nil }
        if case .after = sleep.mode { return sleep.since.map { $0 + sleep.left } }
        return sleepPoint.flatMap(tracker.anchor.time(reaching:))
    }

    /// Where in the loaded entry the sleep timer pauses at the end of the chapter or the track: the
    /// next chapter's start, else the end the entry plays to (its range's, or before its outro),
    /// less the margin.
    private var sleepPoint: MediaTime? {
        if sleep?.mode == .endOfChapter, let next = nextChapterStart { return next - Engine.chapterSlack }
        guard let entry = state.token.flatMap({ queue[$0.entry] }),
              let end = entry.bounds(from: 0).end ?? entry.metadata.length else { return nil }
        return end - Engine.sleepEndMargin
    }

    /// The sleep timer's next moment: the fade's start, its next step, or the pause.
    var sleepDeadline: MonotonicTime? {
        guard let at = sleepAt else { return nil }
        guard let step = sleep?.lastFadeStep else { return at - sleepFade }
        return min(step + Engine.sleepFadeStep, at)
    }

    /// How long until the sleep timer pauses: playing time for a timer, the time to the chapter's or
    /// the entry's end at the rate otherwise; nil when it is off.
    public func sleepLeft(at now: MonotonicTime) -> MediaTime? {
        guard let sleep else { return nil }
        if let at = sleepAt { return max(at - now, 0) }
        if case .after = sleep.mode { return sleep.left }
        return sleepPoint.map { MediaTime(Double(max($0 - position(at: now), 0)) / rate) }
    }

    /// Counts a timer's playing time, fades, and pauses when the time comes. Run at the end of every step.
    mutating func followSleep(now: MonotonicTime) -> [Effect] {
        guard var timer = sleep else { return [] }
        let running = tracker.anchor.running
        if case .after = timer.mode {
            if running, timer.since == nil { timer.since = now }
            if !running, let since = timer.since {
                timer.left = max(timer.left - (now - since), 0)
                timer.since = nil
            }
        }
        var effects: [Effect] = []
        if !running, timer.fadeFrom != nil {
            // Paused or stalled in the fade: the volume comes back; the fade starts again on resuming.
            timer.fadeFrom = nil
            timer.lastFadeStep = nil
            effects.append(.backend(.setVolume(settings.volume)))
        }
        sleep = timer
        guard let at = sleepAt else { return effects }
        if now >= at {
            let back = timer.fadeFrom ?? position(at: now)
            sleep = nil
            let rewind = back < position(at: now) ? seek(to: back, now: now) : []
            return effects + rewind + pause(now: now) + [.backend(.setVolume(settings.volume)), .log("sleep timer: paused")]
        }
        let fadeStart = at - sleepFade
        guard now >= fadeStart else { return effects }
        if timer.fadeFrom == nil { timer.fadeFrom = tracker.position(at: max(fadeStart, tracker.anchor.at)) }
        timer.lastFadeStep = now
        sleep = timer
        return effects + [.backend(.setVolume(heardVolume(now: now)))]
    }

    /// The loaded entry played to its end with the timer set for its end (or its last chapter's).
    /// mpv ends the last file when its last sound is written, not when it is heard, which is
    /// before the pause was due: the pause comes now, reloaded where the fade began.
    mutating func sleepAtTheEnd(of id: EntryID, now: MonotonicTime) -> [Effect]? {
        guard let timer = sleep, timer.mode.time == nil else { return nil }
        let back = min(timer.fadeFrom ?? sleepPoint ?? position(at: now), position(at: now))
        sleep = nil
        let reload = start(id, play: false, now: now, from: back)
        queue.update(id) { $0.resumeAt = back }
        return reload + [.store(.savePosition(id, back)), .backend(.setVolume(settings.volume)), .log("sleep timer: paused")]
    }

    /// The queue played to its end: a timer set for what played has nothing left to pause.
    mutating func sleepEnded() -> [Effect] {
        guard sleep != nil else { return [] }
        let restore: [Effect] = sleep?.fadeFrom != nil ? [.backend(.setVolume(settings.volume))] : []
        sleep = nil
        return restore + [.log("sleep timer: off (the queue ended before it)")]
    }

    /// The volume the backend plays at: the user's, lowered while the sleep timer fades.
    func heardVolume(now: MonotonicTime) -> Double {
        guard sleep?.fadeFrom != nil, let at = sleepAt, sleepFade > 0 else { return settings.volume }
        return settings.volume * min(max(Double(at - now) / Double(sleepFade), 0), 1)
    }
}

/// When the sleep timer pauses.
public enum SleepMode: Equatable, Sendable {
    /// After this much playing time (time paused does not count).
    case after(MediaTime)
    case endOfChapter, endOfTrack

    /// Its name on D-Bus (`SleepTimer`) and in `reel sleep`.
    public var name: String {
        switch self {
        case .after: "timer"
        case .endOfChapter: "end-of-chapter"
        case .endOfTrack: "end-of-track"
        }
    }

    var time: MediaTime? {
        if case .after(let time) = self { time } else { nil }
    }

    /// What `reel sleep` and D-Bus's `Sleep` take: `end-of-chapter`, `end-of-track`, or a
    /// time: minutes by default (`30`), or with units (`45s`, `1.5h`, `1h30m`); nil for `off`.
    /// Throws a message a user can act on.
    public static func parse(_ text: String) throws(CommandError) -> SleepMode? {
        let word = text.trimmed().lowercased()
        switch word {
        case "off": return nil
        case "end-of-chapter", "chapter": return .endOfChapter
        case "end-of-track", "track": return .endOfTrack
        default: break
        }
        let problem = CommandError.invalidArgument(
            "a sleep time is minutes (30), a time with units (45s, 1.5h, 1h30m), end-of-chapter, end-of-track or off, not \"\(text.prefix(40))\"")
        let units: [Character: Double] = ["h": 3_600, "m": 60, "s": 1]
        var total = 0.0, number = "", sawUnit = false
        for c in word {
            if c.isASCIIDigit || c == "." { number.append(c); continue }
            guard let unit = units[c], let value = Double(number) else { throw problem }
            total += value * unit
            number = ""
            sawUnit = true
        }
        if !number.isEmpty {
            guard !sawUnit, let minutes = Double(number) else { throw problem }
            total += minutes * 60
        }
        guard word.isEmpty == false, total > 0, total <= 24 * 3_600, let micros = MediaTime.fromSeconds(total) else {
            throw problem
        }
        return .after(micros)
    }
}

/// A sleep timer that is set.
struct SleepTimer: Equatable, Sendable {
    let mode: SleepMode
    /// A timer's playing time left as of `since`; `since` is nil while playback does not run.
    var left: MediaTime
    var since: MonotonicTime?
    /// Once the fade has begun: the position it began at, where playback resumes.
    var fadeFrom: MediaTime?
    var lastFadeStep: MonotonicTime?

    init(mode: SleepMode, left: MediaTime) {
        self.mode = mode
        self.left = left
    }
}
