import FoundationEssentials
import ReelSystem
import Glibc
import ReelCache
import ReelCore
import ReelDBus
import ReelLibrary
import ReelMPRIS

/// Work finished off the loop, handed back to it.
enum LoopResult: Sendable {
    case importProgress(job: Int, done: Int, total: Int)
    case importDone(job: Int, ImportSummary)
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

extension Daemon: LibrarySession {
    private var settledLibrary: Library {
        get throws {
            guard let opened = library.library else { throw DaemonError(library.problem ?? "no library") }
            library.settle()   // up to 0.5 s: what earlier turns wrote lands first
            return opened
        }
    }

    func libraryItems(matching query: String, offset: Int, limit: Int) throws -> [LibraryItem] {
        try settledLibrary.search(query, offset: offset, limit: limit)
    }

    func libraryItem(_ id: Int64) throws -> LibraryItem? { try settledLibrary.item(id: id) }

    var libraryRevision: Int64 { (try? settledLibrary.revision) ?? 0 }

    func feeds() throws -> [FeedSummary] { try settledLibrary.feeds() }

    func timeSavedInAll() throws -> MediaTime { try settledLibrary.totalTimeSaved() }

    func changeFeed(named name: String, _ change: (inout EpisodeSettings) -> Void) throws -> FeedSummary {
        let written = try settledLibrary
        let feed = try written.feed(named: name)
        var summary = try written.feeds().first { $0.feed == feed } ?? FeedSummary(feed: feed, episodes: 0, settings: .none)
        change(&summary.settings)
        try written.setSettings(summary.settings, forFeed: feed)
        library.reloadEpisodeSettings()
        applyEpisodeSettings()
        return summary
    }

    /// Gives queued episodes their feed's settings as the library has them now.
    func applyEpisodeSettings() {
        let byItem = library.episodeSettings
        var changes: [EntryID: EpisodeSettings] = [:]
        for entry in engine.queue.entries {
            let settings = entry.itemID.flatMap { byItem[$0] } ?? .none
            if settings != entry.episode { changes[entry.id] = settings }
        }
        if !changes.isEmpty {
            // Then scanned: an entry is scanned only once its feed trims.
            _ = run(.setEpisodeSettings(changes))
            scanSilences(engine.queue.entries.filter { changes[$0.id] != nil })
        }
    }

    /// Has the silences of these entries found, where their feed trims them. A remote episode
    /// with no file on disk is downloaded first (the scan reads the whole file); its download's end
    /// scans it, and an episode that plays meanwhile goes on trimmed from there.
    func scanSilences(_ entries: some Sequence<QueueEntry>) {
        var fetch: [String] = []
        for entry in entries where entry.episode.trimSilence && entry.metadata.silences == nil {
            if let path = filePath(of: entry) {
                scanner.scanIfWanted(entry, path: path)
            } else if entry.isRemote, cache != nil, scanner.fetchOnce(entry.uri) {
                fetch.append(entry.uri)
            }
        }
        guard let cache, !fetch.isEmpty else { return }
        log("downloading \(fetch.count == 1 ? "1 episode to trim its" : "\(fetch.count) episodes to trim their") silences")
        startDownloads(fetch, in: cache)
    }

    /// The entry's file on disk: a local file, its download, or the cache's complete copy.
    private func filePath(of entry: QueueEntry) -> String? {
        guard case .uri(let uri) = library.source(for: entry) else { return nil }
        if let url = URL(string: uri), url.isFileURL { return url.path }
        return cachePath(uri)
    }

    func removeLibraryItem(_ id: Int64) throws -> Bool {
        let removed = try settledLibrary.remove(id: id)
        if removed { catalogueRevision += 1 }
        return removed
    }

    func forgetPosition(_ id: Int64) throws -> Bool {
        let forgotten = try settledLibrary.forgetPosition(id)
        forgetPosition(ofItem: id)
        return forgotten
    }

    func playLibraryItems(_ items: [LibraryItem]) -> Int {
        _ = add(items, after: nil, atStart: false, play: true)
        return items.count
    }

    func queueLibraryItems(_ items: [LibraryItem], after: EntryID?, atStart: Bool) -> Result<Void, CommandError> {
        add(items, after: after, atStart: atStart, play: false)
    }

    /// Queues library items as entries with their tags and stored positions.
    private func add(_ items: [LibraryItem], after: EntryID?, atStart: Bool, play: Bool) -> Result<Void, CommandError> {
        run(.add(entries: items.map { library.entry(for: $0) }, after: after, atStart: atStart, play: play))
    }

    func importItems(_ inputs: [String], progress: @escaping (Int, Int) -> Void,
                     done: @escaping (ImportSummary) -> Void) throws {
        let path = try settledLibrary.path
        let job = startJob(progress: progress, done: done)
        let mailbox = tasks
        Threads.start(name: "reel-import") {
            let summary = Importer(libraryPath: path).run(inputs) { count, total in
                mailbox.post(.importProgress(job: job, done: count, total: total))
            }
            mailbox.post(.importDone(job: job, summary))
        }
    }

    func savePlaylist(_ name: String) throws -> Int {
        let written = try settledLibrary   // an entry queued a moment ago has its item written
        // ...though the loop may not have heard of it yet: those are found by their URIs.
        let entries = engine.queue.entries
        let missing = entries.filter { $0.itemID == nil }.map(\.uri)
        let found = missing.isEmpty ? [] : try written.knownItems(forURIs: missing)
        let byURI = Dictionary(zip(missing, found).compactMap { uri, item in item.map { (uri, $0.id) } }) { a, _ in a }
        let items = entries.compactMap { $0.itemID ?? byURI[$0.uri] }
        try written.savePlaylist(name, items: items)
        playlistRevision += 1
        activePlaylist = try written.playlists().first { $0.name == name }
        return items.count
    }

    func writePlaylist(_ name: String, items: [Int64]) throws {
        try settledLibrary.savePlaylist(name, items: items)
        playlistRevision += 1
        if activePlaylist?.name == name { activePlaylist = try settledLibrary.playlists().first { $0.name == name } }
    }

    func loadPlaylist(id: Int64) throws -> Int? {
        guard let info = try settledLibrary.playlists().first(where: { $0.id == id }) else { return nil }
        let items = try settledLibrary.playlist(id: id)
        _ = run(.clear)
        _ = run(.add(entries: items.map { library.entry(for: $0) }, after: nil, atStart: false, play: true))
        activePlaylist = info
        return items.count
    }

    func playlists() throws -> [PlaylistInfo] { try settledLibrary.playlists() }

    func playlistItems(id: Int64) throws -> [LibraryItem] { try settledLibrary.playlist(id: id) }

    func removePlaylist(id: Int64) throws -> Bool {
        let removed = try settledLibrary.removePlaylist(id: id)
        if activePlaylist?.id == id { activePlaylist = nil }
        playlistRevision += 1
        return removed
    }

    func renamePlaylist(id: Int64, to name: String) throws {
        try settledLibrary.renamePlaylist(id: id, to: name)
        playlistRevision += 1
        if activePlaylist?.id == id { activePlaylist?.name = name }
    }

    func coverArt(for text: String) -> String? {
        let uri = text.hasPrefix("/") ? URL(fileURLWithPath: text).absoluteString : text
        if let entry = engine.queue.entries.first(where: { $0.uri == uri }), let art = entry.metadata.artURL { return art }
        if let item = try? library.library?.knownItems(forURIs: [uri]).first ?? nil, let art = item.metadata.artURL { return art }
        return CoverArt.beside(uri)
    }
}
