import Foundation
@testable import ReelCache
import ReelCore
import ReelHarness
import XCTest

/// The cache against a real HTTP origin on 127.0.0.1.
final class CacheTests: FolderTestCase {
    var origin: Origin!
    var content = Data()
    let size = 3_000_000

    override func setUpWithError() throws {
        try super.setUpWithError()
        let served = dir.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        var state = UInt64.random(in: 1...UInt64.max)
        var bytes = [UInt8](repeating: 0, count: size)
        for i in 0..<size {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        content = Data(bytes)
        try content.write(to: served.appendingPathComponent("file.bin"))
        origin = try Origin(serving: served, home: dir)
    }

    override func tearDown() {
        origin?.stop()
        super.tearDown()
    }

    func makeCache(timeout: Int = 2, limit: Int64 = 1 << 30, readahead: Int64 = 4 << 20) throws -> Cache {
        var settings = CacheSettings()
        settings.timeout = timeout
        settings.backoff = 0.1
        settings.readahead = readahead
        return try Cache(directory: dir.appendingPathComponent("cache"), mediaStore: dir.appendingPathComponent("media"),
                         limit: limit, settings: settings)
    }

    var url: String { origin.url("file.bin") }

    /// The next `times` responses stop sending after `bytes` and hold the connection.
    func stall(after bytes: Int, times: Int = 1) throws {
        var control = Origin.Control()
        control.stallAfter = bytes
        control.faultTimes = times
        try origin.set(control)
    }

    /// Reads on until the end (0) or a failure (-1); the bytes and how it ended.
    static func readAll(_ reader: CacheReader, upTo limit: Int = .max) -> (Data, end: Int) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while data.count < limit {
            let n = buffer.withUnsafeMutableBytes { reader.read(into: $0.baseAddress!, count: min($0.count, limit - data.count)) }
            if n <= 0 { return (data, n) }
            data.append(contentsOf: buffer[0..<n])
        }
        return (data, 1)
    }
    var served: Int { origin.served["/file.bin"] ?? 0 }

    /// Reads `count` bytes at `offset` (all of it by default) through a new reader.
    func read(_ cache: Cache, from offset: Int = 0, count: Int? = nil) throws -> (Data, end: Int) {
        let reader = try cache.openReader(url)
        defer { reader.close() }
        _ = reader.seek(to: Int64(offset))
        return Self.readAll(reader, upTo: count ?? .max)
    }

    func testAWholeReadEqualsTheOriginAndAReplayNeedsNoNetwork() throws {
        let cache = try makeCache()
        let (data, end) = try read(cache)
        XCTAssertEqual(end, 0, "ends with 0 at the true end")
        XCTAssertEqual(data, content)
        XCTAssertEqual(served, size)
        origin.stop()
        // A new cache on the same directory: the index says what is there.
        let again = try makeCache()
        XCTAssertEqual(try read(again).0, content)
        XCTAssertEqual(again.entries().first?.present, Int64(size))
        XCTAssertNotNil(again.completePath(url))
    }

    func testAReadSpanningPresentAndMissingBytesFetchesOnlyTheGaps() throws {
        let cache = try makeCache(readahead: 64 << 10)
        XCTAssertEqual(try read(cache, from: 1_000_000, count: 100_000).0, content[1_000_000..<1_100_000])
        XCTAssertEqual(try read(cache, from: 2_500_000, count: 100_000).0, content[2_500_000..<2_600_000])
        XCTAssertEqual(try read(cache).0, content)
        // Only what was in flight when each of the two first readers let go
        // is fetched twice: at most the socket buffers (256 KiB, doubled by the kernel).
        XCTAssertLessThan(served - size, 2 * 600_000, "served \(served) of \(size)")
        XCTAssertTrue(origin.requests.contains { $0.contains("bytes=1000000-") }, "\(origin.requests)")
    }

    func testARedirectIsFollowedAndTheCacheKeyedByTheURLAskedFor() throws {
        let cache = try makeCache()
        let asked = origin.url("redirect/file.bin")
        let reader = try cache.openReader(asked)
        XCTAssertEqual(Self.readAll(reader).0, content)
        reader.close()
        XCTAssertEqual(cache.entries().map(\.url), [asked])
        XCTAssertNotNil(cache.completePath(asked))
    }

