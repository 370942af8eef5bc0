import Foundation
import ReelCore
import ReelLibrary

/// Connects the engine to the SQLite library: looks items up when entries
/// are queued, picks the source when an entry starts, stores positions and
/// the queue. Without a library (damaged, foreign, unwritable) everything
/// still plays from the URIs as given, and `error` says why.
final class LibraryBridge {
    let library: Library?
    let error: String?
    private var savedQueue: SavedQueue?
    /// The queue and settings last looked at: most loop turns change neither,
    /// and comparing unchanged arrays is cheap (same storage).
    private var seen: (Queue, Settings)?

    init(path: String) {
        do {
            library = try Library(path: path)
            error = nil
        } catch {
            library = nil
            self.error = "\(error)"
        }
    }

    /// A queue entry for a library item: its local file if it has one, else its URL.
    static func entry(for item: LibraryItem) -> NewEntry {
        let uri = item.localPath.map { URL(fileURLWithPath: $0).absoluteString } ?? item.remoteURL ?? ""
        return NewEntry(uri: uri, itemID: item.id, metadata: item.metadata, resumeAt: item.position)
    }

    /// Queued entries get their library item (created if new), tags and stored position.
    func enrich(_ entries: [NewEntry]) -> [NewEntry] {
        guard let library else { return entries }
        return entries.map { entry in
            guard entry.itemID == nil, let item = attempt({ try library.item(forURI: entry.uri) }) else { return entry }
            return NewEntry(uri: entry.uri, itemID: item.id, metadata: entry.metadata ?? item.metadata, resumeAt: item.position)
        }
    }

    enum Source { case uri(String), unplayable(String) }

    /// Decided when the entry starts: the local file if it is there and
    /// readable, else the remote URL, else nothing.
    func source(for entry: QueueEntry) -> Source {
        guard let library, let id = entry.itemID, let item = attempt({ try library.item(id: id) }) ?? nil else {
            return .uri(entry.uri)
        }
        if let path = item.localPath, FileManager.default.isReadableFile(atPath: path) {
            return .uri(URL(fileURLWithPath: path).absoluteString)
        }
        if let remote = item.remoteURL { return .uri(remote) }
        return .unplayable("no playable source (\(item.localPath ?? "no file") is missing and there is no URL)")
    }

    /// Stores what an effect asks to keep about `entry` (as it was then).
    func persist(_ effect: Effect, entry: QueueEntry) {
        guard let library, let id = entry.itemID else { return }
        switch effect {
        case .savePosition(_, let position): attempt { try library.setPosition(position, for: id) }
        case .finished: attempt { try library.markFinished(id) }
        case .trackMetadataChanged: attempt { try library.learn(entry.metadata, for: id) }
        default: break
        }
    }

    /// Writes the queue and settings if they changed since the last write.
    func saveQueueIfChanged(_ engine: Engine) {
        guard let library else { return }
        if let (queue, settings) = seen, queue == engine.queue, settings == engine.settings { return }
        seen = (engine.queue, engine.settings)
        let q = engine.queue
        var saved = SavedQueue()
        saved.items = q.entries.compactMap(\.itemID)
        guard saved.items.count == q.entries.count else { return }
        saved.current = q.currentID.flatMap(q.index(of:))
        saved.shuffleOrder = q.shuffleOrder?.compactMap(q.index(of:))
        saved.settings = engine.settings
        guard saved != savedQueue else { return }
        if attempt({ try library.saveQueue(saved) }) != nil { savedQueue = saved }
    }

    /// The stored queue as entries to restore, with the current index and settings.
    func storedQueue() -> (entries: [NewEntry], saved: SavedQueue)? {
        guard let library, let saved = attempt({ try library.loadQueue() }) ?? nil else { return nil }
        let entries = saved.items.compactMap { id in (attempt({ try library.item(id: id) }) ?? nil).map(Self.entry(for:)) }
        savedQueue = saved
        return (entries, saved)
    }

    /// Runs a library call; a failure is logged and playback goes on.
    @discardableResult
    private func attempt<T>(_ body: () throws -> T) -> T? {
        do { return try body() } catch {
            log("library: \(error)")
            return nil
        }
    }
}
