/// How a feed's episodes play, beyond their files (`reel feed set FEED rate 1.3 skip-intro 30 …`).
/// Music has none: a song never skips, and plays at the session's rate.
public struct EpisodeSettings: Equatable, Sendable {
    /// The rate its episodes play at; nil: the session's.
    public var rate: Double?
    /// What to skip of each episode's start and end (an intro, an outro), in µs.
    public var skipIntro: MediaTime = 0
    public var skipOutro: MediaTime = 0
    /// A filter that evens the level of speech (quiet and loud voices, a far microphone).
    public var voiceBoost = false
    /// Shortens long silences (`Trim`), once the file's silences are known.
    public var trimSilence = false

    public static let none = EpisodeSettings()

    /// What a feed's rate may be set to: 0 (the session's) or a rate the engine plays at.
    public static func acceptsRate(_ rate: Double) -> Bool {
        rate == 0 || (Engine.minimumRate...Engine.maximumRate).contains(rate)
    }

    /// The longest intro or outro a feed may skip.
    public static let longestSkip: MediaTime = 3_600_000_000

    public init(rate: Double? = nil, skipIntro: MediaTime = 0, skipOutro: MediaTime = 0, voiceBoost: Bool = false,
                trimSilence: Bool = false) {
        self.rate = rate
        self.skipIntro = skipIntro
        self.skipOutro = skipOutro
        self.voiceBoost = voiceBoost
        self.trimSilence = trimSilence
    }

    /// Where an episode starts: past its intro, unless it resumes later than that. An episode too
    /// short for its intro and outro plays whole; one of unknown length (not yet probed) skips it.
    func start(from resume: MediaTime, length: MediaTime?) -> MediaTime {
        guard skipIntro > 0, resume < skipIntro, length.map(fits) ?? true else { return resume }
        return skipIntro
    }

    /// Where an episode ends: before its outro (within its range's end, if that comes first), once
    /// its length is known.
    func end(length: MediaTime?, rangeEnd: MediaTime?) -> MediaTime? {
        guard skipOutro > 0, let length, fits(length) else { return rangeEnd }
        return min(rangeEnd ?? .max, length - skipOutro)
    }

    private func fits(_ length: MediaTime) -> Bool { length > skipIntro + skipOutro }
}

/// A feed as the library knows it: its name (as synced), its episodes and its settings.
public struct FeedSummary: Equatable, Sendable {
    public var feed: String
    public var episodes: Int
    public var settings: EpisodeSettings

    public init(feed: String, episodes: Int, settings: EpisodeSettings) {
        self.feed = feed
        self.episodes = episodes
        self.settings = settings
    }
}

extension Engine {
    /// Gives entries their feed's settings. The loaded episode takes a new rate and trimming at
    /// once; skips and the voice filter apply from its next start; the queued next entry is queued again.
    mutating func setEpisodeSettings(_ settings: [EntryID: EpisodeSettings], now: MonotonicTime) -> [Effect] {
        let rateBefore = rate
        var changed = false
        for (id, episode) in settings where queue[id].map({ $0.episode != episode }) ?? false {
            queue.update(id) { $0.episode = episode }
            changed = true
        }
        guard changed else { return [] }
        state.load?.queuedFrom = nil
        return (rate != rateBefore ? rateChanged(now: now) : []) + retrimIfChanged(now: now)
    }
}

extension Engine {
    /// Where the loaded episode's outro starts, when the engine must end it there itself.
    var outroCut: MediaTime? {
        guard let load = state.load, load.outroUnsent, !load.pending, !load.window.isEnded, let entry = queue[load.token.entry] else { return nil }
        return entry.episode.end(length: entry.metadata.length, rangeEnd: nil)
    }

    /// When the outro starts to be heard; nil while the position does not run.
    var outroHeardAt: MonotonicTime? { outroCut.flatMap(tracker.anchor.time(reaching:)) }

    /// Ends the episode at its outro, as if its file ended there: played, and on to the next entry.
    mutating func cutOutroIfDue(now: MonotonicTime) -> [Effect] {
        guard tracker.anchor.running, let cut = outroCut, position(at: now) >= cut, let id = state.token?.entry else { return [] }
        state.load?.outroUnsent = false
        // Nothing more to save of it; a load of the next replaces what the backend holds.
        state.load?.window = .ended(next: nil)
        return [markFinished(id), .log("skipped the outro")] + entryEnded(id, play: state.wantsToPlay, now: now)
    }
}
