@testable import ReelCache
import FoundationEssentials
import ReelCore
import XCTest

/// A remote file's fetch decided without a socket, a thread or a clock: what it asks for, what a
/// response or an ended transfer does to it, where reads and arriving bytes go.
final class FetchStateTests: XCTestCase {
    let url = "http://origin.test/a.ogg"
    let now = Date(timeIntervalSince1970: 1_000_000)
    let mib: Int64 = 1 << 20

    func state(length: Int64? = nil, present: [Range<Int64>] = [], etag: String? = nil) -> FetchState {
        var record = ResourceRecord(url: url, key: "k", present: ByteRanges(present), lastRead: 0)
        record.length = length
        record.etag = etag
        return FetchState(record: record, settings: CacheSettings())
    }

    /// A fetch under way with `plan`, as the fetcher begins it.
    func fetching(_ fetch: inout FetchState) -> FetchState.Plan {
        _ = fetch.startFetcher()
        guard case .fetch(let plan) = fetch.next() else {
            XCTFail("nothing planned")
            return FetchState.Plan(from: 0)
        }
        return plan
    }

    func read(_ fetch: inout FetchState, at offset: Int64, _ count: Int = 4096) -> FetchState.ReadStep {
        var buffer = [UInt8](repeating: 0, count: count)
        return buffer.withUnsafeMutableBytes { fetch.read(into: $0.baseAddress!, count: count, at: offset) }
    }

    // MARK: Asking what the URL is

    func testAnUnknownURLIsProbedOnceAndItsFirstBytesHeldForTheReaderToCome() {
        var fetch = state()
        let first = fetch.classify(now: now)
        XCTAssertNil(first.known)
        XCTAssertTrue(first.start, "a fetcher starts for the probe")
        XCTAssertFalse(fetch.classify(now: now).start, "a second asker waits on the same fetcher")
        XCTAssertEqual(fetch.askingKind, 2)
        XCTAssertEqual(fetch.holdUntil, CacheSettings().readahead)
        XCTAssertEqual(fetch.holdExpiry, now.addingTimeInterval(10))
        XCTAssertEqual(fetching(&fetch), FetchState.Plan(from: 0, to: mib), "the first request is one bounded chunk")
    }

    func testWhatTheIndexKnowsAnswersAtOnce() {
        var fetch = state(length: 10 * mib, present: [0..<mib])
        let answer = fetch.classify(now: now)
        XCTAssertEqual(answer.known, .media)
        XCTAssertFalse(answer.start)
        XCTAssertEqual(fetch.askingKind, 0)
    }

    func testTheFirstResponseTellsThoseWhoAskedAndSetsTheLength() {
        var fetch = state()
        _ = fetch.classify(now: now)
        let plan = fetching(&fetch)
        let accepted = fetch.accept(status: 206, headers: ["content-range": "bytes 0-1048575/5000000", "etag": "\"v1\""],
                                    for: plan)
        XCTAssertEqual(accepted, .media(restarted: nil))
        XCTAssertEqual(fetch.kindNews, .media)
        XCTAssertEqual(fetch.askingKind, 0)
        XCTAssertEqual(fetch.record.length, 5_000_000)
        XCTAssertEqual(fetch.record.etag, "\"v1\"")
        XCTAssertEqual(fetch.transferAt, 0)
    }

    func testAPlaylistGoesToThePlayerAndCannotBeDownloaded() {
        var probe = state()
        _ = probe.classify(now: now)
        let plan = fetching(&probe)
        XCTAssertEqual(probe.accept(status: 200, headers: ["content-type": "audio/x-mpegurl"], for: plan), .refused)
        XCTAssertEqual(probe.kindNews, .direct)
        XCTAssertNil(probe.failure)

        var download = state()
        XCTAssertEqual(download.download(true).start, true)
        let downloadPlan = fetching(&download)
        XCTAssertEqual(download.accept(status: 200, headers: ["content-type": "audio/x-scpls; charset=utf-8"], for: downloadPlan),
                       .refused)
        XCTAssertEqual(download.failure?.reason, "\(url) is a playlist or a stream manifest, not a file to download")
        XCTAssertTrue(download.failedForGood)
    }

    func testALiveResponseHandsItsConnectionAndReadersOverAndEndsTheFetcher() {
        var fetch = state()
        _ = fetch.classify(now: now)
        fetch.openReader()
        let plan = fetching(&fetch)
        let accepted = fetch.accept(status: 200, headers: ["content-type": "audio/mpeg", "icy-metaint": "16000"], for: plan)
        XCTAssertEqual(accepted, .live(readers: 1, holdExpiry: now.addingTimeInterval(10)))
        XCTAssertEqual(fetch.kind, .live)
        XCTAssertEqual(fetch.kindNews, .live)
        XCTAssertEqual(fetch.readers, 0)
        XCTAssertFalse(fetch.fetcherRunning, "the stream owns the connection now")
        XCTAssertTrue(fetch.remembers, "a live stream is remembered: the index never holds it")
        XCTAssertNil(fetch.claim(), "nothing of a live stream is claimed")
    }