    func testAServerIgnoringRangeIsReadFromTheStartAndSkipped() throws {
        var control = Origin.Control()
        control.ignoreRange = true
        try origin.set(control)
        let cache = try makeCache()
        XCTAssertEqual(try read(cache, from: 2_000_000, count: 10_000).0, content[2_000_000..<2_010_000])
        XCTAssertEqual(try read(cache).0, content)
    }

    func testAnUnknownLengthIsLearnedAtACleanEnd() throws {
        var control = Origin.Control()
        control.chunked = true
        try origin.set(control)
        let cache = try makeCache()
        let (data, end) = try read(cache)
        XCTAssertEqual(end, 0)
        XCTAssertEqual(data, content)
        XCTAssertEqual(cache.entries().first?.length, Int64(size))
    }

    func testAnEndlessBodyWithoutALengthIsCutAtHalfTheCacheSize() throws {
        var control = Origin.Control()
        control.chunked = true
        try origin.set(control)
        let cache = try makeCache(limit: 4_000_000)
        let (data, end) = try read(cache)
        XCTAssertEqual(end, -1)
        XCTAssertLessThanOrEqual(data.count, 2_000_000)
        XCTAssertTrue(cache.failure(of: url)?.contains("gives no length") == true, cache.failure(of: url) ?? "")
    }

    func testAChangedResourceDropsTheStaleBytes() throws {
        let cache = try makeCache(readahead: 64 << 10)
        _ = try read(cache, count: 100_000)
        // The file changes on the server, with a new validator.
        var changed = content
        changed.replaceSubrange(0..<10, with: Data(repeating: 7, count: 10))
        changed.append(Data(repeating: 1, count: 1000))
        try changed.write(to: origin.directory.appendingPathComponent("file.bin"))
        var control = Origin.Control()
        control.etag = "\"v2\""
        try origin.set(control)
        XCTAssertEqual(try read(cache, from: 2_000_000, count: 1000).0, changed[2_000_000..<2_001_000])
        XCTAssertEqual(try read(cache).0, changed)
    }

    func testBytesWithoutAValidatorAreNotSplicedWithANewerVersionAfterARestart() throws {
        var control = Origin.Control()
        control.etag = ""
        try origin.set(control)
        _ = try read(makeCache(readahead: 64 << 10), count: 100_000)
        // The file changes on the server, same length, and nothing says so.
        var changed = content
        changed.replaceSubrange(0..<200_000, with: Data(repeating: 9, count: 200_000))
        try changed.write(to: origin.directory.appendingPathComponent("file.bin"))
        XCTAssertEqual(try read(makeCache()).0, changed, "bytes of the old version were kept")
    }

    func testStoredFilesGetOnlyMediaExtensions() {
        XCTAssertEqual(Cache.fileExtension("http://x/a.MP3"), "mp3")
        XCTAssertEqual(Cache.fileExtension("http://x/a.mp3?x=1"), "mp3")
        XCTAssertEqual(Cache.fileExtension("http://x/a.wmv"), "wmv", "one table of media extensions, the importer's too")
        for hostile in ["http://x/run;.sh", "http://x/a.desktop", "http://x/a.exe", "http://x/a", "http://x/.bashrc"] {
            XCTAssertEqual(Cache.fileExtension(hostile), "media", hostile)
        }
    }

    func testAHeaderLineOver100kBIsReportedAsSuch() throws {
        var control = Origin.Control()
        control.hugeHeader = true
        try origin.set(control)
        let cache = try makeCache()
        XCTAssertEqual(try read(cache).end, -1)
        XCTAssertEqual(cache.failure(of: url), "cannot reach 127.0.0.1: the server sent a header line over 100 kB")
    }

    func testErrorStatusesFailTheReadWithTheStatus() throws {
        for status in [404, 403, 500] {
            var control = Origin.Control()
            control.status = status
            try origin.set(control)
            let cache = try makeCache()
            let (data, end) = try read(cache)
            XCTAssertEqual(end, -1)
            XCTAssertTrue(data.isEmpty)
            XCTAssertEqual(cache.failure(of: url), "HTTP \(status) from 127.0.0.1")
        }
    }

