/// Everything a client can observe, as of the end of a step. The MPRIS
/// adapter diffs consecutive snapshots to decide which properties changed.
public struct Snapshot: Equatable, Sendable {
    public var status: PlaybackStatus
    public var loop: LoopStatus
    public var stopAfter: StopAfter
    public var consume: Bool
    public var shuffle: Bool
    public var rate: Double
    public var volume: Double
    public var current: QueueEntry?
    public var canGoNext: Bool
    public var canGoPrevious: Bool
    public var canPlay: Bool
    public var canPause: Bool
    public var canSeek: Bool
    /// Changes whenever the queue's entries or play order change.
    public var queueRevision: UInt64
    public var queueCount: Int
    public var lastError: String?
    public var replayGain: ReplayGain
    public var video: Bool
    /// What playback waits for, when it waits: "connecting to HOST", "buffering".
    public var activity: String?
    /// The index of the chapter heard in the current entry's `metadata.chapters`.
    public var chapter: Int?
    public var chapterKeys: ChapterKeys
    /// The sleep timer, when set (`Session.sleepLeft` tells the time left).
    public var sleep: SleepMode?
    /// How much trimming silence has left out of the current entry in this play; nil when it
    /// does not trim.
    public var timeSaved: MediaTime?
}

/// User settings that outlive a track.
public struct Settings: Equatable, Sendable {
    public var loop: LoopStatus = .none
    /// Set by the MPD bus; not stored with the queue (MPD keeps it in its state file, reel for the session).
    public var stopAfter = StopAfter.never
    /// MPD's consume: an entry played to its end, or skipped with Next, leaves the queue.
    /// Set by the MPD bus, for the session.
    public var consume = false
    public var shuffle = false
    public var rate = 1.0
    public var volume = 1.0
    /// Set at start-up from the configuration, not stored with the queue.
    public var replayGain = ReplayGain.off
    /// Set at start-up from the configuration, not stored with the queue.
    public var video = false
    /// Set at start-up from the configuration, not stored with the queue.
    public var chapterKeys = ChapterKeys.auto
    public init() {}
}
