/// The playback state machine's states. Each case carries what is valid in it.
public enum PlaybackState: Equatable, Sendable {
    /// Nothing is loaded in the backend; the position is 0.
    case stopped
    /// A load is under way; `play` says whether playback starts once it is ready.
    case loading(LoadToken, play: Bool)
    /// Loaded and advancing.
    case playing(LoadToken)
    /// Loaded and held.
    case paused(LoadToken)
    /// Meant to play but stalled for data; the position is held.
    case buffering(LoadToken)

    /// The load that events must match; nil when nothing is loaded.
    public var token: LoadToken? {
        switch self {
        case .stopped: nil
        case .loading(let t, _), .playing(let t), .paused(let t), .buffering(let t): t
        }
    }

    /// Whether the user wants sound: true also while loading to play or stalled.
    public var wantsToPlay: Bool {
        switch self {
        case .playing, .buffering, .loading(_, true): true
        case .stopped, .paused, .loading(_, false): false
        }
    }

    /// The MPRIS PlaybackStatus string.
    public var mprisStatus: String {
        switch self {
        case .stopped: "Stopped"
        case .paused, .loading(_, false): "Paused"
        case .playing, .buffering, .loading(_, true): "Playing"
        }
    }
}
