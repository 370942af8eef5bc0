import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// A music collection, reeld against MPD 0.23 on the same generated files (`scripts/make-collection`:
/// mp3, ogg and flac in turn, tagged, in Artist/Album folders, a 1 MB embedded cover on every
/// 100th). Both are driven by the same MPD requests: the first scan, the unchanged rescan, one
/// changed file, one file added to the watched folder, then the queries MPD clients send, the
/// start and the memory.
struct CollectionBench {
    let dir: URL
    let songs: Int
    static let rescans = 5
    static let queryRuns = 5

    struct Side {
        var firstScan = 0.0
        var unchanged = Stats([])
        var oneChanged = 0.0
        /// From the end of a copy into the music folder to MPD's `idle database`.
        var watchAdd = 0.0
        var rssKiB = 0
        /// From the start of the process to its first MPD answer (median of 3).
        var start = Stats([])
        var queries: [String: Stats] = [:]
        /// reel only: `reel lib ls` of the whole library, and LibrarySearch over D-Bus.
        var libList: Stats?
        var librarySearch: Stats?
    }

    var queries: [String] {
        ["listallinfo", "list album group albumartist", "search any \"amber\"", "find artist \"Artist 001 Blue\"",
         "lsinfo \"Artist 000 Amber\""]
    }

    func run() throws -> (reel: Side, mpd: Side) {
        let music = dir.appendingPathComponent("collection-\(songs)")
        let spare = dir.appendingPathComponent("collection-spare")
        try? FileManager.default.removeItem(at: music)
        try? FileManager.default.removeItem(at: spare)
        say("collection: generating \(songs) songs")
        try generate(music, count: songs, first: 0, coverEvery: 100)
        try generate(spare, count: 12, first: songs + 10, coverEvery: 0)
        let spareFiles = try FileManager.default.subpathsOfDirectory(atPath: spare.path).filter { Paths.fileExtension($0) == "ogg" }.sorted()
        let mpd = try measureMPD(music, spare: spare.appendingPathComponent(spareFiles[0]), other: spare.appendingPathComponent(spareFiles[1]))
        let reel = try measureReel(music, spare: spare.appendingPathComponent(spareFiles[2]), other: spare.appendingPathComponent(spareFiles[3]))
        try? FileManager.default.removeItem(at: music)
        return (reel, mpd)
    }

