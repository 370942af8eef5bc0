import Foundation
import ReelSQLite
import ReelCore
import XCTest
@testable import ReelLibrary

/// The queue as stored: a row per entry, written by the writer thread.
final class QueueStoreTests: TempDirTestCase {
    func write(_ lib: Library, _ build: (inout LibraryWriter.Batch) -> Void) throws -> [(UInt64, Int64)] {
        var batch = LibraryWriter.Batch()
        build(&batch)
        var pending = LibraryWriter.Pending()
        pending.merge(batch)
        return try lib.write(pending)
    }

    func testRowsAndStateRoundTripAndOnlyChangedRowsAreWritten() throws {
        let lib = try Library(path: path)
        let item = try lib.add(ProbedItem(title: "A", localPath: "/music/a.ogg")).id
        var settings = Settings()
        settings.loop = .playlist
        settings.shuffle = true
        settings.rate = 1.25
        let rows = [QueueRow(id: 7, rank: 100, shuffleKey: 30, itemID: item, uri: "file:///music/a.ogg"),
                    QueueRow(id: 9, rank: 200, shuffleKey: 10, itemID: nil, uri: "http://example.org/b.ogg")]
        _ = try write(lib) {
            $0.rows = rows
            $0.state = QueueState(current: 9, nextID: 10, settings: settings)
        }
        let loaded = try XCTUnwrap(try Library(path: path).loadQueue())
        XCTAssertEqual(loaded.rows.map(\.0.id), [7, 9], "in rank order")
        XCTAssertEqual(loaded.rows.map(\.0.shuffleKey), [30, 10])
        XCTAssertEqual(loaded.rows[0].1?.title, "A")
        XCTAssertEqual(loaded.state, QueueState(current: 9, nextID: 10, settings: settings))
        // A change writes its rows: one moved, one removed.
        _ = try write(lib) {
            $0.rows = [QueueRow(id: 9, rank: 50, shuffleKey: 10, itemID: nil, uri: "http://example.org/b.ogg")]
            $0.removed = [7]
        }
        XCTAssertEqual(try lib.loadQueue()?.rows.map(\.0.id), [9])
    }

    func testAnEntryOutlivesItsItemAndEntriesWithoutOneGetOne() throws {
        let lib = try Library(path: path)
        let item = try lib.add(ProbedItem(localPath: "/music/a.ogg")).id
        let attached = try write(lib) {
            $0.rows = [QueueRow(id: 1, rank: 1, shuffleKey: 0, itemID: item, uri: "file:///music/a.ogg"),
                       QueueRow(id: 2, rank: 2, shuffleKey: 0, itemID: nil, uri: "file:///music/b.ogg")]
        }
        XCTAssertEqual(attached.map(\.0), [2], "the entry queued without an item got one")
        let made = try XCTUnwrap(attached.first?.1)
        XCTAssertEqual(try lib.item(id: made)?.localPath, "/music/b.ogg")
        XCTAssertTrue(try lib.remove(id: item))
        let rows = try XCTUnwrap(lib.loadQueue()?.rows)
        XCTAssertEqual(rows.map(\.0.id), [1, 2], "removing an item keeps its queue entry")
        XCTAssertNil(rows[0].0.itemID)
        XCTAssertEqual(rows[0].0.uri, "file:///music/a.ogg")
    }

    func testANewShuffleOrderIsNumbersOnly() throws {
        let lib = try Library(path: path)
        _ = try write(lib) {
            $0.rows = (1...5).map { QueueRow(id: UInt64($0), rank: Int64($0), shuffleKey: 0, itemID: nil, uri: "file:///\($0).ogg") }
        }
        _ = try write(lib) {
            $0.shuffleKeys = ((1...5).map { UInt64($0) }, (1...5).map { Int64(50 - $0) })
            $0.removed = [3]
        }
        let rows = try XCTUnwrap(lib.loadQueue()?.rows.map(\.0))
        XCTAssertEqual(rows.map(\.id), [1, 2, 4, 5])
        XCTAssertEqual(rows.map(\.shuffleKey), [49, 48, 46, 45])
        XCTAssertEqual(rows.map(\.uri), ["file:///1.ogg", "file:///2.ogg", "file:///4.ogg", "file:///5.ogg"])
    }

    func testPendingWritesMergeLatestFirstAndKeepItemWritesInOrder() {
        var pending = LibraryWriter.Pending()
        var a = LibraryWriter.Batch()
        a.rows = [QueueRow(id: 1, rank: 1, shuffleKey: 0, itemID: 5, uri: "x")]
        a.items = [.position(5, 1_000_000), .finished(5)]
        pending.merge(a)
        var b = LibraryWriter.Batch()
        b.removed = [1]
        b.items = [.position(5, 2_000_000), .position(5, 3_000_000)]
        pending.merge(b)
        XCTAssertEqual(pending.rows, [:])
        XCTAssertEqual(pending.removed, [1])
        XCTAssertEqual(pending.items, [.position(5, 1_000_000), .finished(5), .position(5, 3_000_000)])
    }

