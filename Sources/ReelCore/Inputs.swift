/// How the queue repeats, named as in MPRIS.
public enum LoopStatus: String, CaseIterable, Equatable, Sendable {
    case none = "None", track = "Track", playlist = "Playlist"
}

/// A request from a user, through MPRIS, the extension interface or the CLI.
/// Arguments are already validated by the adapter: URIs are playable, rates finite.
public enum Command: Equatable, Sendable {
    case play, pause, playPause, stop, next, previous
    /// Relative seek in µs (MPRIS `Seek`).
    case seek(by: MediaTime)
    /// Absolute seek within the given entry (MPRIS `SetPosition`).
    case setPosition(EntryID, MediaTime)
    /// Inserts URIs after an entry (nil: at the end); `play` starts the first.
    case add(uris: [String], after: EntryID?, atStart: Bool, play: Bool)
    case remove(EntryID)
    case goTo(EntryID)
    case clear
    case setRate(Double)
    case setVolume(Double)
    case setLoop(LoopStatus)
    case setShuffle(Bool)
}

/// Why a command was refused. The adapter turns it into a D-Bus error.
public enum CommandError: Error, Equatable, Sendable {
    case noSuchTrack(EntryID)
    case invalidArgument(String)
}

/// Identifies one attempt to play one entry. A new token is made for every
/// load, so that events from an earlier load of the same entry are told apart.
public struct LoadToken: Hashable, Sendable, CustomStringConvertible {
    public let entry: EntryID
    public let serial: UInt64
    public init(entry: EntryID, serial: UInt64) { self.entry = entry; self.serial = serial }
    public var description: String { "\(entry)#\(serial)" }
}

/// What the backend reports, tagged with the load it belongs to.
public enum BackendEvent: Equatable, Sendable {
    /// The file is open: its tags, length, whether it can seek, and whether
    /// it carries embedded cover art (which the daemon extracts off the loop).
    case loaded(LoadToken, TrackMetadata, seekable: Bool, embeddedArt: Bool = false)
    /// Playback (re)started after a load or a seek, at this real position.
    case restarted(LoadToken, position: MediaTime)
    /// The backend's real position (mpv `time-pos`).
    case position(LoadToken, MediaTime)
    /// The backend stalled waiting for data (true) or resumed (false).
    case buffering(LoadToken, Bool)
    /// The entry reached its end.
    case endOfFile(LoadToken)
    /// The entry could not be played.
    case failed(LoadToken, reason: String)
}

/// What the caller must do after a step. The engine never does it itself.
public enum Effect: Equatable, Sendable {
    // Backend
    case load(LoadToken, uri: String, start: MediaTime, paused: Bool)
    case unload
    case setPaused(Bool)
    case seek(to: MediaTime)
    case setRate(Double)
    case setVolume(Double)
    // Announcements for the MPRIS adapter, in the order they happened
    case seeked(MediaTime)
    case trackAdded(EntryID, after: EntryID?)
    case trackRemoved(EntryID)
    case trackListReplaced
    case trackMetadataChanged(EntryID)
    case log(String)
}