    func testALiveStreamCannotBeDownloaded() {
        var fetch = state()
        _ = fetch.download(true)
        let plan = fetching(&fetch)
        XCTAssertEqual(fetch.accept(status: 200, headers: ["icy-name": "Station"], for: plan), .refused)
        XCTAssertEqual(fetch.failure?.reason, "\(url) is a live stream: it has no end to download")
        XCTAssertTrue(fetch.failedForGood)
        XCTAssertEqual(fetch.next(), .done(idle: false), "the fetcher ends; the download is still asked for")
        // Known live, the next download fails at once, without a request.
        fetch.beginAttempt()
        XCTAssertEqual(fetch.kind, .live, "trying again forgets the failure, not that it is live")
        XCTAssertTrue(fetch.startFetcher())
        XCTAssertEqual(fetch.next(), .done(idle: false))
        XCTAssertEqual(fetch.failure?.reason, "\(url) is a live stream: it has no end to download")
    }

    func testAnotherRangeThanAskedForFails() {
        var fetch = state(length: 10 * mib, present: [0..<mib], etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        XCTAssertEqual(plan, FetchState.Plan(from: mib, to: 2 * mib, ifRange: "\"v1\""))
        XCTAssertEqual(fetch.accept(status: 206, headers: ["content-range": "bytes 0-99/\(10 * mib)"], for: plan), .refused)
        XCTAssertEqual(fetch.failure, FetchFailure("origin.test answered a range other than the one asked for"))
    }

    func testAFileThatChangedOnTheServerStartsOver() {
        var fetch = state(length: 10 * mib, present: [0..<mib], etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        let accepted = fetch.accept(status: 200, headers: ["etag": "\"v2\"", "content-length": "\(3 * mib)"], for: plan)
        guard case .media(let restarted?) = accepted else { return XCTFail("not restarted: \(accepted)") }
        XCTAssertTrue(restarted.present.isEmpty, "the index is told the old bytes are gone")
        XCTAssertTrue(fetch.record.present.isEmpty)
        XCTAssertEqual(fetch.record.length, 3 * mib)
        XCTAssertEqual(fetch.record.etag, "\"v2\"")
        XCTAssertFalse(fetch.ignoresRanges, "a new version starts from nothing: Range is tried again")
    }

    // MARK: Ended transfers

    func testAServerRefusalFailsForGoodAndAServerErrorDoesNot() {
        var refused = state()
        _ = refused.classify(now: now)
        let plan = fetching(&refused)
        XCTAssertEqual(refused.ended(.status(404), plan: plan, before: 0, now: now), .again)
        XCTAssertEqual(refused.failure, FetchFailure("HTTP 404 from origin.test", status: 404))
        XCTAssertTrue(refused.failedForGood)
        XCTAssertEqual(refused.kindNews, .failed("HTTP 404 from origin.test"))

        var broken = state()
        _ = broken.classify(now: now)
        let brokenPlan = fetching(&broken)
        _ = broken.ended(.status(503), plan: brokenPlan, before: 0, now: now)
        XCTAssertEqual(broken.failure?.status, 503)
        XCTAssertFalse(broken.failedForGood, "a 5xx may mend: a download tries again")
    }

    func testDropsBackOffDoublingUntilTheRetriesAreSpent() {
        var fetch = state(length: 10 * mib, present: [0..<mib], etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        let before = fetch.record.present.count
        var waits: [Double] = []
        for _ in 0..<3 {
            guard case .backOff(let until) = fetch.ended(.failed("reset"), plan: plan, before: before, now: now) else {
                return XCTFail("no back-off")
            }
            waits.append(until.timeIntervalSince(now))
        }
        XCTAssertEqual(waits, [0.5, 1, 2])
        XCTAssertEqual(fetch.ended(.failed("reset"), plan: plan, before: before, now: now), .again)
        XCTAssertEqual(fetch.failure?.reason, "the connection to origin.test dropped at 1.0 MB of 10 MB: reset")
    }

    func testProgressResetsTheAttempts() {
        var fetch = state(length: 10 * mib, etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        _ = fetch.ended(.failed("reset"), plan: plan, before: 0, now: now)
        _ = fetch.ended(.failed("reset"), plan: plan, before: 0, now: now)
        XCTAssertEqual(fetch.attempts, 2)
        _ = fetch.wrote(0..<1000, advancing: true, cached: true)
        _ = fetch.ended(.failed("reset"), plan: plan, before: 0, now: now)
        XCTAssertEqual(fetch.attempts, 1, "bytes came: the count starts again")
    }

    func testSilenceBeforeAnyByteFailsAtOnce() {
        var fetch = state()
        _ = fetch.classify(now: now)
        let plan = fetching(&fetch)
        XCTAssertEqual(fetch.ended(.timedOut(answered: false), plan: plan, before: 0, now: now), .again)
        XCTAssertEqual(fetch.failure?.reason, "timed out connecting to origin.test: no answer in 15 s")
    }

    func testABodyThatEndsTellsTheLength() {
        var fetch = state()
        fetch.openReader()
        let plan = fetching(&fetch)
        _ = fetch.accept(status: 200, headers: [:], for: plan)
        _ = fetch.wrote(0..<5000, advancing: true, cached: true)
        XCTAssertEqual(fetch.ended(.completed, plan: plan, before: 0, now: now), .again)
        XCTAssertEqual(fetch.record.length, 5000)
        XCTAssertTrue(fetch.record.isComplete)
        XCTAssertEqual(fetch.next(), .done(idle: false), "complete: nothing more is fetched")

        var past = state(present: [0..<mib], etag: "\"v1\"")
        past.openReader()
        _ = read(&past, at: mib)
        let pastPlan = fetching(&past)
        _ = past.ended(.status(416), plan: pastPlan, before: mib, now: now)
        XCTAssertEqual(past.record.length, mib, "a range past the end tells where it is")
        XCTAssertNil(past.failure)
    }

    // MARK: Steering the transfer

    func testASeekAwayIsServedBySideFetchesThatGrow() {
        var fetch = state(length: 100 * mib, present: [0..<mib], etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        _ = fetch.accept(status: 206, headers: ["content-range": "bytes \(mib)-\(2 * mib - 1)/\(100 * mib)"], for: plan)
        XCTAssertEqual(fetch.steer(plan, now: now), .go)
        let far = 50 * mib
        XCTAssertEqual(read(&fetch, at: far), .wait(start: false), "the fetcher runs already")
        XCTAssertEqual(fetch.steer(plan, now: now), .side(from: far, to: far + FetchState.sideBytes))
        _ = fetch.wrote(far..<far + FetchState.sideBytes, advancing: false, cached: true)
        // The reader reads on into the second half of what the side fetch brought: the next grows.
        XCTAssertEqual(read(&fetch, at: far + FetchState.sideBytes * 3 / 4), .file(4096))
        let end = far + FetchState.sideBytes
        XCTAssertEqual(fetch.steer(plan, now: now), .side(from: end, to: end + 2 * FetchState.sideBytes))
    }

    func testAServerThatIgnoresRangesIsWaitedFor() {
        var fetch = state(length: 100 * mib, etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        XCTAssertFalse(fetch.acceptSide(status: 200, contentRange: nil, from: 0))
        XCTAssertTrue(fetch.ignoresRanges)
        _ = fetch.accept(status: 200, headers: ["content-length": "\(100 * mib)"], for: plan)
        XCTAssertFalse(fetch.canSeek(to: 50 * mib), "a far seek would cost everything before it")
        XCTAssertTrue(fetch.canSeek(to: 100 * mib), "the end is known")
        _ = read(&fetch, at: 50 * mib)
        XCTAssertEqual(fetch.steer(plan, now: now), .go, "a far byte is waited for")
    }

    func testFarEnoughAheadAReadersTransferPausesAndAProbesStopsWhenNobodyCame() {
        var fetch = state(length: 100 * mib, etag: "\"v1\"")
        fetch.openReader()
        let plan = fetching(&fetch)
        _ = fetch.wrote(0..<CacheSettings().readahead, advancing: true, cached: true)
        XCTAssertEqual(fetch.steer(plan, now: now), .pause)

        var probe = state()
        _ = probe.classify(now: now)
        let probePlan = fetching(&probe)
        _ = probe.accept(status: 206, headers: ["content-range": "bytes 0-1048575/\(100 * mib)"], for: probePlan)
        _ = probe.wrote(0..<CacheSettings().readahead, advancing: true, cached: true)
        XCTAssertEqual(probe.steer(probePlan, now: now), .pause, "held for the reader about to come")
        XCTAssertEqual(probe.steer(probePlan, now: now.addingTimeInterval(11)), .stop, "nobody came")
    }

    func testAReaderEndsADownloadsBulkRequest() {
        var fetch = state(length: 100 * mib, etag: "\"v1\"")
        _ = fetch.download(true)
        let plan = fetching(&fetch)
        XCTAssertTrue(plan.bulk)
        XCTAssertTrue(plan.unread)
        XCTAssertEqual(plan.to, 100 * mib, "the whole gap in one request")
        XCTAssertEqual(fetch.arriving(1000, direct: true), .direct(at: 0), "nobody reads: around the page cache")
        fetch.openReader()
        XCTAssertEqual(fetch.arriving(1000, direct: true), .cached(at: 1000, closeDirect: true))
        XCTAssertEqual(fetch.steer(plan, now: now), .stop, "the rest goes in bounded chunks")
    }

    // MARK: Bytes

    func testMoreThanAnnouncedOrEndlessWithoutALengthFails() {
        var fetch = state(length: 1000)
        fetch.openReader()
        let plan = fetching(&fetch)
        _ = fetch.accept(status: 200, headers: ["content-length": "1000"], for: plan)
        XCTAssertEqual(fetch.arriving(1001, direct: false), .refused)
        XCTAssertEqual(fetch.failure?.reason, "origin.test sent more than the 1000 bytes it announced")

        var settings = CacheSettings()
        settings.largestUnknownLength = 4096
        var endless = FetchState(record: ResourceRecord(url: url, key: "k", present: ByteRanges(), lastRead: 0),
                                 settings: settings)
        endless.openReader()
        let endlessPlan = fetching(&endless)
        _ = endless.accept(status: 200, headers: [:], for: endlessPlan)
        XCTAssertEqual(endless.arriving(4097, direct: false), .refused)
        XCTAssertEqual(endless.failure?.reason, "origin.test sends without end and gives no length; more than 4.1 kB is not cached")
    }

    func testReadsFindBytesOrWait() {
        var fetch = state(length: 10_000, present: [0..<5000])
        XCTAssertEqual(read(&fetch, at: 4000, 4096), .file(1000), "a read stops where the bytes do")
        XCTAssertEqual(fetch.readPosition, 5000)
        XCTAssertEqual(read(&fetch, at: 10_000), .end)
        XCTAssertEqual(read(&fetch, at: 6000), .wait(start: true))
        XCTAssertEqual(fetch.wanted, 6000)
        fetch.waitingReaders = 1
        _ = fetch.wrote(6000..<7000, advancing: true, cached: true)
        XCTAssertTrue(fetch.wake, "a waiting reader is woken by its bytes")
        XCTAssertEqual(read(&fetch, at: 6000), .file(1000))
        XCTAssertNil(fetch.wanted)
        fetch.fail("gone")
        XCTAssertEqual(read(&fetch, at: 8000), .failed)
    }

    func testARefusingDiskFailsADownloadAndAPlayGoesOnFromMemory() {
        var download = state(length: 10 * mib)
        _ = download.download(true)
        XCTAssertFalse(download.refusedByDisk("Read-only file system"))
        XCTAssertEqual(download.failure?.reason, "Read-only file system")

        var play = state(length: 10 * mib, present: [0..<1000])
        play.openReader()
        XCTAssertTrue(play.refusedByDisk("No space left on device"))
        let bytes = [UInt8](repeating: 7, count: 500)
        XCTAssertTrue(bytes.withUnsafeBytes { play.held($0, at: 1000, advancing: true) })
        XCTAssertEqual(read(&play, at: 1000), .copied(500))
        XCTAssertEqual(read(&play, at: 0, 4096), .file(1000), "bytes on disk are read up to what memory holds")
        XCTAssertEqual(play.onDisk.present, ByteRanges([0..<1000]), "what is held in memory is not on disk")
        XCTAssertNil(play.claim(), "nothing is claimed once the disk refused")
        XCTAssertEqual(play.download(true).running, false, "no download can be whole on disk now")
    }

    func testTheIndexClaimsOnlyWhatIsNewAndGoesBackWhenTheSyncFails() {
        var fetch = state(length: 10_000)
        XCTAssertNil(fetch.claim())
        _ = fetch.wrote(0..<4000, advancing: false, cached: true)
        guard let first = fetch.claim() else { return XCTFail("nothing claimed") }
        XCTAssertEqual(first.gained, 4000)
        XCTAssertNil(fetch.claim(), "claimed already")
        _ = fetch.wrote(4000..<6000, advancing: false, cached: true)
        guard let second = fetch.claim() else { return XCTFail("nothing claimed") }
        XCTAssertEqual(second.gained, 2000)
        fetch.unclaim(back: second.before)
        XCTAssertEqual(fetch.record.present, ByteRanges([0..<4000]), "bytes a failed sync held are fetched again")
    }

    func testWritebackIsAskedForEveryFewMebibytes() {
        var fetch = state(length: 100 * mib)
        XCTAssertEqual(fetch.wrote(0..<3 * mib, advancing: false, cached: true).flush, 0)
        XCTAssertEqual(fetch.wrote(3 * mib..<5 * mib, advancing: false, cached: true).flush, 5 * mib)
        XCTAssertEqual(fetch.wrote(5 * mib..<10 * mib, advancing: false, cached: false).flush, 0,
                       "bytes written around the page cache need none")
    }
}
