/// How the queue repeats, named as in MPRIS.
public enum LoopStatus: String, CaseIterable, Equatable, Sendable {
    case none = "None", track = "Track", playlist = "Playlist"
}

/// Whether playback stops when the current entry ends (MPD's `single`, when
/// the queue does not loop the track): after every entry, or after this one
/// only. MPRIS has no such setting; it shows LoopStatus None meanwhile.
public enum StopAfter: String, CaseIterable, Equatable, Sendable {
    case never, eachEntry, thisEntry
}

/// Which ReplayGain tags set the level of each file.
public enum ReplayGain: String, CaseIterable, Equatable, Sendable {
    case off, track, album
}

/// Which entries start where they were left (MPRIS asks only that Play after
/// Stop starts over). `auto`: podcast episodes, audiobooks and films resume;
/// short music starts from the beginning.
public enum ResumePolicy: Equatable, Sendable {
    /// Entries of at least `minLength`, from a feed, or video.
    case auto(minLength: MediaTime)
    case always, never

    public static let defaultMinLength: MediaTime = 600_000_000
    public static let standard = ResumePolicy.auto(minLength: defaultMinLength)
}

/// A request from a user, through MPRIS, the extension interface or the CLI.
/// Arguments are already validated by the adapter: URIs are playable, rates finite.
public enum Command: Equatable, Sendable {
    case play, pause, playPause, stop, next, previous
    /// MPD's `pause 1` and `pause 0`: pauses, or resumes a paused player (a stopped one stays stopped).
    case setPaused(Bool)
    /// Relative seek in µs (MPRIS `Seek`).
    case seek(by: MediaTime)
    /// Absolute seek within the given entry (MPRIS `SetPosition`).
    case setPosition(EntryID, MediaTime)
    /// Inserts entries after an entry (nil: at the end); `play` starts the first.
    case add(entries: [NewEntry], after: EntryID?, atStart: Bool, play: Bool)
    case remove(EntryID)
    /// Moves an entry to this index of the track list (MPD `move`); play order is kept.
    case move(EntryID, to: Int)
    /// Puts these places of the track list in a random order (MPD `shuffle`); play order is kept.
    case shuffleTrackList(Range<Int>)
    case goTo(EntryID)
    /// Loads an entry from this position (MPD `seek` on another song); a paused player stays paused.
    case startAt(EntryID, MediaTime)
    case clear
    case setRate(Double)
    case setVolume(Double)
    case setLoop(LoopStatus)
    case setShuffle(Bool)
    case setStopAfter(StopAfter)
    case setConsume(Bool)
    case setReplayGain(ReplayGain)
    case setChapterKeys(ChapterKeys)
    /// Shows the video in a window, or hides it while the sound goes on.
    case setVideo(Bool)
    /// Replaces a queued entry's tags, for as long as it is queued (MPD `addtagid`, `cleartagid`):
    /// not stored in the library, and replaced by what its stream says next.
    case setTags(EntryID, TrackMetadata)
    /// Moves to a chapter of the entry that plays.
    case goToChapter(ChapterMove)
    /// Sets the sleep timer, or turns it off (nil).
    case setSleep(SleepMode?)
    /// Gives entries their feed's settings (from the library, after `reel feed set` or a restore).
    case setEpisodeSettings([EntryID: EpisodeSettings])
    /// Plays only part of a queued entry from now on (MPD `rangeid`); nil plays all of it.
    /// Refused for the entry the backend plays; a range past the file's end is cut to it.
    case setRange(EntryID, PlayRange?)
}

extension Command {
    /// Adding bare URIs, before the daemon has looked them up in the library.
    public static func add(uris: [String], after: EntryID? = nil, atStart: Bool = false, play: Bool) -> Command {
        .add(entries: uris.map { NewEntry(uri: $0) }, after: after, atStart: atStart, play: play)
    }
}

/// An entry to be queued: its URI and what the library knows of it.
public struct NewEntry: Equatable, Sendable {
    public var uri: String
    public var itemID: Int64?
    public var metadata: TrackMetadata?
    /// The stored position to resume from, in µs.
    public var resumeAt: MediaTime
    /// Worth resuming whatever its length: a feed's episode, a video.
    public var prefersResume: Bool
    /// Its feed's settings.
    public var episode = EpisodeSettings.none

