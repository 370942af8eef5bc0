import ReelCore

/// One of our entries in mpv's playlist: the load it plays, and how.
struct MPVEntry: Equatable, Sendable {
    var token: LoadToken
    var uri: String
    var options = FileOptions()
}

/// How a file is played beyond its URI, asked for before its load.
struct FileOptions: Equatable, Sendable {
    /// The parts of the file not played (trimmed silence): mpv plays the kept parts back to
    /// back (an EDL timeline), and every time crosses between its timeline and the file's here.
    var trim: Trim?
    /// Whether the file plays through the voice filter (a feed's voice boost).
    var voiceBoost = false
    /// The rate a queued file plays at from its first sample (nil: the rate set last).
    var rate: Double?
}

/// The entry between mpv's START_FILE and its END_FILE.
struct PlayingFile: Equatable, Sendable {
    var entry: Int64
    var openedAt: MonotonicTime
    var phase: Phase
    /// Whether its position samples come from `audio-pts`, the clock of what is heard.
    /// `time-pos` follows the video frames while video is shown (40 ms steps, and a jump
    /// when the window goes); it serves only files without audio.
    var audioClock = false

    /// The first error mpv logged while it opened: more telling than the error code
    /// ("HTTP error 404 Not Found" rather than "loading failed"), also if it fails later.
    var firstError: String?

    enum Phase: Equatable, Sendable {
        /// Until FILE_LOADED.
        case opening
        case open
    }
}

/// A load that failed, told at the end of the drain: mpv hands out queued events
/// before log messages, so the message explaining a failure may come after the
/// END_FILE that it explains.
struct PendingFailure: Equatable, Sendable {
    var token: LoadToken
    var reason: String
    var detail: Detail

    enum Detail: Equatable, Sendable {
        /// The next line mpv logs explains it.
        case awaitingLog
        case known(String)
        /// The reason says it all (the cache knows what the server did; mpv logged only a failed read).
        case none
    }

    /// What the engine is told.
    var event: BackendEvent {
        guard case .known(let detail) = detail, !detail.isEmpty else { return .failed(token, reason: reason) }
        return .failed(token, reason: "\(reason): \(detail)")
    }
}

/// Why the sink (snapserver's pipe) passes nothing on, while it does not.
struct SinkLoss: Equatable, Sendable {
    var problem: String
    /// Where the rooms stopped hearing, to play again from there; nil when paused
    /// (they had heard everything up to the pause).
    var heard: Heard?
    /// Whether the engine was told the entry stalls (and is to be told when it goes on).
    var stalled: Bool
}

/// A position heard, of the load it belongs to.
struct Heard: Equatable, Sendable {
    var token: LoadToken
    var position: MediaTime
}
