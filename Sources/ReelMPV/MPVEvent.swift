import ReelCore

/// An mpv event as plain values: what the backend read from libmpv when the
/// event came (the C edge). `MPVTranslator` turns it into the engine's events.
enum MPVEvent: Equatable, Sendable {
    /// mpv started the playlist entry with this id.
    case startFile(entry: Int64)
    /// The playing file is open.
    case fileLoaded(OpenedFile)
    /// Playback (re)started after a load or a seek; mpv's position then, on its
    /// timeline (a trimmed file's EDL), nil when it had none.
    case restarted(position: MediaTime?)
    /// mpv ran one of the seeks sent.
    case seekAnswered
    /// mpv ended the entry with this id.
    case endFile(entry: Int64, EndReason)
    case idle
    /// The user closed the video window.
    case windowClosed
    /// A position sample (`audio-pts` or `time-pos`, on mpv's timeline), nil when
    /// the property went away. `sinkDelay`: how long until a sink's rooms hear it.
    case position(MediaTime?, clock: Clock, sinkDelay: MediaTime?)
    /// The playing file's tags changed (a live stream's ICY title); keys in lower case.
    case tags([String: String])
    case pausedForCache(Bool)
    /// A line mpv logged at warning level or above; `video`: from a video output.
    case log(String, video: Bool)

    enum Clock: Equatable, Sendable {
        /// `audio-pts`: what is heard.
        case audio
        /// `time-pos`: the video frames' clock.
        case video
    }

    enum EndReason: Equatable, Sendable {
        case endOfFile
        /// mpv's error; `cache`: why the cache's read failed, when it knows.
        case error(String, cache: String?)
        /// A playlist: mpv put `count` entries in its own playlist, ids from `first`.
        case redirect(first: Int64, count: Int32)
        /// Stopped, replaced or quit: nothing to tell.
        case other
    }
}

/// What mpv says of a file it opened.
struct OpenedFile: Equatable, Sendable {
    var seekable: Bool
    /// Tags and chapters; `length` is mpv's duration on its timeline.
    var metadata: TrackMetadata
    /// Whether mpv knows the file's size in bytes.
    var sizeKnown: Bool
    var embeddedArt: Bool
}