    private func generate(_ folder: URL, count: Int, first: Int, coverEvery: Int) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/make-collection").standardized
        let child = try ChildProcess(script, [folder.path, String(count), "--first", String(first), "--cover-every", String(coverEvery)],
                                     busAddress: nil, home: dir)
        guard child.waitForExit(timeout: 3_600) == 0 else { throw HarnessError("make-collection failed: \(child.text)") }
    }

    // MARK: MPD

    private func measureMPD(_ music: URL, spare: URL, other: URL) throws -> Side {
        let home = dir.appendingPathComponent("collection-mpd")
        try? FileManager.default.removeItem(at: home)
        // MPD scans a folder it has no database of at once, on its own: it is started on an
        // empty one first, so that the first scan is the one `update` asks for, as for reel.
        let empty = dir.appendingPathComponent("collection-empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let link = dir.appendingPathComponent("collection-link")
        try? FileManager.default.removeItem(at: link)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: empty)
        var side = Side()
        do {
            let (process, socket) = try ReferenceMPD.start(music: link, dir: home, autoUpdate: true)
            defer { process.stop() }
            let client = try connect(socket)
            try waitForUpdates(client)
            try FileManager.default.removeItem(at: link)
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: music)
            say("collection: MPD 0.23, first scan of \(songs)")
            side.firstScan = try timedUpdate(client)
            side.unchanged = Stats(try (0..<Self.rescans).map { _ in try timedUpdate(client) })
            side.oneChanged = try changeOne(music, with: other) { try timedUpdate(client) }
            side.queries = try measureQueries(client)
            side.rssKiB = Usage.rss(process.process.processIdentifier)
        }
        do {
            // Its watch is set up at start, on the folder then, and follows no link (IN_DONT_FOLLOW):
            // started again on the collection itself (the same songs, as its database names them), it watches them.
            let (process, socket) = try ReferenceMPD.start(music: music, dir: home, autoUpdate: true)
            defer { process.stop() }
            let client = try connect(socket)
            _ = try client.command("status")
            side.watchAdd = try addOne(music, spare, try connect(socket))
        }
        side.start = Stats(try (0..<3).map { _ in
            let t0 = monotonicNow()
            let (process, socket) = try ReferenceMPD.start(music: link, dir: home)
            defer { process.stop() }
            _ = try connect(socket).command("status")
            return Double(monotonicNow() - t0)
        })
        return side
    }

    // MARK: reel

    private func measureReel(_ music: URL, spare: URL, other: URL) throws -> Side {
        let home = dir.appendingPathComponent("collection-reel")
        try? FileManager.default.removeItem(at: home)
        var side = Side()
        let socket = home.appendingPathComponent("reel/mpd.socket").path
        do {
            let bus = try PrivateBus()
            // First without the watch, so that the first scan is the one `update` asks for, as for MPD.
            let reeld = try ChildProcess(Installed.reeld, ["--ao", "null", "--fresh", "--watch", "no", "--music-dir", music.path],
                                         busAddress: bus.address, home: home)
            defer { reeld.stop() }
            let client = try connect(socket)
            say("collection: reeld, first scan of \(songs)")
            side.firstScan = try timedUpdate(client)
            side.unchanged = Stats(try (0..<Self.rescans).map { _ in try timedUpdate(client) })
            side.oneChanged = try changeOne(music, with: other) { try timedUpdate(client) }
            side.queries = try measureQueries(client)
            side.libList = Stats(try (0..<Self.queryRuns).map { _ in
                let t0 = monotonicNow()
                let child = try ChildProcess(Installed.reel, ["lib", "ls"], busAddress: bus.address, home: home)
                guard child.waitForExit(timeout: 120) == 0 else { throw HarnessError("reel lib ls failed") }
                return Double(monotonicNow() - t0)
            })
            let mpris = try Connection(address: bus.address)
            side.librarySearch = Stats(try (0..<Self.queryRuns).map { _ in
                let t0 = monotonicNow()
                _ = try mpris.callMethod("org.mpris.MediaPlayer2.reel", MPRIS.objectPath, MPRIS.reel, "LibrarySearch",
                                         [.string("amber"), .uint32(0), .int32(-1)], timeoutMs: 120_000)
                return Double(monotonicNow() - t0)
            })
            side.rssKiB = Usage.rss(reeld.process.processIdentifier)
        }
        // As users run it: following the music folder (its scan at start finds nothing changed).
        side.start = Stats(try (0..<3).map { _ in
            let bus = try PrivateBus()
            let t0 = monotonicNow()
            let reeld = try ChildProcess(Installed.reeld, ["--ao", "null", "--fresh", "--music-dir", music.path],
                                         busAddress: bus.address, home: home)
            defer { reeld.stop() }
            _ = try connect(socket).command("status")
            return Double(monotonicNow() - t0)
        })
        let bus = try PrivateBus()
        let reeld = try ChildProcess(Installed.reeld, ["--ao", "null", "--fresh", "--music-dir", music.path],
                                     busAddress: bus.address, home: home)
        defer { reeld.stop() }
        _ = try connect(socket).command("status")
        let deadline = Date().addingTimeInterval(600)
        while !reeld.text.contains("music folder: nothing changed"), Date() < deadline { usleep(20_000) }
        side.watchAdd = try addOne(music, spare, try connect(socket))
        return side
    }

    // MARK: Requests

    private func connect(_ socket: String) throws -> MPDClient {
        let deadline = Date().addingTimeInterval(120)
        while true {
            if let client = try? MPDClient(path: socket) { return client }
            guard Date() < deadline else { throw HarnessError("no MPD server on \(socket)") }
            usleep(2_000)
        }
    }

    /// Until no update runs, through `idle update` as MPD clients wait.
    private func waitForUpdates(_ client: MPDClient) throws {
        while try client.pairs("status")["updating_db"] != nil { _ = try client.command("idle update", timeout: 3_600) }
    }

    private func timedUpdate(_ client: MPDClient) throws -> Double {
        let t0 = monotonicNow()
        _ = try client.command("update", timeout: 60)
        try waitForUpdates(client)
        return Double(monotonicNow() - t0)
    }

    /// One file rewritten with another song's bytes (its size and tags change), then `measure`.
    private func changeOne(_ music: URL, with other: URL, _ measure: () throws -> Double) throws -> Double {
        let victim = music.appendingPathComponent("Artist 001 Blue").path
        let file = try XCTUnwrapFirst(FileManager.default.subpathsOfDirectory(atPath: victim).filter { Paths.fileExtension($0) == "ogg" }.sorted())
        try Data(contentsOf: other).write(to: URL(fileURLWithPath: victim + "/" + file))
        return try measure()
    }

    /// A file copied into a new folder of the music folder, and the time from the end of the
    /// copy until an idle client hears the database changed. The client is a connection of its
    /// own that sends nothing but `idle`, as `mpc idle` does: MPD 0.23 was never heard to update
    /// (within 30 s) while the one that had sent `status` on its start was the idle one, and a
    /// fresh connection heard it after its 5 s inotify delay (INOTIFY_UPDATE_DELAY).
    private func addOne(_ music: URL, _ file: URL, _ client: MPDClient) throws -> Double {
        client.send("idle database\n")
        usleep(50_000)
        let folder = music.appendingPathComponent("Zz New/Album")
        try? FileManager.default.removeItem(at: music.appendingPathComponent("Zz New"))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent("01 New.ogg"))
        let t0 = monotonicNow()
        // Not heard within 30 s: n/a in the table, rather than no table.
        let heard = client.reply(timeout: 30)?.first == "changed: database"
        let elapsed = heard ? Double(monotonicNow() - t0) : .nan
        try FileManager.default.removeItem(at: music.appendingPathComponent("Zz New"))
        return elapsed
    }

    private func measureQueries(_ client: MPDClient) throws -> [String: Stats] {
        var out: [String: Stats] = [:]
        for query in queries {
            out[query] = Stats(try (0..<Self.queryRuns).map { _ in
                let t0 = monotonicNow()
                let reply = try client.command(query, timeout: 600)
                guard reply.last == "OK" else { throw HarnessError("\(query): \(reply.last ?? "")") }
                return Double(monotonicNow() - t0)
            })
        }
        return out
    }

    private func XCTUnwrapFirst(_ list: [String]) throws -> String {
        guard let first = list.first else { throw HarnessError("no file to change") }
        return first
    }

    // MARK: Table

    static func print(_ results: [(songs: Int, reel: Side, mpd: Side)]) {
        func seconds(_ micros: Double) -> String { String(format: "%.3f s", micros / 1e6) }
        func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(format: "%.2f×", a / b) : "n/a" }
        Swift.print("| songs | measure | reeld | MPD 0.23 | reeld / MPD |")
        Swift.print("|---:|---|---:|---:|---:|")
        for (songs, reel, mpd) in results {
            func row(_ name: String, _ a: Double, _ b: Double, _ format: (Double) -> String = seconds) {
                Swift.print("| \(songs) | \(name) | \(format(a)) | \(format(b)) | \(ratio(a, b)) |")
            }
            row("first scan (`update`)", reel.firstScan, mpd.firstScan)
            row("unchanged rescan, median of \(rescans)", reel.unchanged.median, mpd.unchanged.median)
            row("one changed file (`update`)", reel.oneChanged, mpd.oneChanged)
            row("one file copied in, to `idle database` (watch / auto_update)", reel.watchAdd, mpd.watchAdd)
            row("start to the first MPD answer, median of 3", reel.start.median, mpd.start.median, ms)
            row("RSS after the scan", Double(reel.rssKiB), Double(mpd.rssKiB)) { String(format: "%.1f MiB", $0 / 1024) }
            for query in CollectionBench(dir: URL(fileURLWithPath: "/"), songs: 0).queries {
                let a = reel.queries[query]?.median ?? .nan, b = mpd.queries[query]?.median ?? .nan
                row("`\(query.replacingOccurrences(of: "|", with: "\\|"))`, median of \(queryRuns)", a, b, ms)
            }
            if let list = reel.libList, let search = reel.librarySearch {
                Swift.print("| \(songs) | `reel lib ls` (all), whole process, median of \(queryRuns) | \(ms(list.median)) | | |")
                Swift.print("| \(songs) | `LibrarySearch(\"amber\")` over D-Bus, median of \(queryRuns) | \(ms(search.median)) | | |")
            }
        }
    }
}
