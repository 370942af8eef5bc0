import FoundationEssentials
import Glibc
import ReelSystem
import ReelCore
import ReelLibrary

/// Connects the engine to the SQLite library: looks items up when entries
/// are queued, picks the source when an entry starts, and hands what changed
/// in a loop turn (positions, play counts, tags, queue rows, settings) to the
/// writer thread. Without a library (damaged, foreign, unopenable) everything
/// still plays from the URIs as given, and `problem` says why; when writes
/// fail (a read-only or full disk) they wait in the writer, `problem` says
/// so, and they go through by themselves when the disk lets them.
final class LibraryBridge {
    /// The loop's own connection, for reads and for queueing new entries.
    /// Closed while writes fail (SQLite would keep a file it opened read-only
    /// so for every connection of the process), reopened when they work again.
    private(set) var library: Library?
    private let file: String
    /// The library's file, while it could be opened.
    var path: String? { library == nil ? nil : file }
    /// Why the library could not be opened.
    let openError: String?
    private let writer: LibraryWriter?
    /// Why writes fail at the moment; nil while they work.
    private(set) var writeError: String?
    private var batch = LibraryWriter.Batch()
    /// The settings of every episode whose feed has some, by item (`reel feed set`).
    private(set) var episodeSettings: [Int64: EpisodeSettings] = [:]

    /// Why the library is unavailable or not being written to, if it is.
    var problem: String? { openError ?? writeError.map { "cannot write \(file): \($0)" } }

    init(path: String, outcomes: Mailbox<LoopResult>) {
        file = path
        do {
            library = try Library(path: path)
            episodeSettings = (try? library?.episodeSettings()) ?? [:]
            openError = nil
            writer = LibraryWriter(path: path) { outcomes.post(.libraryWrite($0)) }
        } catch {
            library = nil
            openError = "\(error)"
            writer = nil
        }
    }

    /// A queue entry for a library item: its stored position and its feed's settings, with `uri`
    /// (else its local file if it has one, else its URL) and `metadata` (else the item's tags).
    func entry(for item: LibraryItem, uri: String? = nil, metadata: TrackMetadata? = nil) -> NewEntry {
        let uri = uri ?? item.localPath.map { URL(fileURLWithPath: $0).absoluteString } ?? item.remoteURL ?? ""
        var entry = NewEntry(uri: uri, itemID: item.id, metadata: metadata ?? item.metadata,
                             resumeAt: unwrittenPosition(of: item.id) ?? item.position, prefersResume: item.fromFeed)
        entry.episode = episodeSettings[item.id] ?? .none
        return entry
    }

    /// Reads the feeds' settings again (after `reel feed set`, or a sync that brought episodes).
    func reloadEpisodeSettings() {
        if let library { episodeSettings = (try? library.episodeSettings()) ?? episodeSettings }
    }

    /// Queued entries that the library knows get their item, its tags and
    /// stored position. Only reads: an entry the library does not know is
    /// queued without an item, and the writer thread makes one (the loop never
    /// waits for a write, which may be a 100,000-row one).
    func enrich(_ entries: [NewEntry]) -> [NewEntry] {
        guard let library else { return entries }
        let missing = entries.indices.filter { entries[$0].itemID == nil }
        guard !missing.isEmpty, let items = try? library.knownItems(forURIs: missing.map { entries[$0].uri }) else {
            return entries
        }
        var enriched = entries
        // An item queued many times shares one metadata box.
        var shared: [Int64: TrackMetadata] = [:]
        for (i, item) in zip(missing, items) {
            guard let item else { continue }
            let metadata = shared[item.id] ?? item.metadata
            shared[item.id] = metadata
            enriched[i] = entry(for: item, uri: entries[i].uri, metadata: entries[i].metadata ?? metadata)
        }
        return enriched
    }

    enum Source { case uri(String), unplayable(String) }

    /// Decided when the entry starts: the local file if it is there and
    /// readable, else the remote URL, else nothing.
    func source(for entry: QueueEntry) -> Source {
        guard let library, let id = entry.itemID, let item = (try? library.item(id: id)) ?? nil else {
            return .uri(entry.uri)
        }
        if let path = item.localPath, FileManager.default.isReadableFile(atPath: path) {
            return .uri(URL(fileURLWithPath: path).absoluteString)
        }
        if let remote = item.remoteURL { return .uri(remote) }
        return .unplayable("no playable source (\(item.localPath ?? "no file") is missing and there is no URL)")
    }

