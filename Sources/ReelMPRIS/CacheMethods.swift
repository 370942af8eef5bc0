import ReelCore
import ReelDBus

extension MPRISService {
    static let errorNotCached = "dev.reel.Error.NotCached"
    static let errorNoCache = "dev.reel.Error.NoCache"

    /// Handles a call of reel's interface that concerns the cache, and hands any other to the
    /// library's dispatcher; nil means the reply comes later.
    func dispatchCache(_ message: Message, _ member: String, _ args: [DBusValue]) throws -> [DBusValue]? {
        func session() throws -> any CacheSession {
            guard let cache else {
                throw BusError(Self.errorNoCache, "there is no cache (reeld runs with cache-size 0, or it could not be opened)")
            }
            return cache
        }
        switch member {
        case "Download":
            let cache = try session()
            do {
                return [.strings(try cache.download(args[0].stringArray ?? []))]
            } catch {
                throw Self.busError(error)
            }
        case "CancelDownload":
            let cache = try session()
            return [.boolean(cache.cancelDownload(args[0].string!))]
        case "CancelAllDownloads":
            let cache = try session()
            return [.uint32(UInt32(clamping: cache.cancelAllDownloads()))]
        case "FailedDownloads":
            let cache = try session()
            return [.array(elementSignature: "(ss)", cache.failedDownloads.map { .structure([.string($0.url), .string($0.error)]) })]
        case "CacheList":
            let cache = try session()
            let rows = cache.cacheEntries().map { entry -> DBusValue in
                .structure([.string(entry.url), .int64(entry.length ?? -1), .int64(entry.present), .int64(entry.lastRead),
                            .string(entry.downloaded ?? "")])
            }
            return [.array(elementSignature: "(sxxxs)", rows)]
        case "CachePath":
            let cache = try session()
            let url = args[0].string!
            guard let path = cache.cachePath(url) else {
                throw BusError(Self.errorNotCached, "no complete copy of \(url) (reel cache ls shows what is cached)")
            }
            return [.string(path)]
        case "CacheClear":
            let cache = try session()
            let url = args[0].string!
            return [.uint32(UInt32(cache.clearCache(url.isEmpty ? nil : url)))]
        case "CacheSize":
            let cache = try session()
            let size = cache.cacheSize
            return [.int64(size.bytes), .int64(size.limit)]
        case "Sync":
            let cache = try session()
            let feed = args[0].string!
            guard URLParts.isAbsolute(feed) else {
                throw BusError.invalidArgs("Sync takes an absolute path or an http(s) URL, not \"\(feed.escapingControls())\"")
            }
            if !feed.hasPrefix("/") { _ = try host.validate(feed) }
            cache.sync(feed, download: args[1].bool!) { [weak self] result in
                switch result {
                case .success(let done):
                    self?.reply(to: message, [.uint32(UInt32(done.added)), .uint32(UInt32(done.known)), .strings(done.downloading)])
                case .failure(let error):
                    if let reply = message.makeError(Self.busError(error)) { self?.connection.enqueue(reply) }
                    self?.flush()
                }
            }
            return nil
        default:
            return try dispatchLibrary(message, MPRIS.reel, member, args)
        }
    }

    /// Signals a download's progress.
    public func downloadProgress(_ url: String, present: Int64, length: Int64?) {
        emit(MPRIS.reel, "DownloadProgress", [.string(url), .int64(present), .int64(length ?? -1)])
        flush()
    }

    /// Signals the end of a download: its path, or why it failed.
    public func downloadFinished(_ url: String, path: String?, error: String?) {
        emit(MPRIS.reel, "DownloadFinished", [.string(url), .string(path ?? ""), .string(error ?? "")])
        flush()
    }
}
