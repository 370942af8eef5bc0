import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// The persistent byte-range cache of remote media: a sparse data file per
/// resource under `directory`, an SQLite index of what is present, one
/// fetcher per resource, least-recently-read eviction, and downloads
/// moved into `mediaStore` (one copy on disk). Safe to use from any thread.
public final class Cache: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `lock`; the rest is immutable.
    public let directory: URL
    public let mediaStore: URL
    public let limit: Int64
    public let settings: CacheSettings
    private let index: CacheIndex
    private let lock = Lock()
    private var resources: [String: Resource] = [:]
    /// Downloads waiting for one of the `parallelDownloads` places, from `nextQueued` on.
    private var queuedDownloads: [() -> Void] = []
    private var nextQueued = 0
    private var runningDownloads = 0
    /// URLs queued or downloading: asking again for one of them adds nothing.
    private var downloading = Set<String>()
    /// Bytes the index claims, kept up to date by each claim and drop, so that
    /// a write costs no scan of the index. Guarded by `totalLock` (taken after `lock`, never before).
    private var total: Int64 = 0
    private let totalLock = Lock()
    /// Why the disk last refused a write, until a write works again.
    private var diskFault: String?
    /// What `hasRoom` last found: the log tells when that changes.
    private var hadRoom = true
    static let parallelDownloads = 3
    /// Attempts of a download after a server error (5xx) or a network failure, backing off.
    static let downloadAttempts = 4

    /// Opens (creating, 0700) the cache, and reconciles the index with the files.
    public init(directory: URL, mediaStore: URL, limit: Int64 = 2 << 30, settings: CacheSettings = CacheSettings()) throws {
        self.directory = directory
        self.mediaStore = mediaStore
        self.limit = limit
        var settings = settings
        settings.largestUnknownLength = min(settings.largestUnknownLength, max(limit / 2, 1 << 20))
        self.settings = settings
        for dir in [directory, mediaStore] { try Self.makeFolder(dir) }
        index = try CacheIndex(path: directory.appendingPathComponent("index.sqlite3").path)
        reconcile()
    }


    /// Makes a folder of the cache's (0700) if it is not there.
    private static func makeFolder(_ dir: URL) throws {
        do {
            try Paths.createDirectory(dir.path, mode: 0o700)
        } catch {
            throw CacheError.io(error.description)
        }
    }

    private func dataPath(_ key: String) -> String { directory.appendingPathComponent(key + ".data").path }

    /// Runs `use` on the resource for `url` (made on first use) under the
    /// cache's lock, so that it is busy before an idle release could drop it.
    private func withResource<T>(_ url: String, _ use: (Resource) -> T) throws -> T {
        let key = cacheKey(for: url)
        return try lock.withLock {
            if let known = resources[key] { return use(known) }
            var record = index.record(key: key).flatMap { $0.url == url ? $0 : nil }
                ?? ResourceRecord(url: url, key: key, present: ByteRanges(), lastRead: Int64(Date().timeIntervalSince1970))
            if record.stored, !isStoredIntact(record) {
                // The user deleted or changed the downloaded file: the URL is fetched anew.
                index.remove(key: key)
                record = ResourceRecord(url: url, key: key, present: ByteRanges(), lastRead: record.lastRead)
            }
            let file = try DataFile(path: record.stored ? storedPath(url) : dataPath(key))
            if !record.isComplete, !record.present.isEmpty, record.validator == nil {
                // Bytes of an earlier run with nothing to tell whether the file changed since:
                // the rest could belong to another version. Start over rather than splice.
                let dropped = record.present.count
                file.truncate()
                record.present = ByteRanges()
                try? index.save(record)
                totalLock.withLock { total -= dropped }
            }
            let made = Resource(record: record, file: file, index: index, settings: settings)
            made.onPersist = { [weak self] in self?.claimed($0) }
            made.onIdle = { [weak self] in self?.release(key) }
            made.onDiskFault = { [weak self] in self?.diskFailed($0) }
            resources[key] = made
            return use(made)
        }
    }

    /// Whether a downloaded file is still in the media store, whole.
    private func isStoredIntact(_ record: ResourceRecord) -> Bool {
        var info = stat()
        return stat(storedPath(record.url), &info) == 0 && Int64(info.st_size) == record.length
    }

    /// Lets an idle resource go (its file descriptor and handles with it); the index keeps what it knew.
    /// `always`: also one that remembers a failure.
    private func release(_ key: String, always: Bool = false) {
        lock.withLock {
            if let resource = resources[key], !resource.isBusy, always || !resource.remembers { resources[key] = nil }
        }
    }

    // MARK: Playing

    /// Whether the cache's disk can take a file now: writable, with 1 MiB free,
    /// and, once it refused a write, taking one again. When it cannot, remote
    /// files are better streamed uncached than not played. The log says when this changes.
    public var hasRoom: Bool {
        var info = statvfs()
        var room = access(directory.path, W_OK) == 0 && statvfs(directory.path, &info) == 0
            && info.f_flag & UInt(ST_RDONLY) == 0 && Int64(info.f_bavail) * Int64(info.f_frsize) >= 1 << 20
        // A disk the kernel turned read-only after an error says nothing of it to statvfs or access: only a write tells.
        if room, lock.withLock({ diskFault != nil }) {
            room = canWrite()
            if room { lock.withLock { diskFault = nil } }
        }
        noteRoom(room)
        return room
    }

    /// A resource's write failed: what plays goes on from memory, and what opens next streams uncached.
    private func diskFailed(_ reason: String) {
        lock.withLock { diskFault = reason }
        noteRoom(false, because: reason)
    }

    private func noteRoom(_ room: Bool, because reason: String? = nil) {
        let changed = lock.withLock { () -> Bool in
            defer { hadRoom = room }
            return hadRoom != room
        }
        guard changed else { return }
        if room { return writeStandardError("reeld: the cache can be written again") }
        writeStandardError(reason.map { "reeld: \($0) (\(directory.path)): what plays goes on from memory, and remote files "
                                        + "stream without caching them until it can be written again" }
            ?? "reeld: the cache's disk (\(directory.path)) is full or read-only: streaming remote files without caching them")
    }

    /// Whether a file can be made and written in the cache's folder now.
    private func canWrite() -> Bool {
        let path = directory.appendingPathComponent(".write-check").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        var byte: UInt8 = 0
        let wrote = write(fd, &byte, 1) == 1 && fsync(fd) == 0
        close(fd)
        unlink(path)
        return wrote
    }

    /// Whether `url` goes through the cache (`.media`) or to the player directly
    /// (`.direct`: a playlist, or a disk that cannot take its file).
    public func classify(_ url: String, _ done: @escaping @Sendable (ResourceKind) -> Void) {
        do {
            try withResource(url) { resource in
                resource.classify { [weak self] kind in
                    if kind == .live || kind == .direct { self?.forget(resource) }
                    done(kind)
                }
            }
        } catch {
            // Its file cannot be made (a disk the kernel turned read-only says so only now): streamed uncached.
            diskFailed("\(error)")
            done(.direct)
        }
    }

    /// A reader of `url`; `onTitle` hears a live stream's title and station (on any thread).
    public func openReader(_ url: String,
                           onTitle: @escaping @Sendable (_ title: String?, _ station: String?) -> Void = { _, _ in })
        throws -> CacheReader {
        try withResource(url) { resource in
            CacheReader(resource, number: resource.openReader(onTitle: onTitle))
        }
    }

    /// Why the last fetch of `url` failed, if it did.
    public func failure(of url: String) -> String? {
        lock.withLock { resources[cacheKey(for: url)] }?.lastFailure
    }

    /// Bytes present and the length (when known) of `url`.
    public func fill(of url: String) -> (present: Int64, length: Int64?) {
        let key = cacheKey(for: url)
        let record = lock.withLock { resources[key] }?.snapshot ?? index.record(key: key)
        return (record?.present.count ?? 0, record?.length)
    }

    // MARK: Downloads

    /// Fetches all of each URL and moves it into the media store; `progress`
    /// (bytes present, length) a few times a second, then `done` with the
    /// file's path or the failure. Remembered until done, so that it resumes
    /// after a restart. A URL already queued or downloading is not taken again.
    public func download(_ urls: [String], progress: @escaping @Sendable (String, Int64, Int64?) -> Void,
                         done: @escaping @Sendable (String, Result<String, CacheError>) -> Void) {
        let urls = lock.withLock { urls.filter { downloading.insert($0).inserted } }
        guard !urls.isEmpty else { return }
        do {
            try index.setDownloads(urls, pending: true)
        } catch {
            // A download that cannot be recorded could never be resumed: refused at once, with why.
            lock.withLock { urls.forEach { downloading.remove($0) } }
            // SQLite says only "disk I/O error"; a write the disk refused says why.
            let problem = CacheError.io(lock.withLock { diskFault }.map { "\($0) (\(directory.path))" }
                                        ?? "cannot write the cache's index (\(directory.path)): \(error)")
            urls.forEach { done($0, .failure(problem)) }
            return
        }
        // A few at a time: a feed of a thousand items must not open a thousand connections.
        let starts = urls.map { url in
            { [self] in
                Threads.start(name: "reel-download") { [self] in
                    let result = fetchWhole(url) { progress(url, $0, $1) }
                    lock.withLock {
                        runningDownloads -= 1
                        downloading.remove(url)
                    }
                    done(url, result)
                    startQueuedDownloads()
                }
            }
        }
        lock.withLock { queuedDownloads += starts }
        startQueuedDownloads()
    }

    private func startQueuedDownloads() {
        let starts = lock.withLock { () -> [() -> Void] in
            var starts: [() -> Void] = []
            while runningDownloads < Self.parallelDownloads, nextQueued < queuedDownloads.count {
                runningDownloads += 1
                starts.append(queuedDownloads[nextQueued])
                nextQueued += 1
            }
            if nextQueued == queuedDownloads.count {
                queuedDownloads = []
                nextQueued = 0
            }
            return starts
        }
        starts.forEach { $0() }
    }

    /// Fetches all of `url` and moves it into the media store. A server error
    /// or a network failure is tried again, backing off; a failure for good
    /// (4xx, a live stream) ends it at once. A failed download is kept with its
    /// reason, not resumed, and leaves no bytes behind.
    private func fetchWhole(_ url: String, progress: @Sendable (Int64, Int64?) -> Void) -> Result<String, CacheError> {
        var attempt = 1
        while true {
            let result = fetchOnce(url, progress: progress)
            guard case .failure(let failure) = result, let resource = failure.resource else {
                return result.mapError(\.error)
            }
            if resource.failedForGood || attempt >= Self.downloadAttempts {
                index.failDownload(url, failure.error.description)
                forgetFailed(resource)
                return .failure(failure.error)
            }
            // 0.5, 1, 2 s (with the default backoff), ended early by a cancel.
            let until = Date().addingTimeInterval(settings.delay(afterAttempts: attempt))
            while Date() < until, index.isPendingDownload(url) { Threads.sleep(seconds: min(0.1, settings.backoff)) }
            attempt += 1
        }
    }

    private struct DownloadFailure: Error {
        var error: CacheError
        /// The resource that failed, when the fetch itself failed (not a cancel or the store).
        var resource: Resource?
    }

    private func fetchOnce(_ url: String, progress: @Sendable (Int64, Int64?) -> Void) -> Result<String, DownloadFailure> {
        guard index.isPendingDownload(url) else { return .failure(DownloadFailure(error: .io("cancelled"))) }
        let resource: Resource
        do {
            resource = try withResource(url) { resource in
                resource.download(true)
                return resource
            }
        } catch {
            return .failure(DownloadFailure(error: error as? CacheError ?? .io("\(error)")))
        }
        // Its disk refused a write while it played: it cannot be whole on disk.
        if let refusal = resource.diskRefusal { return .failure(DownloadFailure(error: .io(refusal), resource: resource)) }
        while !resource.waitIdle(timeout: 0.25) {
            let record = resource.snapshot
            progress(record.present.count, record.length)
        }
        let record = resource.snapshot
        progress(record.present.count, record.length)
        guard resource.isDownloading || record.isComplete else { return .failure(DownloadFailure(error: .io("cancelled"))) }
        guard record.isComplete else {
            resource.download(false)
            return .failure(DownloadFailure(error: .http(resource.lastFailure ?? "the download stopped"), resource: resource))
        }
        defer {
            resource.download(false)
            release(resource.key)
        }
        do {
            let path = try moveToStore(resource)
            try? index.setDownloads([url], pending: false)
            return .success(path)
        } catch {
            return .failure(DownloadFailure(error: error as? CacheError ?? .io("\(error)")))
        }
    }

    /// What a failed download leaves: its bytes, unless something reads them, and the resource in memory.
    private func forgetFailed(_ resource: Resource) {
        if !resource.isBusy, resource.snapshot.present.isEmpty || resource.failedForGood {
            _ = drop(resource.snapshot)
        }
        release(resource.key, always: true)
    }

    public func cancelDownload(_ url: String) -> Bool {
        let pending = index.isPendingDownload(url)
        try? index.setDownloads([url], pending: false)
        // One still waiting for its place ends as cancelled when it gets it.
        lock.withLock { resources[cacheKey(for: url)] }?.download(false)
        return pending
    }

    /// Cancels every download, queued or running, and forgets those that failed; how many were pending.
    public func cancelAllDownloads() -> Int {
        let running = lock.withLock { resources.values.filter(\.isDownloading) }
        let pending = index.clearDownloads()
        running.forEach { $0.download(false) }
        return pending
    }

    public var pendingDownloads: [String] { index.pendingDownloads() }

    /// Downloads that failed for good, with why; they are tried again only when asked for again.
    public var failedDownloads: [(url: String, error: String)] { index.failedDownloads() }

    /// The media store's file for `url`: `KEY.EXT`, so that no part of the URL reaches a path.
    public func storedPath(_ url: String) -> String {
        mediaStore.appendingPathComponent(cacheKey(for: url) + "." + Self.fileExtension(url)).path
    }

    /// Makes a complete resource the media store's file: the cache's file is
    /// moved there (one copy on disk), or, on another file system, copied
    /// (temp, sync, rename) and then dropped. Either way the index keeps the
    /// URL as stored: no longer in the cache's size, never evicted.
    private func moveToStore(_ resource: Resource) throws -> String {
        let target = storedPath(resource.url)
        guard !resource.snapshot.stored else { return target }
        // What is claimed is synced; this also waits for a claim the fetcher is still making.
        resource.persist()
        // The user may have removed the folder while reeld ran.
        try Self.makeFolder(mediaStore)
        // Under the lock, eviction (which takes it too) cannot unlink the file meanwhile.
        let moved = try lock.withLock { () -> Bool in
            guard resources[resource.key] === resource else { return false }
            if rename(dataPath(resource.key), target) == 0 {
                markStored(resource)
                return true
            }
            guard errno == EXDEV else { throw CacheError.io(DiskError.describe(errno, writing: target)) }
            return false
        }
        if !moved {
            try copy(resource, to: target)
            lock.withLock {
                // Still ours: the cache's copy goes. Dropped meanwhile: the index only learns where it is.
                if resources[resource.key] === resource { unlink(dataPath(resource.key)) }
                markStored(resource)
            }
        }
        // The new name is durable too.
        let store = open(mediaStore.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if store >= 0 {
            _ = fsync(store)
            close(store)
        }
        return target
    }

    /// Under `lock`: the resource's bytes are the media store's from now on.
    private func markStored(_ resource: Resource) {
        let record = resource.markStored()
        try? index.save(record)
        totalLock.withLock { total -= record.present.count }
    }

    /// Copies a complete resource to `target` (temp, sync, rename).
    private func copy(_ resource: Resource, to target: String) throws {
        let record = resource.snapshot
        let temp = target + ".part"
        let out = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard out >= 0 else { throw CacheError.io(DiskError.describe(errno, writing: temp)) }
        defer { close(out) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        let length = record.length ?? 0
        while offset < length {
            let n = resource.file.read(into: buffer, count: Int(min(Int64(chunk), length - offset)), at: offset)
            guard n > 0 else {
                unlink(temp)
                throw CacheError.io("cannot read the cached copy of \(record.url) at \(offset)")
            }
            let written = write(out, buffer, n)
            guard written == n else {
                // A short write sets no errno: the disk is full. Take the reason before unlink can change it.
                let code = written < 0 ? errno : ENOSPC
                unlink(temp)
                throw CacheError.io(DiskError.describe(code, writing: temp))
            }
            offset += Int64(n)
        }
        guard fsync(out) == 0, rename(temp, target) == 0 else {
            let code = errno
            unlink(temp)
            throw CacheError.io(DiskError.describe(code, writing: target))
        }
    }

    /// The stored file's extension: the URL's, when it is one media files have
    /// (a URL ending in `;.sh` or `.desktop` gives no file a shell or a desktop would run).
    static func fileExtension(_ url: String) -> String {
        let ext = URL(string: url)?.pathExtension.lowercased() ?? ""
        return MediaExtension.all.contains(ext) ? ext : "media"
    }

    // MARK: reel cache

    /// Every resource, most recently read first.
    public func entries() -> [CacheEntry] {
        let live = lock.withLock { resources }
        return index.all().map { stored in
            let record = live[stored.key]?.snapshot ?? stored
            let path = storedPath(record.url)
            return CacheEntry(url: record.url, length: record.length, present: record.present.count, lastRead: record.lastRead,
                              downloaded: record.stored || FileManager.default.fileExists(atPath: path) ? path : nil)
        }
    }

    /// A complete copy of `url`: the downloaded file, else the complete cache file.
    public func completePath(_ url: String) -> String? {
        let stored = storedPath(url)
        if FileManager.default.fileExists(atPath: stored) { return stored }
        let key = cacheKey(for: url)
        let record = lock.withLock { resources[key] }?.snapshot ?? index.record(key: key)
        return record?.isComplete == true && record?.url == url ? dataPath(key) : nil
    }

    /// Bytes the cache holds (not the media store), as the index claims them.
    public var size: Int64 { totalLock.withLock { total } }

    /// Empties the cache, or drops one URL; resources in use are kept, and downloads. The number dropped.
    @discardableResult
    public func clear(_ url: String? = nil) -> Int {
        let records = index.all().filter { !$0.stored && (url == nil || $0.url == url) }
        return records.filter(drop).count
    }

    /// Drops what a live stream's first response left.
    private func forget(_ resource: Resource) {
        let claimed = index.record(key: resource.key)?.present.count ?? 0
        index.remove(key: resource.key)
        unlink(dataPath(resource.key))
        // Called under `lock` (classify answers at once for a known stream): the total has its own.
        totalLock.withLock { total -= claimed }
    }

    /// Deletes one resource unless it is in use.
    private func drop(_ record: ResourceRecord) -> Bool {
        lock.withLock {
            if let resource = resources[record.key] {
                guard !resource.isBusy else { return false }
                resources[record.key] = nil
            }
            let claimed = index.record(key: record.key)?.present.count ?? 0
            index.remove(key: record.key)
            unlink(dataPath(record.key))
            totalLock.withLock { total -= claimed }
            return true
        }
    }

    /// A resource's claim grew (or shrank) by `gained`: evicts when the cache is over its limit.
    private func claimed(_ gained: Int64) {
        guard totalLock.withLock({ total += gained; return total > limit }) else { return }
        evict()
    }

    /// Least recently read first, until the cache fits its limit. Reads the
    /// index only when over the limit, which a write rarely makes it.
    private func evict() {
        for record in index.all().reversed() where !record.stored && totalLock.withLock({ total > limit }) {
            _ = drop(record)
        }
    }

    /// Drops index rows without a file, trims claims beyond a file's end, and
    /// deletes files no row names (a crash between creating and claiming).
    /// A complete resource whose file is in the media store (moved there by a
    /// download the daemon did not live to record, or copied there by an
    /// earlier version) is stored, and the cache's copy goes.
    private func reconcile() {
        var known = Set<String>()
        for var record in index.all() {
            if record.stored {
                if !isStoredIntact(record) { index.remove(key: record.key) }
                continue
            }
            if record.isComplete, isStoredIntact(record) {
                unlink(dataPath(record.key))
                record.stored = true
                try? index.save(record)
                continue
            }
            var info = stat()
            guard stat(dataPath(record.key), &info) == 0 else { index.remove(key: record.key); continue }
            known.insert(record.key + ".data")
            let size = Int64(info.st_size)
            if let last = record.present.ranges.last, last.upperBound > size {
                record.present = ByteRanges(record.present.ranges.compactMap { range in
                    range.lowerBound < size ? range.lowerBound..<min(range.upperBound, size) : nil
                })
                try? index.save(record)
            }
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where file.hasSuffix(".data") && !known.contains(file) {
            unlink(directory.appendingPathComponent(file).path)
        }
        let stored = (try? FileManager.default.contentsOfDirectory(atPath: mediaStore.path)) ?? []
        for file in stored where file.hasSuffix(".part") { unlink(mediaStore.appendingPathComponent(file).path) }
        total = index.all().reduce(0) { $0 + ($1.stored ? 0 : $1.present.count) }
    }
}