    /// The position last recorded for `item` that is not yet in the library: what a read of
    /// it says once the write lands (a pause, then the same item queued again at once, used to
    /// start from the position before the pause).
    private func unwrittenPosition(of item: Int64) -> MediaTime? {
        for write in batch.items.reversed() {
            switch write {
            case .position(item, let position): return position
            case .finished(item): return 0
            default: continue
            }
        }
        return writer?.unwrittenPosition(of: item)
    }

    /// A position forgotten by the user: the library's row says so already, and no position
    /// recorded before the forgetting may come back over it.
    func forgetPosition(ofItem item: Int64) {
        batch.items.removeAll { write in
            switch write {
            case .position(item, _), .finished(item): true
            default: false
            }
        }
        writer?.forgetUnwritten(item)
    }

    /// Notes what the engine asks to keep: the queue's rows, or about an entry of `queue`'s
    /// item (as the entry is now).
    func record(_ change: StorageChange, in queue: Queue) {
        if case .queue(let save) = change { return self.save(save) }
        guard let entryID = change.entry, let entry = queue[entryID], let id = entry.itemID else { return }
        switch change {
        case .savePosition(_, let position): batch.items.append(.position(id, position))
        case .finished: batch.items.append(.finished(id))
        case .learned: batch.items.append(.learned(id, entry.metadata))
        case .timeSaved(_, let saved): batch.items.append(.timeSaved(id, saved))
        case .queue: break   // saved above
        }
    }

    /// Notes what changed in the queue (`Engine.saveQueue`, once a loop turn).
    private func save(_ save: QueueSave) {
        if save.cleared {
            // Within a batch the clearing comes first: what this turn noted before it goes with it.
            batch.cleared = true
            batch.rows = []
            batch.removed = []
        }
        batch.rows += save.rows
        batch.removed += save.removed
        if let shuffleKeys = save.shuffleKeys { batch.shuffleKeys = (shuffleKeys.ids, shuffleKeys.values) }
        if let ranks = save.ranks { batch.ranks = (ranks.ids, ranks.values) }
        if let state = save.state { batch.state = state }
    }

    /// At the end of a loop turn: hands what changed to the writer.
    func endTurn() {
        writer?.submit(batch)
        batch = LibraryWriter.Batch()
    }

    /// Takes a report from the writer; returns the items it made for entries queued without
    /// one (for the engine to attach).
    func take(_ outcome: LibraryWriter.Outcome) -> [(entry: EntryID, item: Int64)] {
        switch outcome {
        case .failed(let why):
            writeFailed(why)
        case .recovered:
            if library == nil { library = try? Library(path: file, check: false) }
            guard writeError != nil else { break }
            writeError = nil
            log("library: writes go through again")
        case .attached(let pairs):
            return pairs.map { (EntryID($0.0), $0.1) }
        }
        return []
    }

    private func writeFailed(_ why: String) {
        library = nil
        guard writeError == nil else { return }
        writeError = why
        log("library: cannot write (\(why)); positions and the queue are kept and written when it can be written again")
    }

    /// The library for a client's read, once what earlier loop turns wrote has landed, so that
    /// it reads what it just did (a position, a play count). Waits only while a write is under
    /// way (at most 0.5 s, a 100,000-row queue); while writes fail the library is closed (above).
    func settled() throws -> Library {
        guard let library else { throw DaemonError(problem ?? "no library") }
        writer?.flush(timeout: 0.5)
        return library
    }

    /// Writes what is pending before the daemon exits (for at most a few seconds).
    func flush() {
        guard let writer else { return }
        if !writer.flush(timeout: 3) { log("library: some changes could not be written before exiting") }
        writer.stop()
    }

    /// The stored queue, paused where it was, and the settings.
    func storedQueue() -> (Queue, Settings)? {
        guard let library, let (rows, state) = ((try? library.loadQueue()) ?? nil).map({ ($0.rows, $0.state) }),
              !rows.isEmpty else { return nil }
        let entries = rows.map { row, item -> (QueueEntry, Queue.Place) in
            let new = item.map { self.entry(for: $0) } ?? NewEntry(uri: row.uri)
            var entry = QueueEntry(id: EntryID(row.id), uri: new.uri.isEmpty ? row.uri : new.uri,
                                   metadata: new.metadata ?? TrackMetadata(),
                                   itemID: row.itemID, resumeAt: new.resumeAt, prefersResume: new.prefersResume)
            entry.range = row.range
            // Its feed's settings from the start: the current entry is loaded as the queue is restored.
            entry.episode = new.episode
            return (entry, Queue.Place(rank: row.rank, shuffleKey: row.shuffleKey))
        }
        let queue = Queue(restoring: entries, current: state.current.map(EntryID.init), nextID: state.nextID,
                          shuffle: state.settings.shuffle)
        return (queue, state.settings)
    }
}
