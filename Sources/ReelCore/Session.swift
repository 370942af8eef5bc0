/// The session every control bus drives and shows: MPRIS today, the MPD
/// protocol next. A bus turns its requests into `Command`s and renders the
/// snapshot and its changes; it never sees storage, the player or another bus.
/// reeld implements it; every call happens on its loop thread. Every refusal,
/// here and in `LibrarySession` and `CacheSession`, is a `SessionError`: thrown
/// (typed) by a call, or the failure of a `Result` handed to a callback.
public protocol Session: AnyObject {
    var snapshot: Snapshot { get }
    /// The queue, for lookups by id and pages of it (the snapshot does not copy it).
    var queue: Queue { get }
    /// Runs a command through the engine and performs its effects.
    func run(_ command: Command) throws(SessionError)
    /// The position now, in µs: the engine's estimate of what is heard, extrapolated to now.
    func position() -> MediaTime
    /// How long until the sleep timer pauses, now; nil when it is off.
    func sleepLeft() -> MediaTime?
    func quit()
    /// A URI or absolute path checked as something that can be played.
    func validate(_ text: String) throws(SessionError) -> String
    /// Like `validate`, but a local playlist becomes its entries.
    func expand(_ text: String) throws(SessionError) -> [String]
    /// Why the media library is unavailable, if it is.
    var libraryError: String? { get }
    /// Where the session's other control buses listen, as `BUS:ADDRESS` ("mpd:/run/user/1000/reel/mpd.socket").
    var controlAddresses: [String] { get }
    /// Where the sound goes when not to mpv's audio output ("snapcast:/tmp/snapfifo"); "" for mpv's own.
    var audioOutput: String { get }
    /// What the player decodes now and its bitrate in kbit/s (MPD's `audio` and `bitrate`), read when asked.
    func audioNow() -> (format: AudioFormat?, bitrate: Int?)
    /// A cover for a URI: the library's, the queue's, or an image beside a local file.
    func coverArt(for uri: String) -> String?
}

/// The session's library and stored playlists, when there is a library.
/// `importItems` calls back on the loop thread too.
public protocol LibrarySession: AnyObject {
    func libraryItems(matching query: String, offset: Int, limit: Int) throws(SessionError) -> [LibraryItem]
    /// Changes whenever the library does: a bus may keep what it built from the items until then.
    var libraryRevision: Int64 { get }
    /// Grows when items come or go (an import, a sync, a removal), not when positions are saved:
    /// what a bus tells its clients as a database change.
    var catalogueRevision: Int { get }
    /// Grows when a stored playlist is saved, removed or renamed.
    var playlistRevision: Int { get }
    func libraryItem(_ id: Int64) throws(SessionError) -> LibraryItem?
    func removeLibraryItem(_ id: Int64) throws(SessionError) -> Bool
    func forgetPosition(_ id: Int64) throws(SessionError) -> Bool
    /// Queues the items and plays the first; returns how many were queued.
    func playLibraryItems(_ items: [LibraryItem]) -> Int
    /// Queues the items after `after` (nil: at the end) without playing them.
    func queueLibraryItems(_ items: [LibraryItem], after: EntryID?, atStart: Bool) throws(SessionError)
    /// Queues an import (imports and scans of the watched music folder run one at a time, in
    /// order); `progress` and `done` are called on the loop. With `rescan`, unchanged files are read again.
    func importItems(_ inputs: [String], rescan: Bool, progress: @escaping (Int, Int) -> Void,
                     done: @escaping (ImportSummary) -> Void) throws(SessionError)
    /// Whether an import or a scan is running or queued: a bus tells its clients the database
    /// changed once this is false again, not at every batch written on the way.
    var scanning: Bool { get }
    /// The files the library could not read, and why, in path order (`reel lib problems`).
    func scanProblems() throws(SessionError) -> [(path: String, reason: String)]
    /// How the music folder is followed: "watching", "off", or why it is rescanned periodically instead.
    var watchStatus: String { get }
    func savePlaylist(_ name: String) throws(SessionError) -> Int
    /// Saves a playlist of these library items, in this order, replacing one of the name.
    func writePlaylist(_ name: String, items: [Int64]) throws(SessionError)
    /// Replaces the queue with the playlist; nil if there is no such playlist.
    func loadPlaylist(id: Int64) throws(SessionError) -> Int?
    func playlists() throws(SessionError) -> [PlaylistInfo]
    func playlistItems(id: Int64) throws(SessionError) -> [LibraryItem]
    /// False when there is no such playlist.
    func removePlaylist(id: Int64) throws(SessionError) -> Bool
    func renamePlaylist(id: Int64, to name: String) throws(SessionError)
    var activePlaylist: PlaylistInfo? { get }
    /// The feeds with episodes in the library, or settings.
    func feeds() throws(SessionError) -> [FeedSummary]
    /// How much trimming silence has left out, over every item of the library.
    func timeSavedInAll() throws(SessionError) -> MediaTime
    /// Changes a feed's settings (named as `Library.feed(named:)` takes it); they apply to its queued
    /// episodes at once. Returns the feed as it is now.
    func changeFeed(named name: String, _ change: (inout EpisodeSettings) -> Void) throws(SessionError) -> FeedSummary
}

/// The session's cache, downloads and feeds, when there is a cache. `sync`
/// answers on the loop thread too.
public protocol CacheSession: AnyObject {
    /// Starts downloading URLs or library item ids (as text); returns the URLs.
    func download(_ items: [String]) throws(SessionError) -> [String]
    func cancelDownload(_ url: String) -> Bool
    /// Cancels every download and forgets failed ones; how many were pending.
    func cancelAllDownloads() -> Int
    /// Downloads that failed for good, with why.
    var failedDownloads: [(url: String, error: String)] { get }
    func cacheEntries() -> [CacheEntry]
    func cachePath(_ url: String) -> String?
    /// Drops `url` (nil: everything not in use); how many were dropped.
    func clearCache(_ url: String?) -> Int
    var cacheSize: (bytes: Int64, limit: Int64) { get }
    /// The current entry's fill, when it is read through the cache.
    var cacheFill: (present: Int64, length: Int64?)? { get }
    /// Reads a feed off the loop, catalogues it and starts its downloads.
    func sync(_ feed: String, download: Bool,
              done: @escaping (Result<SyncOutcome, SessionError>) -> Void)
}
