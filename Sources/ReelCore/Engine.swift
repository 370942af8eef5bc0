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

    public internal(set) var queue = Queue()
    public internal(set) var state: PlaybackState = .stopped
    public internal(set) var anchor = PositionAnchor(position: 0, at: 0, rate: 1, running: false)
    public internal(set) var settings = Settings()
    public internal(set) var seekable = false
    public internal(set) var lastError: String?

    /// A seek was sent and has not landed; Seeked waits for its real position.
    var seekInFlight = false
    /// The current load has not yet started playing (no `restarted` yet).
    var awaitingStart = false
    var failuresInARow = 0
    /// When the position was last saved while playing.
    var lastSave: MonotonicTime?
    var loadSerial: UInt64 = 0
    var rng: SplitMix64

    public init(seed: UInt64 = 0x5EED) {
        rng = SplitMix64(seed: seed)
    }

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
