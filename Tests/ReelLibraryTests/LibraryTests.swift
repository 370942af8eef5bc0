import Foundation
import ReelSQLite
import ReelCore
import XCTest
@testable import ReelLibrary

final class LibraryTests: TempDirTestCase {
    func testCreatesAVersionedWALDatabase() throws {
        let lib = try Library(path: path)
        XCTAssertEqual(try lib.db.scalar("PRAGMA user_version").int, Schema.version)
        XCTAssertEqual(try lib.db.scalar("PRAGMA journal_mode").text, "wal")
        XCTAssertEqual(try lib.db.scalar("PRAGMA application_id").int, Schema.applicationID)
        _ = try Library(path: path)   // reopening migrates nothing and fails nothing
    }

    func testTheRevisionMovesWithTheCatalogueNotWithPlayback() throws {
        let lib = try Library(path: path)
        var seen = lib.revision
        func moved() -> Bool { defer { seen = lib.revision }; return lib.revision != seen }
        let a = try lib.add(ProbedItem(localPath: "/music/a.ogg")).id
        XCTAssertTrue(moved(), "a new item")
        _ = try lib.addAll([ProbedItem(localPath: "/music/b.ogg"), ProbedItem(localPath: "/music/c.ogg")])
        XCTAssertTrue(moved(), "a batch of new items")
        _ = try lib.addAll([ProbedItem(localPath: "/music/b.ogg")])
        XCTAssertFalse(moved(), "an import of what is there already")
        try lib.setPosition(5_000_000, for: a)
        try lib.markFinished(a)
        _ = try lib.forgetPosition(a)
        XCTAssertFalse(moved(), "positions and play counts")
        try lib.learn(TrackMetadata(title: "A", albumArtists: ["Band"]), for: a)
        XCTAssertTrue(moved(), "tags learnt in playback")
        try lib.learn(TrackMetadata(title: "A", albumArtists: ["Band"]), for: a)
        XCTAssertFalse(moved(), "the same tags again")
        _ = try lib.remove(id: a)
        XCTAssertTrue(moved(), "a removal")
        // Another connection (the writer thread's, another process's) moves it for this one too.
        try Library(path: path).add(ProbedItem(localPath: "/music/d.ogg"))
        XCTAssertTrue(moved(), "an item added by another connection")
    }

    func testAFeedsSettingsReachItsEpisodes() throws {
        let lib = try Library(path: path)
        var a = ProbedItem(remoteURL: "https://example.org/a.mp3")
        a.feed = "https://example.org/feed.xml"
        var b = ProbedItem(remoteURL: "https://example.org/b.mp3")
        b.feed = "https://example.org/other.xml"
        _ = try lib.addAll([a, b, ProbedItem(localPath: "/music/song.ogg")])
        XCTAssertEqual(try lib.feeds().map(\.feed), ["https://example.org/feed.xml", "https://example.org/other.xml"])
        XCTAssertEqual(try lib.feed(named: "FEED"), "https://example.org/feed.xml", "words of its name, any case")
        XCTAssertThrowsError(try lib.feed(named: "example.org"), "two feeds match")
        XCTAssertThrowsError(try lib.feed(named: "nowhere"))
        XCTAssertThrowsError(try lib.feed(named: " "), "no name names every feed")
        let talk = EpisodeSettings(rate: 1.25, skipIntro: 30_000_000, skipOutro: 0, voiceBoost: true)
        try lib.setSettings(talk, forFeed: "https://example.org/feed.xml")
        let id = try lib.item(forURI: "https://example.org/a.mp3").id
        XCTAssertEqual(try lib.episodeSettings(), [id: talk])
        XCTAssertEqual(try lib.feeds().first?.settings, talk)
        XCTAssertEqual(try lib.feeds().first?.episodes, 1)
        XCTAssertEqual(try Library(path: path).episodeSettings(), [id: talk], "kept in the file")
    }

    func testAddingIsIdempotentAndFillsBlanks() throws {
        let lib = try Library(path: path)
        let a = try lib.add(ProbedItem(localPath: "/music/a.ogg"))
        let again = try lib.add(ProbedItem(title: "A Song", artist: "Someone", localPath: "/music/a.ogg"))
        XCTAssertTrue(a.isNew)
        XCTAssertFalse(again.isNew)
        XCTAssertEqual(a.id, again.id)
        XCTAssertEqual(try lib.item(id: a.id)?.title, "A Song")
        // The same item can gain a remote URL: it then has both.
        try lib.add(ProbedItem(localPath: "/music/a.ogg", remoteURL: "https://example.org/a.ogg"))
        XCTAssertEqual(try lib.item(forURI: "https://example.org/a.ogg").id, a.id)
        XCTAssertEqual(try lib.item(forURI: "file:///music/a.ogg").id, a.id)
        XCTAssertEqual(lib.count, 1)
    }

    func testFullTextSearchMatchesWordPrefixesAcrossFields() throws {
        let lib = try Library(path: path)
        _ = try lib.addAll([
            ProbedItem(title: "Blue in Green", artist: "Miles Davis", album: "Kind of Blue", localPath: "/1"),
            ProbedItem(title: "So What", artist: "Miles Davis", album: "Kind of Blue", localPath: "/2"),
            ProbedItem(title: "Naïma", artist: "John Coltrane", album: "Giant Steps", localPath: "/3"),
        ])
        XCTAssertEqual(try lib.search("blue").count, 2)
        XCTAssertEqual(try lib.search("mil so").map(\.title), ["So What"])
        XCTAssertEqual(try lib.search("naima").map(\.title), ["Naïma"], "diacritics are folded")
        XCTAssertEqual(try lib.search("").count, 3)
        XCTAssertEqual(try lib.search("\"unbalanced").count, 0, "quotes in a query are harmless")
        XCTAssertEqual(try lib.search("", limit: 2).count, 2)
    }

