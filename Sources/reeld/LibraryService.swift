import FoundationEssentials
import ReelSystem
import Glibc
import ReelCache
import ReelCore
import ReelDBus
import ReelLibrary
import ReelMPRIS

/// The library and stored playlists for the control buses: searches, feeds' settings, imports,
/// playlists, and queueing items with their stored positions. Used from the run loop's thread.
final class LibraryService: LibrarySession {
    private let player: Player
    let library: LibraryBridge
    /// Starts the downloads an episode needs before its silences can be scanned; nil without a cache.
    private let downloads: CacheService?
    private let scanner: SilenceScanner
    private let tasks: Mailbox<LoopResult>
    private let imports: ImportQueue
    /// The watch of the music folder, while there is one.
    private var watch: FolderWatch?
    private(set) var watchStatus = "off"
    /// When what a running scan wrote was last made known (µs, monotonic).
    private var catalogueShown: Int64 = 0
    private(set) var activePlaylist: PlaylistInfo?
    /// What the buses tell their clients changed in the library.
    private(set) var catalogueRevision = 0
    private(set) var playlistRevision = 0

    init(player: Player, library: LibraryBridge, downloads: CacheService?, scanner: SilenceScanner, tasks: Mailbox<LoopResult>) {
        self.player = player
        self.library = library
        self.downloads = downloads
        self.scanner = scanner
        self.tasks = tasks
        imports = ImportQueue(tasks: tasks)
    }

    private var settledLibrary: Library { get throws { try library.settled() } }

    /// Runs a library call; what goes wrong comes out as the session's error (a message of
    /// SQLite's or the file system's as `.failed`).
    private func reading<T>(_ body: () throws -> T) throws(SessionError) -> T {
        do {
            return try body()
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError(.failed, "\(error)")
        }
    }

    /// Items came or went (an import, a sync).
    func catalogueChanged() { catalogueRevision += 1 }

    func importProgress(job: Int, done: Int, total: Int) {
        imports.progress(job: job, done: done, total: total)
        // What a scan writes shows in searches and MPD's tree as it goes, not only at its end.
        let now = monotonicNow()
        if done > 0, now - catalogueShown >= Self.catalogueInterval {
            catalogueShown = now
            catalogueRevision += 1
        }
    }

    /// The unreadable files one scan names in the log; `reel lib problems` has them all.
    static let problemsLogged = 20

    /// How often, at most, what a running scan wrote is made known (µs).
    static let catalogueInterval: Int64 = 1_000_000

    func importDone(job: Int, _ summary: ImportSummary) {
        if summary.changedCatalogue { catalogueRevision += 1 }
        guard imports.finished(job: job, summary, libraryPath: try? settledLibrary.path) else { return }
        let counts = [("added", summary.added), ("updated", summary.updated), ("moved", summary.moved), ("removed", summary.removed)]
            .filter { $0.1 > 0 }.map { "\($0.0) \($0.1)" }
        log(counts.isEmpty ? "music folder: nothing changed (\(summary.known) files)" : "music folder changed: " + counts.joined(separator: ", "))
        for (path, why) in summary.problems.prefix(Self.problemsLogged) { log("cannot read \(path.escapingControls()): \(why)") }
        if summary.problems.count > Self.problemsLogged {
            log("…and \(summary.problems.count - Self.problemsLogged) more files that cannot be read (reel lib problems lists them)")
        }
    }

    var scanning: Bool { imports.isBusy }

    func scanProblems() throws(SessionError) -> [(path: String, reason: String)] {
        try reading { try settledLibrary.scanProblems() }
    }