    public init(uri: String, itemID: Int64? = nil, metadata: TrackMetadata? = nil, resumeAt: MediaTime = 0,
                prefersResume: Bool = false) {
        self.uri = uri
        self.itemID = itemID
        self.metadata = metadata
        self.resumeAt = resumeAt
        self.prefersResume = prefersResume || QueueEntry.looksLikeVideo(uri)
    }
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
    /// The backend started a file: a queued entry, when it moves on to it by itself.
    case started(LoadToken)
    /// The entry opens from a local file (a download or a complete copy of a remote one): it
    /// will seek, as a local entry does.
    case opensLocally(LoadToken)
    /// The file is open: its tags, length, whether it can seek, and whether
    /// it carries embedded cover art (which the daemon extracts off the loop).
    case loaded(LoadToken, TrackMetadata, seekable: Bool, embeddedArt: Bool = false)
    /// Playback (re)started after a load or a seek, at this real position.
    case restarted(LoadToken, position: MediaTime)
    /// A sample of the backend's position of what is heard (mpv `audio-pts`).
    case position(LoadToken, MediaTime)
    /// The backend stalled waiting for data (true) or resumed (false).
    case buffering(LoadToken, Bool)
    /// The entry reached its end.
    case endOfFile(LoadToken)
    /// The entry could not be played.
    case failed(LoadToken, reason: String)
    /// A live stream's own title (ICY StreamTitle) and station name changed.
    case streamTitle(LoadToken, title: String?, station: String?)
    /// The backend has nothing left to play.
    case idle
    /// The user closed the video window.
    case windowClosed
    /// The audio output stopped taking audio, and why (snapserver gone); nil when it takes it again.
    case outputProblem(String?)
}

/// What the caller must do after a step, in order; each case names its consumer.
/// The engine never does any of it itself.
public enum Effect: Equatable, Sendable {
    /// For the player backend.
    case backend(BackendCommand)
    /// For the control buses, beyond what the snapshot shows.
    case announce(Announcement)
    /// For the library.
    case store(StorageChange)
    case log(String)
}

/// What the engine asks of the player backend.
public enum BackendCommand: Equatable, Sendable {
    /// Replaces whatever the backend holds with this entry, played at `rate` from its first sample.
    case load(LoadToken, uri: String, start: MediaTime, end: MediaTime?, paused: Bool, rate: Double)
    /// Queues the entry to follow the one playing (replacing any queued one),
    /// so that the backend goes on to it without a gap, at its own rate from its first sample.
    case queueNext(LoadToken, uri: String, start: MediaTime, end: MediaTime?, rate: Double)
    /// Drops the queued entry.
    case unqueueNext
    case unload
    case setPaused(Bool)
    case seek(to: MediaTime)
    case setRate(Double)
    case setVolume(Double)
    case setReplayGain(ReplayGain)
    case setVideo(Bool)
    /// The filters of a load's file, applied when it starts (also as the queued next).
    case setVoiceBoost(LoadToken, Bool)
    /// The parts of a load's file that it plays without (trimmed silence): sent before the load.
    case setTrim(LoadToken, Trim)
    /// Report where playback is, as a `position` event (after a pause: where the sound stopped).
    case reportPosition
}

/// Events the control buses pass on to their clients, in the order they happened.
public enum Announcement: Equatable, Sendable {
    /// Position moved: a seek, a chapter, a cut of trimmed silence, another entry heard.
    case seeked(MediaTime)
    /// Position was put right to what is heard, with nothing asked: the estimate departed from the
    /// sound by more than widgets may drift (a start heard late, a pause that took effect late).
    /// MPRIS says Seeked, as its spec asks of a position that moves unexplained; MPD's idle
    /// `player` does not wake, as none of its events (a start, a stop, a seek) happened.
    case settled(MediaTime)
    case trackAdded(EntryID, after: EntryID?)
    case trackRemoved(EntryID)
    case trackListReplaced
    case trackMetadataChanged(EntryID)
}

/// What the library keeps of playback.
public enum StorageChange: Equatable, Sendable {
    /// Store where this entry's item stopped.
    case savePosition(EntryID, MediaTime)
    /// The entry's item was played to the end: from 0 next time, one more play.
    case finished(EntryID)
    /// The entry learnt tags its item should keep.
    case learned(EntryID)
    /// Trimming left out this much more of the entry's item.
    case timeSaved(EntryID, MediaTime)
    /// The queue's rows and state that changed in a loop turn (`Engine.saveQueue`).
    case queue(QueueSave)

    /// The entry whose item it concerns; nil for the queue.
    public var entry: EntryID? {
        switch self {
        case .savePosition(let id, _), .finished(let id), .learned(let id), .timeSaved(let id, _): id
        case .queue: nil
        }
    }
}