    func testPositionsFinishAndForget() throws {
        let lib = try Library(path: path)
        let id = try lib.add(ProbedItem(localPath: "/x")).id
        try lib.setPosition(42_000_000, for: id)
        XCTAssertEqual(try lib.item(id: id)?.position, 42_000_000)
        XCTAssertNotNil(try lib.item(id: id)?.lastPlayed)
        try lib.markFinished(id)
        let item = try XCTUnwrap(lib.item(id: id))
        XCTAssertEqual(item.position, 0)
        XCTAssertTrue(item.finished)
        XCTAssertEqual(item.playCount, 1)
        try lib.setPosition(5, for: id)
        XCTAssertTrue(try lib.forgetPosition(id))
        XCTAssertEqual(try lib.item(id: id)?.position, 0)
    }

    func testPlaylists() throws {
        let lib = try Library(path: path)
        let ids = try (1...3).map { try lib.add(ProbedItem(title: "T\($0)", localPath: "/\($0)")).id }
        try lib.savePlaylist("morning", items: [ids[2], ids[0]])
        try lib.savePlaylist("all", items: ids)
        try lib.savePlaylist("morning", items: [ids[1]])
        XCTAssertEqual(try lib.playlists().map(\.name), ["all", "morning"])
        XCTAssertEqual(try lib.playlist(named: "morning")?.map(\.title), ["T2"])
        XCTAssertNil(try lib.playlist(named: "evening"))
    }

    func testDamagedForeignAndFutureFilesAreRefusedAndKeptByteForByte() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        // Not SQLite at all.
        let garbage = Data("this is my shopping list\n".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try Library(path: path)) { XCTAssertEqual($0 as? LibraryOpenError, .foreign(path: path)) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), garbage)

        // A real library with its pages damaged.
        try FileManager.default.removeItem(atPath: path)
        do {
            let lib = try Library(path: path)
            _ = try lib.addAll((0..<2000).map { ProbedItem(title: "title \($0)", localPath: "/file/\($0)") })
            try lib.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for i in stride(from: 4096 * 2, to: min(bytes.count, 4096 * 12), by: 7) { bytes[i] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path))
        try? FileManager.default.removeItem(atPath: path + "-wal")
        XCTAssertThrowsError(try Library(path: path)) {
            guard case .corrupt? = $0 as? LibraryOpenError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)

        // Another program's SQLite database.
        try FileManager.default.removeItem(atPath: path)
        try Database(path: path).execute("CREATE TABLE recipes (name TEXT)")
        let foreign = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try Library(path: path)) { XCTAssertEqual($0 as? LibraryOpenError, .foreign(path: path)) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), foreign)

        // Ours, from a newer reel.
        try FileManager.default.removeItem(atPath: path)
        _ = try Library(path: path)
        try Database(path: path).execute("PRAGMA user_version = 99")
        let future = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try Library(path: path)) { XCTAssertEqual($0 as? LibraryOpenError, .future(path: path, version: 99)) }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), future)
    }
}

extension LibraryTests {
    func testABatchWithDuplicatesKeepsTheIndexSound() throws {
        let lib = try Library(path: path)
        let added = try lib.addAll([
            ProbedItem(localPath: "/a"),
            ProbedItem(title: "Late Title", localPath: "/a"),
            ProbedItem(title: "Other", artist: "Someone", localPath: "/b"),
        ])
        XCTAssertEqual(added, 2)
        XCTAssertEqual(try lib.search("late").map(\.localPath), ["/a"])
        XCTAssertEqual(try lib.integrityCheck(), "ok")
        try lib.db.execute("INSERT INTO items_fts(items_fts, rank) VALUES('integrity-check', 1)")
        // Learning tags later re-indexes the item.
        try lib.learn(TrackMetadata(title: "x", artists: ["Newcomer"]), for: try lib.search("other").first!.id)
        XCTAssertEqual(try lib.search("newcomer").count, 0, "an existing artist is not overwritten")
        try lib.add(ProbedItem(artist: "Fills In", localPath: "/a"))
        XCTAssertEqual(try lib.search("fills").map(\.localPath), ["/a"])
        try lib.db.execute("INSERT INTO items_fts(items_fts, rank) VALUES('integrity-check', 1)")
    }
}

extension LibraryTests {
    func testSearchPagesInNameOrder() throws {
        let lib = try Library(path: path)
        _ = try lib.addAll((0..<25).map { ProbedItem(title: "t\($0)", artist: "A\($0 % 5)", localPath: "/p\($0)") })
        let all = try lib.search("")
        XCTAssertEqual(all.count, 25)
        XCTAssertEqual(all.map(\.id), all.map(\.id).sorted(), "everything comes in the order added")
        let matches = try lib.search("t")
        XCTAssertEqual(matches.map(\.artist), matches.map(\.artist).sorted { ($0 ?? "") < ($1 ?? "") }, "matches by name")
        let pages = try stride(from: 0, to: 25, by: 10).flatMap { try lib.search("", offset: $0, limit: 10) }
        XCTAssertEqual(pages.map(\.id), all.map(\.id))
        XCTAssertEqual(try lib.search("a1", offset: 3, limit: 10).count, 2)
    }
}

extension LibraryTests {
    func testTwoOpenersOfAFreshLibraryDoNotCollide() throws {
        let path = self.path
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do { _ = try Library(path: path) } catch { failures.add("\(error)") }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertEqual(try Library(path: path).integrityCheck(), "ok")
    }

    final class Failures: @unchecked Sendable {
        // @unchecked: the list is only touched under `lock`.
        private let lock = NSLock()
        private var list: [String] = []
        func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
    }
}
