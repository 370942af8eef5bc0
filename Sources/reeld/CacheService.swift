import ReelCore
import Dispatch
import FoundationEssentials
import ReelSystem
import Glibc
import ReelCache
import ReelDBus
import ReelLibrary
import ReelMPRIS

/// The cache, downloads and feed syncs for the control buses. Used from the run loop's thread.
final class CacheService: CacheSession {
    let cache: Cache
    private let player: Player
    private let library: LibraryBridge
    private let scanner: SilenceScanner
    private let tasks: Mailbox<LoopResult>
    /// Syncs running, by job: the feed, and whom to answer.
    private var syncs: [Int: (feed: String, done: (Result<SyncOutcome, SessionError>) -> Void)] = [:]
    private var nextJob = 0

    init(cache: Cache, player: Player, library: LibraryBridge, scanner: SilenceScanner, tasks: Mailbox<LoopResult>) {
        self.cache = cache
        self.player = player
        self.library = library
        self.scanner = scanner
        self.tasks = tasks
    }

    func download(_ items: [String]) throws(SessionError) -> [String] {
        let urls = try items.map(remoteURL)
        startDownloads(urls)
        return urls
    }

    /// A URL, or the remote URL of a library item given by id.
    private func remoteURL(_ item: String) throws(SessionError) -> String {
        if let id = Int64(item) {
            let item: LibraryItem?
            do { item = try library.settled().item(id: id) } catch { throw SessionError(.failed, "cannot read the library: \(error)") }
            guard let found = item else {
                throw SessionError(.noSuchItem, "no library item with id \(id)")
            }
            guard let url = found.remoteURL else {
                throw SessionError(.invalidArgument, "library item \(id) is a local file (\(found.localPath ?? "?")), not a URL")
            }
            return url
        }
        guard URLParts.isRemote(item) else {
            throw SessionError(.invalidURI,
                               "only http(s) URLs and library ids can be downloaded, not \"\(item.escapingControls())\"")
        }
        return try PlayableURI.validate(item).mapError(SessionError.init).get()
    }

    /// Starts the downloads not running yet; each library item gets its file when it is done.
    func startDownloads(_ urls: [String]) {
        let mailbox = tasks
        let libraryPath = library.path
        cache.download(urls, progress: { url, present, length in
            mailbox.post(.downloadProgress(url, present, length))
        }, done: { url, result in
            var result = result
            if case .success(let path) = result, let libraryPath {
                do {
                    _ = try Library(path: libraryPath, check: false).add(ProbedItem(localPath: path, remoteURL: url))
                } catch {
                    result = .failure(.io("stored as \(path), but the library cannot record it: \(error)"))
                }
            }
            mailbox.post(.downloadDone(url, result))
        })
    }

    /// A download ended: its episode's silences can be scanned now.
    func downloadEnded(_ url: String, _ result: Result<String, CacheError>) {
        switch result {
        case .success(let path):
            log("downloaded \(url) to \(path)")
            for entry in player.engine.queue.entries where entry.uri == url && entry.episode.trimSilence {
                scanner.scanIfWanted(entry, path: path, again: true)
            }
        case .failure(let error):
            log("cannot download \(url): \(error)")
        }
    }

    func cancelDownload(_ url: String) -> Bool { cache.cancelDownload(url) }

    func cancelAllDownloads() -> Int { cache.cancelAllDownloads() }

    var failedDownloads: [(url: String, error: String)] { cache.failedDownloads }

    func cacheEntries() -> [CacheEntry] { cache.entries() }

    func cachePath(_ url: String) -> String? { cache.completePath(url) }

    func clearCache(_ url: String?) -> Int { cache.clear(url) }

    var cacheSize: (bytes: Int64, limit: Int64) { (cache.size, cache.limit) }

    var cacheFill: (present: Int64, length: Int64?)? {
        guard player.backend.readsThroughCache, let current = player.engine.queue.current, current.isRemote else { return nil }
        return cache.fill(of: current.uri)
    }

