import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

/// Downloads and feeds against servers that fail, flood or send too much:
/// failures end and leave nothing behind, feeds are read in bounded memory.
final class HostileOriginTests: OriginTestCase {
    var pid: Int32 { daemon!.process.processIdentifier }
    var cacheDir: URL { home.appendingPathComponent("cache/reel/http") }

    /// CPU seconds reeld has used.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return (Double(fields[11]) ?? 0) / 100 + (Double(fields[12]) ?? 0) / 100
    }

    func testFailingEnclosuresEndAtOnceLeaveNothingAndAreNotResumed() throws {
        let count = ProcessInfo.processInfo.environment["REEL_STRESS"] != nil ? 20_000 : 300
        let items = (1...count).map { #"{"url": "missing.wav?n=\#($0)", "title": "Gone \#($0)"}"# }
        try "[\(items.joined(separator: ","))]".write(to: served.appendingPathComponent("gone.json"), atomically: true, encoding: .utf8)
        try startDaemon()
        let before = cpuSeconds()
        let (status, output) = try reel(timeout: 600, "sync", origin.url("gone.json"))
        let cpu = cpuSeconds() - before
        print("reeld: \(count) failing enclosures took \(cpu) s of CPU")
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("added \(count)"), String(output.prefix(500)))
        XCTAssertEqual(output.components(separatedBy: "HTTP 404 from 127.0.0.1").count - 1, count,
                       output.split(separator: "\n").filter { !$0.contains("HTTP 404") }.joined(separator: "\n"))
        // 4xx is final: one request each.
        XCTAssertEqual(origin.requests.filter { $0.hasPrefix("/missing.wav") }.count, count)
        if count >= 20_000 { XCTAssertLessThan(cpu, 30, "CPU for \(count) failing downloads") }

        let left = try FileManager.default.contentsOfDirectory(atPath: cacheDir.path).filter { $0.hasSuffix(".data") }
        XCTAssertEqual(left, [], "files left for failed URLs")
        let listed = try reel("cache", "ls").1
        XCTAssertEqual(listed.components(separatedBy: "download failed: HTTP 404 from 127.0.0.1").count - 1, count,
                       String(listed.prefix(300)))

        daemon?.stop()
        try startDaemon()
        listen(for: 1)
        XCTAssertFalse(daemon!.text.contains("resuming"), daemon!.text)
        XCTAssertEqual(origin.requests.filter { $0.hasPrefix("/missing.wav") }.count, count, "a failed download was resumed")

        // Tried again only on request: once the file is there, it downloads.
        try serve("missing.wav", seconds: 1)
        let (again, said) = try reel("download", origin.url("missing.wav?n=1"))
        XCTAssertEqual(again, 0, said)
        let (cancelled, all) = try reel("download", "--cancel", "--all")
        XCTAssertEqual(cancelled, 0, all)
        XCTAssertEqual(all.trimmingCharacters(in: .newlines), "cancelled 0 downloads")
        XCTAssertFalse(try reel("cache", "ls").1.contains("download failed"), "failed downloads are forgotten by --cancel --all")
    }

    func testAServerErrorIsTriedAgainBackingOffThenReported() throws {
        try serve("busy.wav", seconds: 1)
        var control = Origin.Control()
        control.status = 503
        try origin.set(control)
        try startDaemon()
        let started = Date()
        let (status, output) = try reel("download", origin.url("busy.wav"))
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("cannot download \(origin.url("busy.wav")): HTTP 503 from 127.0.0.1"), output)
        XCTAssertEqual(origin.requests.filter { $0.hasPrefix("/busy.wav") }.count, 4, origin.requests.joined(separator: "\n"))
        // 0.5 + 1 + 2 s between the four attempts.
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 3.4)
        let json = try reel("cache", "ls", "--json").1
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]], json)
        XCTAssertEqual(rows.first?["error"] as? String, "HTTP 503 from 127.0.0.1")
    }

    func testAThirtyMegabyteCatalogueSyncsInBoundedMemoryAndOneSyncPerFeedRuns() throws {
        try FeedFixtures.catalogue(items: 100_000, base: "http://127.0.0.1:1/").write(to: served.appendingPathComponent("big.json"))
        try startDaemon()
        listen(for: 0.5)
        let idle = daemonMemory("VmRSS")
        // Four at once: one syncs, the others are told it is running.
        let feed = origin.url("big.json")
        let results = try (0..<4).map { _ in try reelAsync("sync", "--no-download", feed) }.map { try $0.wait() }
        let synced = results.filter { $0.0 == 0 }
        XCTAssertEqual(synced.count, 1, results.map(\.1).joined(separator: "\n"))
        XCTAssertTrue(synced.first?.1.contains("added 100000") == true, results.map(\.1).joined(separator: "\n"))
        XCTAssertEqual(results.filter { $0.1.contains("is being synced already") }.count, 3)
        let peak = daemonMemory("VmHWM")
        print("reeld: RSS idle \(idle / 1024) MiB, peak while syncing a 30 MB catalogue \(peak / 1024) MiB")
        XCTAssertLessThan(peak - idle, 100 * 1024, "peak RSS over idle while syncing")
    }
}

/// The media store on a disk that is full: the reason is the disk, in words.
final class FullMediaStoreTests: OriginTestCase {
    var disk: ScratchDisk!

    override func tearDown() {
        // The daemon first: a disk it still holds files on does not unmount.
        super.tearDown()
        disk = nil
    }

    func testADownloadToAFullDiskSaysTheDiskIsFullAndLeavesNoPart() throws {
        disk = try ScratchDisk(size: 2 << 20)
        guard disk.isMounted else { throw XCTSkip("a full disk needs a tmpfs of its own, which takes root") }
        try serve("big.wav", seconds: 16)   // 3 MB
        try startDaemon([], [], environment: ["XDG_DATA_HOME": disk.dir.path])
        let (status, output) = try reel("download", origin.url("big.wav"))
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains(": the disk is full"), output)
        XCTAssertFalse(output.contains("No such file"), output)
        let media = disk.dir.appendingPathComponent("reel/media")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media.path).filter { $0.hasSuffix(".part") }, [])
    }
}
