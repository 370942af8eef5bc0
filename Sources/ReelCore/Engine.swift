/// The playback engine: a pure state machine.
///
/// Inputs are commands, backend events and ticks, each with the monotonic
/// time it happened at; outputs are effects for the caller to perform. The
/// engine holds the only copy of the playback truth: queue, state, position.
public struct Engine: Sendable {
    public static let minimumRate = 0.25
    public static let maximumRate = 4.0
    public static let maximumVolume = 1.5
    /// Previous restarts the current entry when it is further in than this.
    public static let restartThreshold: MediaTime = 3_000_000
    /// While playing, the position is saved at most this often.
    public static let saveInterval: MonotonicTime = 1_000_000
    /// How long after a pause the backend is asked where the sound stopped: mpv's PipeWire
    /// output plays on to the end of the graph's cycle (42.7 ms at the quantum reeld asks for),
    /// and mpv tells its last position only when something else wakes it.
    public static let settleDelay: MonotonicTime = 200_000
    /// A stored position this close to the end counts as finished.
    public static let finishedMargin: MediaTime = 10_000_000
    /// No position is further than this (100 years): a seek asked for while a file of unknown
    /// length opens cannot be checked against its end yet, and a target near `Int64.max` then
    /// overflowed the arithmetic that follows the estimate (a fuzzing client found it).
    public static let farthestPosition: MediaTime = 100 * 365 * 24 * 3600 * 1_000_000
    /// When what widgets were told departs from the engine's estimate by more
    /// than this, the engine announces Seeked (a start heard later than the
    /// command, a re-anchored estimate).
    public static let driftTolerance: MediaTime = 8_000
    /// A paused restart this close to where it was asked to go went there: the rest is the sound
    /// server's latency, which mpv counts off a buffer it has not filled.
    static let pausedLatencyBound: MediaTime = 300_000

    public internal(set) var queue = Queue()
    public internal(set) var state: PlaybackState = .stopped
    /// The best estimate of the position that is heard (the Position property).
    public internal(set) var tracker = PositionTracker()
    /// What widgets believe: the motion last announced by PlaybackStatus,
    /// Rate, Position and Seeked. Seeked goes out when the estimate departs from it.
    public internal(set) var widgetsTold = PositionAnchor(position: 0, at: 0, rate: 1, running: false)
    public internal(set) var settings = Settings()
    /// The queue's state (current entry, next id, settings) as last handed to the store.
    var savedQueueState: QueueState?
    /// Set at start-up from the configuration.
    public var resumePolicy = ResumePolicy.standard
    public internal(set) var lastError: String?
    /// Why the audio output takes no audio now; shown as the last error while it lasts.
    public internal(set) var outputProblem: String?
    /// How long the audio output takes to play out what it was given (snapserver's
    /// buffer and the pipes into it); 0 for a sound server, which holds its buffer
    /// while paused. A pause holds the position where the sound will stop.
    public var outputDelay: MediaTime = 0 {
        didSet { tracker.predictsStart = outputDelay > 0 }
    }
    /// The sleep timer, while it is set.
    var sleep: SleepTimer?
    /// How long the sleep timer fades out before it pauses; set at start-up from the configuration.
    public var sleepFade: MediaTime = 10_000_000

    var failuresInARow = 0
    /// When the position was last saved while playing.
    var lastSave: MonotonicTime?
    var loadSerial: UInt64 = 0
    var rng: SplitMix64

    public init(seed: UInt64 = 0x5EED) {
        rng = SplitMix64(seed: seed)
    }

    // MARK: Inputs

    public mutating func handle(_ command: Command, now: MonotonicTime) -> Result<[Effect], CommandError> {
        var effects: [Effect] = []
        if incoming != nil, command.concernsTheCurrentEntry {
            // The user acts on what they hear: the queued entry has started, its audio is next.
            effects += completeSwitch(now: now, cutTail: command == .next)
            if command == .next { return .success(effects + syncQueuedNext() + follow(now: now)) }
        }
        return apply(command, now: now).map { effects + $0 + syncQueuedNext() + follow(now: now) }
    }

    public mutating func handle(_ event: BackendEvent, now: MonotonicTime) -> [Effect] {
        let effects = apply(event, now: now) + syncQueuedNext()
        return effects + follow(now: now)
    }

    /// What time moves at the end of every step: the cuts passed, the chapter heard, the sleep
    /// timer and the outro.
    private mutating func follow(now: MonotonicTime) -> [Effect] {
        let effects = followCuts(now: now) + followSleep(now: now) + cutOutroIfDue(now: now)
        followChapter(now: now)
        return effects
    }