    func testANewShuffleOrderAfterAPendingRowGivesTheRowItsKey() throws {
        // An entry added, then shuffle turned on before the writer ran: the row
        // must be stored with the new order's key, not the one it was queued with.
        let lib = try Library(path: path)
        _ = try write(lib) {
            $0.rows = (1...3).map { QueueRow(id: UInt64($0), rank: Int64($0), shuffleKey: 0, itemID: nil, uri: "file:///\($0).ogg") }
        }
        var pending = LibraryWriter.Pending()
        var added = LibraryWriter.Batch()
        added.rows = [QueueRow(id: 4, rank: 4, shuffleKey: 7, itemID: nil, uri: "file:///4.ogg")]
        pending.merge(added)
        var reshuffled = LibraryWriter.Batch()
        reshuffled.shuffleKeys = ([1, 2, 3, 4], [40, 10, 30, 20])
        pending.merge(reshuffled)
        var later = LibraryWriter.Batch()
        later.rows = [QueueRow(id: 5, rank: 5, shuffleKey: 25, itemID: nil, uri: "file:///5.ogg")]
        pending.merge(later)
        _ = try lib.write(pending)
        let rows = try XCTUnwrap(lib.loadQueue()?.rows.map(\.0))
        XCTAssertEqual(rows.map(\.id), [1, 2, 3, 4, 5])
        XCTAssertEqual(rows.map(\.shuffleKey), [40, 10, 30, 20, 25], "the pending row takes the new order's key; a later row keeps its own")
    }

    func testAVersion1LibraryIsMigratedWithItsQueue() throws {
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("reel"), withIntermediateDirectories: true)
        let db = try Database(path: path)
        try db.execute(Schema.migrations[0])
        try db.execute("PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = 1")
        try db.query("INSERT INTO items (id, local_path, added_at) VALUES (1, '/a.ogg', 0), (2, '/b.ogg', 0)")
        try db.query("INSERT INTO queue (position, item_id, shuffle_rank) VALUES (0, 2, 1), (1, 1, 0)")
        try db.query("INSERT INTO settings (key, value) VALUES ('current', '1'), ('shuffle', '1'), ('loop', 'Track')")
        let loaded = try XCTUnwrap(try Library(path: path).loadQueue())
        XCTAssertEqual(loaded.rows.map(\.0.itemID), [2, 1])
        XCTAssertEqual(loaded.rows.map(\.0.id), [1, 2])
        XCTAssertEqual(loaded.state.current, 2, "the second entry was current")
        XCTAssertEqual(loaded.state.nextID, 3)
        XCTAssertEqual(loaded.state.settings.loop, .track)
        XCTAssertLessThan(loaded.rows[1].0.shuffleKey, loaded.rows[0].0.shuffleKey, "shuffle order kept")
    }
}

/// Positions handed to the writer thread are answered for until they are in the file.
final class UnwrittenPositionTests: TempDirTestCase {
    func testAPositionIsAnsweredForUntilItsWriteLandsThenTheFileSaysIt() throws {
        let item = try Library(path: path).add(ProbedItem(title: "A", localPath: "/music/a.ogg")).id
        let writer = LibraryWriter(path: path) { _ in }
        defer { writer.stop() }
        var batch = LibraryWriter.Batch()
        batch.items = [.position(item, 12_000_000)]
        writer.submit(batch)
        XCTAssertTrue(writer.flush(timeout: 10))
        XCTAssertNil(writer.unwrittenPosition(of: item), "written: the file says it now")
        XCTAssertEqual(try Library(path: path).item(id: item)?.position, 12_000_000)
    }

    func testAFinishIsPositionZeroAndAForgottenOneIsNotAnsweredFor() throws {
        let item = try Library(path: path).add(ProbedItem(title: "A", localPath: "/music/a.ogg")).id
        // A file where the library's folder would be: every write fails (root too) and is kept.
        XCTAssertTrue(FileManager.default.createFile(atPath: path + ".d", contents: Data()))
        let writer = LibraryWriter(path: path + ".d/lib.db") { _ in }
        defer { writer.stop() }
        var batch = LibraryWriter.Batch()
        batch.items = [.position(item, 5_000_000)]
        writer.submit(batch)
        XCTAssertFalse(writer.flush(timeout: 0.3))
        XCTAssertEqual(writer.unwrittenPosition(of: item), 5_000_000, "not written: the writer answers for it")
        batch.items = [.finished(item)]
        writer.submit(batch)
        XCTAssertEqual(writer.unwrittenPosition(of: item), 0, "a finished item starts from 0 next time")
        writer.forgetUnwritten(item)
        XCTAssertNil(writer.unwrittenPosition(of: item))
    }
}
