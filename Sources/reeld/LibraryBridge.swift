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
    private var storedState: QueueState?
    /// The last position handed to the writer for each item played in this run: what a read
    /// of the library says until the write lands (a pause, then the same item queued again
    /// at once, used to start from the position before the pause).
    private var positions: [Int64: MediaTime] = [:]
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
                             resumeAt: positions[item.id] ?? item.position, prefersResume: item.fromFeed)
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

    /// A position forgotten by the user: the library's row says so already.
    func forgetPosition(ofItem item: Int64) { positions[item] = nil }

    /// Notes what the engine asks to keep about `entry` (as it was then).
    func record(_ change: StorageChange, entry: QueueEntry) {
        guard let id = entry.itemID else { return }
        switch change {
        case .savePosition(_, let position):
            batch.items.append(.position(id, position))
            positions[id] = position
        case .finished:
            batch.items.append(.finished(id))
            positions[id] = 0
        case .learned: batch.items.append(.learned(id, entry.metadata))
        case .timeSaved(_, let saved): batch.items.append(.timeSaved(id, saved))
        }
    }

    /// At the end of a loop turn: hands what changed to the writer. Cheap:
    /// the rows of the entries concerned, or, for a new shuffle order or
    /// ranks laid out afresh, one number per entry.
    func endTurn(_ engine: inout Engine) {
        guard let writer else { return }
        let changes = engine.takeQueueChanges()
        if !changes.isEmpty {
            let queue = engine.queue
            batch.cleared = changes.cleared
            batch.rows = changes.upserted.compactMap { id in
                queue.index(of: id).map { QueueRow(queue.entries[$0], queue.place(at: $0)) }
            }
            batch.removed = changes.removed.map(\.raw)
            if changes.reshuffled { batch.shuffleKeys = (queue.ids, queue.keys) }
            if changes.reranked { batch.ranks = (queue.ids, queue.rankList) }
        }
        let state = QueueState(current: engine.queue.currentID?.raw, nextID: engine.queue.nextID, settings: engine.settings)
        if state != storedState {
            batch.state = state
            storedState = state
        }
        writer.submit(batch)
        batch = LibraryWriter.Batch()
    }

    /// Takes a report from the writer; returns whether `problem` changed.
    func take(_ outcome: LibraryWriter.Outcome, engine: inout Engine) -> Bool {
        switch outcome {
        case .failed(let why):
            writeFailed(why)
            return true
        case .recovered:
            if library == nil { library = try? Library(path: file, check: false) }
            guard writeError != nil else { return false }
            writeError = nil
            log("library: writes go through again")
            return true
        case .attached(let pairs):
            for (entry, item) in pairs {
                engine.attach(item: item, to: EntryID(entry))
                // Tags it learnt while it had no item go to the item now.
                if let learnt = engine.queue[EntryID(entry)]?.metadata, learnt.length != nil {
                    batch.items.append(.learned(item, learnt))
                }
            }
            return false
        }
    }

    private func writeFailed(_ why: String) {
        library = nil
        guard writeError == nil else { return }
        writeError = why
        log("library: cannot write (\(why)); positions and the queue are kept and written when it can be written again")
    }

    /// Lets what earlier loop turns wrote land before a client reads the
    /// library, so that it reads what it just did (a position, a play count).
    func settle() {
        writer?.flush(timeout: 0.5)
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
        storedState = state
        let queue = Queue(restoring: entries, current: state.current.map(EntryID.init), nextID: state.nextID,
                          shuffle: state.settings.shuffle)
        return (queue, state.settings)
    }
}