    /// When the engine wants a `tick`: the moment the queued entry becomes
    /// audible, the moment the current one is predicted to be heard, or the
    /// moment its next cut or chapter is, or the sleep timer's next moment.
    public var deadline: MonotonicTime? {
        [incoming?.audibleAt, tracker.predictedStart, nextCutHeardAt, nextChapterHeardAt, sleepDeadline, outroHeardAt,
         askWhereTheSoundStopped].compactMap { $0 }.min()
    }

    /// Time has passed; acts on a deadline that is due.
    public mutating func tick(now: MonotonicTime) -> [Effect] {
        var effects: [Effect] = []
        if tracker.startIfDue(now: now) { effects += seekedIfDeparted(now: now) }
        if let due = incoming?.audibleAt, now >= due { effects += completeSwitch(now: now, cutTail: false) + syncQueuedNext() }
        if case .paused(var load) = state, let due = askWhereTheSoundStopped, now >= due {
            load.settling = .asked
            state = .paused(load)
            effects.append(.backend(.reportPosition))
        }
        return effects + follow(now: now)
    }

    /// Paused: when the backend is to be asked where the sound stopped.
    private var askWhereTheSoundStopped: MonotonicTime? {
        if case .paused(let load) = state, case .askAt(let at) = load.settling { at } else { nil }
    }

    /// The rate playback runs at: the loaded episode's (its feed's, or what the user set while it
    /// plays), else the session's.
    public var rate: Double {
        guard let load = state.load else { return settings.rate }
        return load.rateOverride ?? queue[load.token.entry].map(rate(for:)) ?? settings.rate
    }

    /// The rate an entry plays at: its feed's, else the session's.
    func rate(for entry: QueueEntry) -> Double { entry.episode.rate ?? settings.rate }

    /// The Position property: what is heard, never ahead of it.
    public func position(at now: MonotonicTime) -> MediaTime { max(tracker.position(at: now), 0) }

    // MARK: Announcing the position

    /// Tells widgets the motion of the estimate from now on (with Seeked or
    /// with a PlaybackStatus/Rate change, which carries Position).
    mutating func tellWidgets(now: MonotonicTime) {
        widgetsTold = PositionAnchor(position: tracker.position(at: now), at: now, rate: rate,
                                   running: state.status == .playing)
    }

    /// Seeked, when widgets now believe something else than the estimate.
    mutating func seekedIfDeparted(now: MonotonicTime) -> [Effect] {
        guard !tracker.awaitingAudio,
              abs(tracker.position(at: now) - widgetsTold.position(at: now)) > Engine.driftTolerance else { return [] }
        tellWidgets(now: now)
        return [.announce(.settled(widgetsTold.position))]
    }

    public var snapshot: Snapshot {
        let current = queue.current
        let loaded = state.token != nil
        return Snapshot(
            status: state.status,
            loop: settings.loop,
            stopAfter: settings.stopAfter,
            consume: settings.consume,
            shuffle: settings.shuffle,
            rate: rate,
            volume: settings.volume,
            current: current,
            canGoNext: current.flatMap { queue.entry(after: $0.id, wrap: settings.loop == .playlist) } != nil
                || (keysMoveByChapter && nextChapterStart != nil),
            canGoPrevious: current.map { queue.entry(before: $0.id, wrap: settings.loop == .playlist) != nil || loaded } ?? false,
            canPlay: !queue.isEmpty,
            canPause: current != nil,
            canSeek: state.load?.seekable ?? false,
            queueRevision: queue.revision,
            queueCount: queue.count,
            lastError: outputProblem ?? lastError,
            replayGain: settings.replayGain,
            video: settings.video,
            activity: activity,
            chapter: state.load?.chapter,
            chapterKeys: settings.chapterKeys,
            sleep: sleep?.mode,
            timeSaved: state.load?.trim != nil ? state.load?.timeSaved : nil)
    }
}

extension Engine {
    /// What playback waits for, so that a client can say so at once.
    var activity: String? {
        switch state {
        case .loading(let load, true):
            guard let entry = queue[load.token.entry], entry.isRemote else { return nil }
            return "connecting to " + (URLParts.host(of: entry.uri) ?? "the server")
        case .buffering: return "buffering"
        default: return nil
        }
    }
}

extension Command {
    /// Whether the command acts on the entry being heard, so that a queued
    /// entry which has started in the backend must first become current.
    var concernsTheCurrentEntry: Bool {
        switch self {
        case .setVolume, .setLoop, .setShuffle, .setRate, .setReplayGain, .setVideo, .setChapterKeys, .setSleep, .add(_, _, _, false): false
        default: true
        }
    }
}
