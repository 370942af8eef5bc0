/// Whether the player plays, as every bus tells it: MPRIS's PlaybackStatus (the raw values), MPD's
/// `state` (`mpdState`).
public enum PlaybackStatus: String, Equatable, Sendable {
    case playing = "Playing", paused = "Paused", stopped = "Stopped"

    /// MPD's `state:` word.
    public var mpdState: String {
        switch self {
        case .playing: "play"
        case .paused: "pause"
        case .stopped: "stop"
        }
    }
}

/// The playback state machine's states. Each case carries what is valid in it.
public enum PlaybackState: Equatable, Sendable {
    /// Nothing is loaded in the backend; the position is 0.
    case stopped
    /// A load is under way; `play` says whether playback starts once it is ready.
    case loading(CurrentLoad, play: Bool)
    /// Loaded and advancing.
    case playing(CurrentLoad)
    /// Loaded and held.
    case paused(CurrentLoad)
    /// Meant to play but stalled for data; the position is held.
    case buffering(CurrentLoad)

    /// The current load, whatever the phase; nil when stopped. Setting it
    /// keeps the phase (and does nothing when stopped).
    public internal(set) var load: CurrentLoad? {
        get {
            switch self {
            case .stopped: nil
            case .loading(let load, _), .playing(let load), .paused(let load), .buffering(let load): load
            }
        }
        set {
            guard let newValue else { return }
            switch self {
            case .stopped: break
            case .loading(_, let play): self = .loading(newValue, play: play)
            case .playing: self = .playing(newValue)
            case .paused: self = .paused(newValue)
            case .buffering: self = .buffering(newValue)
            }
        }
    }

    /// The load that events must match; nil when nothing is loaded.
    public var token: LoadToken? { load?.token }

    /// Whether the user wants sound: true also while loading to play or stalled.
    public var wantsToPlay: Bool {
        switch self {
        case .playing, .buffering, .loading(_, true): true
        case .stopped, .paused, .loading(_, false): false
        }
    }

    /// What clients are told: Playing also while loading to play or stalled.
    public var status: PlaybackStatus {
        switch self {
        case .stopped: .stopped
        case .paused, .loading(_, false): .paused
        case .playing, .buffering, .loading(_, true): .playing
        }
    }
}

/// After a pause on a sound server, until the next seek or resume.
enum PauseSettling: Equatable, Sendable {
    /// The backend will be asked where the sound stopped at this moment.
    case askAt(MonotonicTime)
    /// It was asked; its answer, like any sample meanwhile, is taken.
    case asked
}

/// What holds for the current load, and only while it is current: a new
/// load starts from a fresh one, and stopping drops it, so nothing here is
/// ever reset by hand.
public struct CurrentLoad: Equatable, Sendable {
    public let token: LoadToken
    /// Whether the backend can seek in it: expected from the entry while it opens (so that
    /// MPRIS's CanSeek holds and a seek asked for then waits for its start), then as the
    /// backend says once it is loaded.
    public internal(set) var seekable = false
    /// It has not started playing (no `restarted` yet): its samples are not
    /// trusted and there is no position of it to save.
    var pending = true
    /// A seek was sent and has not landed; Seeked waits for its real position.
    var seekInFlight = false
    /// Its audio has been heard to start: the output stream is open, so the samples
    /// mpv gives while it is paused are where the sound stopped (before that, on a
    /// suspended PulseAudio sink, they run ahead of what is heard).
    var heard = false
    /// Paused by a pause, after it was heard: mpv's samples are where the sound stopped.
    /// (Not after a seek: a paused seek's samples read short by the output's buffer.)
    var settling: PauseSettling?
    /// What the backend holds after it, and whether it has finished it (its last buffered
    /// audio may still be playing while the queued entry starts).
    var window = GaplessWindow.open(next: nil)
    /// What the queued entry was chosen from, so that it is chosen again only when that changes.
    var queuedFrom: QueuedFrom?
    /// Queued entries that failed while it plays: skipped when queueing.
    var failedAhead: Set<EntryID> = []
    /// The load it followed without a gap: that one's failure, reported late, is still news.
    var switchedFrom: LoadToken?
    /// A seek asked for while it was still opening: sent once it has started.
    var seekAfterStart: MediaTime?
    /// The index of the chapter heard, as of the end of the last step.
    public internal(set) var chapter: Int?
    /// A Rate the user set while an episode with its feed's rate plays: for this episode only.
    var rateOverride: Double?
    /// Its feed skips an outro, but the backend was not told where (its length was unknown at the
    /// load): the engine ends it there itself.
    var outroUnsent = false
    /// The cuts it plays with (its feed trims silence), as the backend was told at the load.
    public internal(set) var trim: Trim?
    /// How much of it trimming has left out so far, in this play.
    public internal(set) var timeSaved: MediaTime = 0

    public init(token: LoadToken, seekable: Bool = false) {
        self.token = token
        self.seekable = seekable
    }
}
