import ReelCache
import ReelCore
import ReelLibrary

/// Work finished off the loop, handed back to it.
enum LoopResult: Sendable {
    case importProgress(job: Int, done: Int, total: Int)
    case importDone(job: Int, ImportSummary)
    /// The watch of the music folder saw changes settle, or ran out of watches.
    case watch(FolderWatch.Event)
    case coverArt(EntryID, String)
    case libraryWrite(LibraryWriter.Outcome)
    /// A probe of this URI finished (nil: it could not be read).
    case tags(String, TrackMetadata?)
    case downloadProgress(String, Int64, Int64?)
    case downloadDone(String, Result<String, CacheError>)
    case syncDone(job: Int, Result<SyncOutcome, SessionError>)
    /// A scan of this URI for silences finished: what it found, or why it could not.
    case silences(String, Silences, problem: String?)
}