    func testADroppedConnectionResumesFromTheLastStoredByte() throws {
        var control = Origin.Control()
        control.dropAfter = 1_000_000
        control.faultTimes = 2
        try origin.set(control)
        let cache = try makeCache()
        XCTAssertEqual(try read(cache).0, content)
        XCTAssertLessThanOrEqual(Double(served) / Double(size), 1.01)
        XCTAssertTrue(origin.requests.contains { $0.contains("bytes=1000000-") }, "\(origin.requests)")
    }

    func testAStalledServerTimesOutAndResumes() throws {
        try stall(after: 500_000)
        let cache = try makeCache(timeout: 1)
        XCTAssertEqual(try read(cache).0, content)
    }

    func testAServerThatKeepsStallingFailsTheReadWithAReason() throws {
        try stall(after: 500_000)
        let cache = try makeCache(timeout: 1)
        let reader = try cache.openReader(url)
        defer { reader.close() }
        XCTAssertEqual(Self.readAll(reader, upTo: 500_000).0.count, 500_000)
        // From now on every attempt answers and then sends nothing.
        try stall(after: 0, times: 100)
        let (data, end) = try read(cache)
        XCTAssertEqual(end, -1)
        XCTAssertEqual(data, content[0..<500_000])
        XCTAssertTrue(cache.failure(of: url)?.contains("stopped sending") == true, cache.failure(of: url) ?? "")
    }

    func testTwoConcurrentReadersShareOneFetch() throws {
        let cache = try makeCache()
        let results = LockedBox<[Data]>([])
        let url = url
        let threads = (0..<2).map { _ in
            Thread {
                let reader = try? cache.openReader(url)
                let data = reader.map { CacheTests.readAll($0).0 } ?? Data()
                reader?.close()
                results.update { $0.append(data) }
            }
        }
        threads.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(20)
        while results.value.count < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(results.value, [content, content])
        XCTAssertLessThanOrEqual(Double(served) / Double(size), 1.01)
    }

    func testCancelUnblocksAPendingReadAtOnce() throws {
        try stall(after: 0)
        let cache = try makeCache(timeout: 30)
        let reader = try cache.openReader(url)
        let finished = LockedBox<Date?>(nil)
        Thread {
            var byte: UInt8 = 0
            _ = reader.read(into: &byte, count: 1)
            finished.update { $0 = Date() }
        }.start()
        Thread.sleep(forTimeInterval: 0.3)
        let cancelled = Date()
        reader.cancel()
        let deadline = Date().addingTimeInterval(5)
        while finished.value == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        let took = try XCTUnwrap(finished.value).timeIntervalSince(cancelled)
        XCTAssertLessThan(took, 0.1)
        reader.close()
    }

    func testADownloadIsTheCachedFileMovedAndTheCacheEvictsOnlyWhatItHolds() throws {
        let cache = try makeCache(limit: 4_000_000)
        let done = LockedBox<Result<String, CacheError>?>(nil)
        let finished = LockedBox(0)
        for _ in 0..<2 {
            cache.download([url], progress: { _, _, _ in }, done: { _, result in
                done.update { $0 = result }
                finished.update { $0 += 1 }
            })
        }
        let path = try waitForDownload(done)
        XCTAssertEqual(finished.value, 1, "a URL asked for twice is downloaded once")
        XCTAssertEqual(served, size)
        XCTAssertEqual(FileManager.default.contents(atPath: path), content)
        XCTAssertTrue(path.hasPrefix(dir.appendingPathComponent("media").path) && path.hasSuffix(".media"), path)
        XCTAssertEqual(cache.pendingDownloads, [])
        XCTAssertEqual(cache.completePath(url), path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        // One copy: the cache's file became the stored one, and the cache counts it no more.
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataPath(url)))
        XCTAssertEqual(bytesOnDisk(), Int64(size), accuracy: 64 << 10)
        XCTAssertEqual(cache.size, 0)
        XCTAssertEqual(cache.entries().map(\.downloaded), [path])