    /// Catches up with what changed in the music folder while the daemon was not running (and
    /// goes on with imports a kill cut short), then follows it with inotify when `watch`.
    func followMusicFolder(_ folder: String, watch enabled: Bool, fallbackInterval: Int64) {
        guard let path = try? settledLibrary.path else { return }
        for unfinished in (try? settledLibrary.takeUnfinishedScans()) ?? [] {
            imports.add(.inputs(unfinished.inputs, rescan: unfinished.rescan), libraryPath: path)
        }
        var info = stat()
        guard enabled, stat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            watchStatus = enabled ? "off: \(folder) is not a folder" : "off"
            return
        }
        let mailbox = tasks
        let watch = FolderWatch(root: folder, fallbackInterval: fallbackInterval) { mailbox.post(.watch($0)) }
        do {
            try watch.start()   // the scan that catches up comes once it watches: nothing changed during it is missed
        } catch {
            watchStatus = "off: \(error)"
            log("\(error)")
            return
        }
        self.watch = watch
        watchStatus = "watching \(folder)"
    }

    func watched(_ event: FolderWatch.Event) {
        switch event {
        case .changed(let paths):
            guard let path = try? settledLibrary.path else { return }
            imports.add(.changed(paths), libraryPath: path)
        case .rescan, .watching:
            guard let path = try? settledLibrary.path, let root = watch?.root else { return }
            imports.add(.inputs([root], rescan: false), libraryPath: path)
        case .exhausted(let why):
            watchStatus = "periodic: " + why
            log(why)
        }
    }
    func libraryItems(matching query: String, offset: Int, limit: Int) throws(SessionError) -> [LibraryItem] {
        try reading {
            try settledLibrary.search(query, offset: offset, limit: limit)
        }
    }

    func libraryItem(_ id: Int64) throws(SessionError) -> LibraryItem? { try reading { try settledLibrary.item(id: id) } }

    var libraryRevision: Int64 { (try? settledLibrary.revision) ?? 0 }

    func feeds() throws(SessionError) -> [FeedSummary] { try reading { try settledLibrary.feeds() } }

    func timeSavedInAll() throws(SessionError) -> MediaTime { try reading { try settledLibrary.totalTimeSaved() } }

    func changeFeed(named name: String, _ change: (inout EpisodeSettings) -> Void) throws(SessionError) -> FeedSummary {
        try reading {
            let written = try settledLibrary
            let feed = try written.feed(named: name)
            var summary = try written.feeds().first { $0.feed == feed } ?? FeedSummary(feed: feed, episodes: 0, settings: .none)
            change(&summary.settings)
            try written.setSettings(summary.settings, forFeed: feed)
            library.reloadEpisodeSettings()
            applyEpisodeSettings()
            return summary
        }
    }

    /// Gives queued episodes their feed's settings as the library has them now.
    func applyEpisodeSettings() {
        let byItem = library.episodeSettings
        var changes: [EntryID: EpisodeSettings] = [:]
        for entry in player.engine.queue.entries {
            let settings = entry.itemID.flatMap { byItem[$0] } ?? .none
            if settings != entry.episode { changes[entry.id] = settings }
        }
        if !changes.isEmpty {
            // Then scanned: an entry is scanned only once its feed trims.
            _ = player.run(.setEpisodeSettings(changes))
            scanSilences(player.engine.queue.entries.filter { changes[$0.id] != nil })
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
            } else if entry.isRemote, downloads != nil, scanner.fetchOnce(entry.uri) {
                fetch.append(entry.uri)
            }
        }
        guard let downloads, !fetch.isEmpty else { return }
        log("downloading \(fetch.count == 1 ? "1 episode to trim its" : "\(fetch.count) episodes to trim their") silences")
        downloads.startDownloads(fetch)
    }

    /// The entry's file on disk: a local file, its download, or the cache's complete copy.
    private func filePath(of entry: QueueEntry) -> String? {
        guard case .uri(let uri) = library.source(for: entry) else { return nil }
        if let url = URL(string: uri), url.isFileURL { return url.path }
        return downloads?.cachePath(uri)
    }

    func removeLibraryItem(_ id: Int64) throws(SessionError) -> Bool {
        try reading {
            let removed = try settledLibrary.remove(id: id)
            if removed { catalogueRevision += 1 }
            return removed
        }
    }

    func forgetPosition(_ id: Int64) throws(SessionError) -> Bool {
        try reading {
            let forgotten = try settledLibrary.forgetPosition(id)
            // It also stops applying to entries already queued.
            player.apply { engine in
                engine.forgetPosition(ofItem: id)
                return []
            }
            library.forgetPosition(ofItem: id)
            return forgotten
        }
    }

    func playLibraryItems(_ items: [LibraryItem]) -> Int {
        _ = add(items, after: nil, atStart: false, play: true)
        return items.count
    }

    func queueLibraryItems(_ items: [LibraryItem], after: EntryID?, atStart: Bool) throws(SessionError) {
        try add(items, after: after, atStart: atStart, play: false).mapError(SessionError.init).get()
    }

    /// Queues library items as entries with their tags and stored positions.
    private func add(_ items: [LibraryItem], after: EntryID?, atStart: Bool, play: Bool) -> Result<Void, CommandError> {
        player.run(.add(entries: items.map { library.entry(for: $0) }, after: after, atStart: atStart, play: play))
    }

    func importItems(_ inputs: [String], rescan: Bool, progress: @escaping (Int, Int) -> Void,
                     done: @escaping (ImportSummary) -> Void) throws(SessionError) {
        try reading {
            imports.add(.inputs(inputs, rescan: rescan), libraryPath: try settledLibrary.path, progress: progress, done: done)
        }
    }

    func savePlaylist(_ name: String) throws(SessionError) -> Int {
        try reading {
            let written = try settledLibrary   // an entry queued a moment ago has its item written
            // ...though the loop may not have heard of it yet: those are found by their URIs.
            let entries = player.engine.queue.entries
            let missing = entries.filter { $0.itemID == nil }.map(\.uri)
            let found = missing.isEmpty ? [] : try written.knownItems(forURIs: missing)
            let byURI = Dictionary(zip(missing, found).compactMap { uri, item in item.map { (uri, $0.id) } }) { a, _ in a }
            let items = entries.compactMap { $0.itemID ?? byURI[$0.uri] }
            try written.savePlaylist(name, items: items)
            playlistRevision += 1
            activePlaylist = try written.playlists().first { $0.name == name }
            return items.count
        }
    }

    func writePlaylist(_ name: String, items: [Int64]) throws(SessionError) {
        try reading {
            try settledLibrary.savePlaylist(name, items: items)
            playlistRevision += 1
            if activePlaylist?.name == name { activePlaylist = try settledLibrary.playlists().first { $0.name == name } }
        }
    }

    func loadPlaylist(id: Int64) throws(SessionError) -> Int? {
        try reading {
            guard let info = try settledLibrary.playlists().first(where: { $0.id == id }) else { return nil }
            let items = try settledLibrary.playlist(id: id)
            _ = player.run(.clear)
            _ = player.run(.add(entries: items.map { library.entry(for: $0) }, after: nil, atStart: false, play: true))
            activePlaylist = info
            return items.count
        }
    }

    func playlists() throws(SessionError) -> [PlaylistInfo] { try reading { try settledLibrary.playlists() } }

    func playlistItems(id: Int64) throws(SessionError) -> [LibraryItem] { try reading { try settledLibrary.playlist(id: id) } }

    func removePlaylist(id: Int64) throws(SessionError) -> Bool {
        try reading {
            let removed = try settledLibrary.removePlaylist(id: id)
            if activePlaylist?.id == id { activePlaylist = nil }
            playlistRevision += 1
            return removed
        }
    }

    func renamePlaylist(id: Int64, to name: String) throws(SessionError) {
        try reading {
            try settledLibrary.renamePlaylist(id: id, to: name)
            playlistRevision += 1
            if activePlaylist?.id == id { activePlaylist?.name = name }
        }
    }

}