    func sync(_ feed: String, download: Bool,
              done: @escaping (Result<SyncOutcome, SessionError>) -> Void) {
        guard let libraryPath = library.path else {
            return done(.failure(SessionError(.noLibrary, "the media library is unavailable")))
        }
        guard let job = startSync(feed, done) else {
            return done(.failure(SessionError(.failed, "\(feed) is being synced already")))
        }
        let (mailbox, cache, timeout) = (tasks, cache, cache.settings.timeout)
        Threads.start(name: "reel-sync") {
            // A few feeds at a time: each holds up to 32 MiB of work.
            Self.syncPlaces.wait()
            defer { Self.syncPlaces.signal() }
            let outcome = Result<SyncOutcome, SessionError> { () throws(SessionError) -> SyncOutcome in
                var items: [ProbedItem]
                do {
                    if feed.hasPrefix("/") {
                        guard access(feed, R_OK) == 0 else { throw SessionError(.noSuchFile, "cannot read \(feed)") }
                        items = try Feed.items(atPath: feed, base: URL(fileURLWithPath: feed))
                    } else {
                        let fd: Int32
                        do { fd = try HTTPDocument.fetch(feed, timeout: timeout, limit: Feed.largest, into: cache.directory) } catch {
                            throw SessionError(.failed, "cannot fetch \(feed): \(error)")
                        }
                        defer { close(fd) }
                        items = try Feed.items(fd: fd, base: URL(string: feed))
                    }
                } catch let error as SessionError {
                    throw error
                } catch {
                    throw SessionError(.invalidArgument, "\(feed): \(error)")
                }
                let library: Library
                do { library = try Library(path: libraryPath, check: false) } catch {
                    throw SessionError(.failed, "cannot open the library: \(error)")
                }
                Self.fetchChapters(of: &items, known: library, timeout: timeout, into: cache.directory)
                for item in items where !item.chapterProblems.isEmpty {
                    log("sync: \(item.title ?? item.remoteURL ?? feed): \(FeedChapters.summary(item.chapterProblems))")
                }
                for i in items.indices { items[i].feed = feed }
                let added: Int
                do { added = try library.addAll(items) } catch {
                    throw SessionError(.failed, "cannot add the feed's items to the library: \(error)")
                }
                let missing = download ? items.compactMap(\.remoteURL).filter {
                    !FileManager.default.fileExists(atPath: cache.storedPath($0))
                } : []
                return SyncOutcome(added: added, known: items.count - added, downloading: missing)
            }
            mailbox.post(.syncDone(job: job, outcome))
        }
    }

    /// A job number for a sync of `feed`; nil while one of the same feed runs.
    private func startSync(_ feed: String, _ done: @escaping (Result<SyncOutcome, SessionError>) -> Void) -> Int? {
        guard !syncs.values.contains(where: { $0.feed == feed }) else { return nil }
        nextJob += 1
        syncs[nextJob] = (feed, done)
        return nextJob
    }

    /// A sync ended: its downloads start, and its caller hears.
    func syncEnded(job: Int, _ result: Result<SyncOutcome, SessionError>) {
        guard let sync = syncs.removeValue(forKey: job) else { return }
        if case .success(let outcome) = result { startDownloads(outcome.downloading) }
        sync.done(result)
    }

    /// Fetches the chapters documents of a feed's items that the library has no chapters for yet
    /// (`<podcast:chapters url=…>`), newest first as feeds list them. A hostile or slow server costs
    /// a sync little: at most 20 documents of 1 MiB, 30 s in all, and none after 3 failures.
    static func fetchChapters(of items: inout [ProbedItem], known library: Library, timeout: Int, into directory: URL) {
        let deadline = monotonicNow() + 30_000_000
        var fetched = 0, failed = 0
        let wanted = items.indices.filter { items[$0].chaptersURL != nil && items[$0].chapters.isEmpty }
        let stored = (try? library.knownItems(forURIs: wanted.map { items[$0].remoteURL ?? "" })) ?? []
        for (n, i) in wanted.enumerated() where stored.indices.contains(n) && stored[n]?.metadata.chapters.isEmpty != false {
            guard fetched < 20, failed < 3, monotonicNow() < deadline, let url = items[i].chaptersURL else { break }
            fetched += 1
            do {
                let fd = try HTTPDocument.fetch(url, timeout: min(timeout, 10), limit: Feed.largestChapters, into: directory)
                defer { close(fd) }
                let reading = try FeedChapters.read(fd: fd)
                items[i].chapters = reading.chapters
                items[i].chapterProblems += reading.problems
            } catch {
                failed += 1
                log("sync: no chapters from \(url): \(error)")
            }
        }
    }

    /// Syncs that may read and catalogue at once.
    static let syncPlaces = DispatchSemaphore(value: 2)

    /// Downloads that were running when the daemon last stopped.
    func resumeDownloads() {
        let pending = cache.pendingDownloads
        guard !pending.isEmpty else { return }
        log("resuming \(pending.count) \(pending.count == 1 ? "download" : "downloads")")
        startDownloads(pending)
    }
}