        // A second resource fills the cache, and a third pushes it over its limit:
        // the older cached one goes; the download is no part of the cache and stays.
        for name in ["other.bin", "third.bin"] {
            try content.write(to: origin.directory.appendingPathComponent(name))
            let reader = try cache.openReader(origin.url(name))
            _ = Self.readAll(reader)
            reader.close()
        }
        XCTAssertEqual(Set(cache.entries().map(\.url)), [url, origin.url("third.bin")])
        XCTAssertEqual(cache.size, Int64(size))
        XCTAssertEqual(FileManager.default.contents(atPath: path), content)
        // Clearing the cache leaves downloads alone (the last reader's fetcher may still be winding down).
        let deadline = Date().addingTimeInterval(10)
        while cache.clear() == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(cache.entries().map(\.url), [url])
        XCTAssertEqual(FileManager.default.contents(atPath: path), content)
    }

    /// A download asked for the moment a read ends races the read's fetcher
    /// letting the resource go: the move into the store must still find it
    /// (it once took it for gone, copied it, and left both copies).
    func testADownloadAfterTheMediaStoreWasRemovedMakesItAgain() throws {
        let cache = try makeCache()
        try FileManager.default.removeItem(at: cache.mediaStore)
        let done = LockedBox<Result<String, CacheError>?>(nil)
        cache.download([url], progress: { _, _, _ in }, done: { _, result in done.update { $0 = result } })
        XCTAssertEqual(FileManager.default.contents(atPath: try waitForDownload(done)), content)
    }

    func testADownloadRightAfterAReadLeavesOneCopyEveryTime() throws {
        let cache = try makeCache()
        let small = content.prefix(200_000)
        for n in 0..<20 {
            let name = "quick\(n).bin"
            try small.write(to: origin.directory.appendingPathComponent(name))
            let reader = try cache.openReader(origin.url(name))
            XCTAssertEqual(Self.readAll(reader).0, small)
            reader.close()
            let done = LockedBox<Result<String, CacheError>?>(nil)
            cache.download([origin.url(name)], progress: { _, _, _ in }, done: { _, result in done.update { $0 = result } })
            _ = try waitForDownload(done)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dataPath(origin.url(name))), "run \(n): a second copy was left")
        }
        XCTAssertEqual(cache.size, 0)
    }

    func testAFilePlayedThenDownloadedIsFetchedOnceStoredOnceAndReadOfflineAfterARestart() throws {
        let cache = try makeCache()
        XCTAssertEqual(try read(cache).0, content)
        XCTAssertEqual(served, size)
        let done = LockedBox<Result<String, CacheError>?>(nil)
        cache.download([url], progress: { _, _, _ in }, done: { _, result in done.update { $0 = result } })
        let path = try waitForDownload(done)
        XCTAssertEqual(served, size, "nothing fetched a second time")
        XCTAssertEqual(bytesOnDisk(), Int64(size), accuracy: 64 << 10)

        // Offline, after a restart: the URL reads from the stored file.
        origin.stop()
        let again = try makeCache()
        XCTAssertEqual(again.size, 0)
        XCTAssertEqual(again.completePath(url), path)
        XCTAssertEqual(try read(again).0, content)
        XCTAssertEqual(try read(again, from: 2_000_000, count: 1000).0, content[2_000_000..<2_001_000])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataPath(url)), "reading a stored file makes no cache file")

        // The user deletes the download: the entry goes, and nothing reads zeros in its place.
        try FileManager.default.removeItem(atPath: path)
        let third = try makeCache()
        XCTAssertEqual(third.entries().map(\.url), [])
        XCTAssertEqual(try read(third).end, -1, "the origin is gone: the read fails rather than invent bytes")
    }

    func testAMoveTheDaemonDidNotLiveToRecordAndAnEarlierCopyAreFoundAtStartUp() throws {
        let cache = try makeCache()
        XCTAssertEqual(try read(cache).0, content)
        let stored = cache.storedPath(url)
        // An earlier version copied downloads: both copies exist.
        try FileManager.default.createDirectory(atPath: dir.appendingPathComponent("media").path, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: stored, contents: content))
        let again = try makeCache()
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataPath(url)), "the cache's copy of a stored file goes")
        XCTAssertEqual(again.size, 0)
        XCTAssertEqual(again.entries().map(\.downloaded), [stored])
        XCTAssertEqual(try read(again).0, content)
        XCTAssertEqual(served, size)
    }

    func testADownloadToAnotherFileSystemIsCopiedAndTheCachesCopyDropped() throws {
        let disk = try ScratchDisk(size: 16 << 20)
        guard disk.isMounted else { throw XCTSkip("another file system needs a tmpfs of its own, which takes root") }
        var settings = CacheSettings()
        settings.timeout = 2
        let cache = try Cache(directory: dir.appendingPathComponent("cache"), mediaStore: disk.dir.appendingPathComponent("media"),
                              settings: settings)
        let done = LockedBox<Result<String, CacheError>?>(nil)
        cache.download([url], progress: { _, _, _ in }, done: { _, result in done.update { $0 = result } })
        let path = try waitForDownload(done)
        XCTAssertTrue(path.hasPrefix(disk.dir.path), path)
        XCTAssertEqual(FileManager.default.contents(atPath: path), content)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dataPath(url)))
        XCTAssertEqual(cache.size, 0)
        XCTAssertEqual(try read(cache).0, content)
        XCTAssertEqual(served, size)
    }

    func testAReadGoesOnFromMemoryWhenTheDiskFailsAndADownloadSaysWhy() throws {
        let disk = try FailingDisk()
        guard disk.isMounted else { throw XCTSkip("a failing disk needs root and a loop device") }
        var settings = CacheSettings()
        settings.timeout = 2
        settings.readahead = 64 << 10
        let cache = try Cache(directory: disk.dir.appendingPathComponent("cache"), mediaStore: dir.appendingPathComponent("media"),
                              settings: settings)
        XCTAssertTrue(cache.hasRoom)
        let reader = try cache.openReader(url)
        defer { reader.close() }
        var (data, end) = Self.readAll(reader, upTo: 500_000)
        try disk.fail()
        let rest = Self.readAll(reader)
        data += rest.0
        end = rest.end
        XCTAssertEqual(end, 0, "the read failed: \(reader.failure ?? "")")
        XCTAssertEqual(data, content, "what was read from disk and from memory")
        // Back to the start: on disk from before the failure.
        XCTAssertEqual(reader.seek(to: 0), 0)
        XCTAssertEqual(Self.readAll(reader, upTo: 100_000).0, content.prefix(100_000))
        XCTAssertFalse(cache.hasRoom, "a disk that refuses writes has no room")
        XCTAssertLessThan(cache.fill(of: url).present, Int64(size), "bytes held only in memory are claimed on disk")

        let done = LockedBox<Result<String, CacheError>?>(nil)
        cache.download([url], progress: { _, _, _ in }, done: { _, result in done.update { $0 = result } })
        let deadline = Date().addingTimeInterval(20)
        while done.value == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard case .failure(let error)? = done.value else { return XCTFail("a download to a failed disk: \(String(describing: done.value))") }
        // What the disk said: read-only when a write was refused, an I/O error when a sync was.
        XCTAssertTrue(error.description.contains("cannot write the cache"), error.description)
    }

    /// Starts a download from the origin sending 1 MB/s (with `control`); returns once `present` bytes are in the cache.
    func startSlowDownload(_ control: Origin.Control = Origin.Control(), until present: Int64)
        throws -> (Cache, LockedBox<Result<String, CacheError>?>) {
        var control = control
        control.bytesPerSecond = 1_000_000
        try origin.set(control)
        let cache = try makeCache()
        let done = LockedBox<Result<String, CacheError>?>(nil)
        cache.download([url], progress: { _, _, _ in }, done: { _, result in done.update { $0 = result } })
        let deadline = Date().addingTimeInterval(10)
        while cache.fill(of: url).present < present, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertGreaterThanOrEqual(cache.fill(of: url).present, present)
        return (cache, done)
    }

    func testAReaderThatComesDuringADownloadIsServedWhereItReads() throws {
        // The first request tells the length; the rest comes in one request from there.
        let (cache, done) = try startSlowDownload(until: 1_100_000)
        XCTAssertEqual(origin.requests.filter { $0.hasPrefix("/file.bin") }.count, 2, "\(origin.requests)")
        // A reader near the end is not left waiting for that request to get there: it has a fetch of its own.
        XCTAssertEqual(try read(cache, from: 2_900_000, count: 50_000).0, content[2_900_000..<2_950_000])
        XCTAssertTrue(origin.requests.contains { $0.contains("bytes=2900000-") }, "\(origin.requests)")
        try origin.set(Origin.Control())
        XCTAssertEqual(FileManager.default.contents(atPath: try waitForDownload(done)), content)
    }

    func testAReaderThatComesDuringADownloadFromAServerIgnoringRangeReadsTheBytesAsTheyCome() throws {
        var control = Origin.Control()
        control.ignoreRange = true
        // Written around the page cache while nobody reads, in blocks at least every 100 ms.
        let (cache, done) = try startSlowDownload(control, until: 600_000)
        // The one request goes on (no other reaches those bytes), and the reader's bytes come from it:
        // some written around the page cache, some held when it came, the rest through the page cache.
        XCTAssertEqual(try read(cache, from: 550_000, count: 400_000).0, content[550_000..<950_000])
        try origin.set(Origin.Control())
        XCTAssertEqual(FileManager.default.contents(atPath: try waitForDownload(done)), content)
        XCTAssertEqual(origin.requests.filter { $0.hasPrefix("/file.bin") }.count, 1, "\(origin.requests)")
    }

    func waitForDownload(_ done: LockedBox<Result<String, CacheError>?>) throws -> String {
        let deadline = Date().addingTimeInterval(20)
        while done.value == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return try XCTUnwrap(try done.value?.get())
    }

    func dataPath(_ url: String) -> String { dir.appendingPathComponent("cache/\(cacheKey(for: url)).data").path }

    /// Bytes the cache and the media store take on disk together (what `du` says).
    func bytesOnDisk() -> Int64 {
        var total: Int64 = 0
        for sub in ["cache", "media"] {
            let folder = dir.appendingPathComponent(sub)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !name.hasPrefix("index") {
                var info = stat()
                if stat(folder.appendingPathComponent(name).path, &info) == 0 { total += Int64(info.st_blocks) * 512 }
            }
        }
        return total
    }

    func testClassifyingAlwaysAnswers() throws {
        try Data().write(to: origin.directory.appendingPathComponent("empty.bin"))
        try content.prefix(20_000).write(to: origin.directory.appendingPathComponent("radio.mp3"))
        let cache = try makeCache()
        func kind(_ url: String) -> ResourceKind? {
            let answer = LockedBox<ResourceKind?>(nil)
            cache.classify(url) { kind in answer.update { $0 = kind } }
            let deadline = Date().addingTimeInterval(10)
            while answer.value == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            return answer.value
        }
        XCTAssertEqual(kind(url), .media)
        XCTAssertEqual(kind(origin.url("live/radio.mp3")), .live)
        XCTAssertEqual(kind(origin.url("missing.bin")), .failed("HTTP 404 from 127.0.0.1"))
        XCTAssertEqual(kind(origin.url("empty.bin")), .failed("\(origin.url("empty.bin")) is empty"))
        XCTAssertFalse(cache.entries().contains { $0.url.contains("live/") }, "a live stream was cached")
    }

    func testADamagedIndexIsReportedAndKeptByteForByte() throws {
        let index = dir.appendingPathComponent("cache/index.sqlite3")
        try FileManager.default.createDirectory(at: index.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: index)
        XCTAssertThrowsError(try makeCache()) { error in
            XCTAssertTrue("\(error)".contains("damaged"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: index), garbage)
    }

    func testTheIndexIsReconciledWithTheFilesAtStartUp() throws {
        let cache = try makeCache()
        _ = try read(cache)
        let key = cacheKey(for: url)
        let data = dir.appendingPathComponent("cache/\(key).data")
        // A crash that lost the end of the file, and a stray file no row names.
        truncate(data.path, 1_000_000)
        try Data([1, 2, 3]).write(to: dir.appendingPathComponent("cache/0123.data"))
        let again = try makeCache()
        XCTAssertEqual(again.entries().first?.present, 1_000_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("cache/0123.data").path))
        XCTAssertEqual(try read(again).0, content)
    }
}

/// A value shared between a test and its threads.
final class LockedBox<T>: @unchecked Sendable {
    // @unchecked: the value is only touched under `lock`.
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func update(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
}
