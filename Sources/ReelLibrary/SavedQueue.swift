import FoundationEssentials
import Glibc
import ReelSQLite
import ReelCore

extension Library {
    /// Writes queue rows (new or changed) and removes others; `cleared` first
    /// removes every row. The caller wraps it in a transaction with the rest.
    func writeQueue(upserting rows: [QueueRow], removing removed: [UInt64], cleared: Bool,
                    ranks: (ids: [UInt64], values: [Int64]) = ([], []),
                    shuffleKeys: (ids: [UInt64], values: [Int64]) = ([], [])) throws {
        if cleared { try db.query("DELETE FROM queue_entries") }
        for id in removed { try db.query("DELETE FROM queue_entries WHERE id = ?", [.int(Int64(bitPattern: id))]) }
        // A new shuffle order, or ranks laid out afresh: numbers only, a statement each.
        // Entries removed meanwhile are gone already: their updates change nothing.
        for (id, rank) in zip(ranks.ids, ranks.values) {
            try db.query("UPDATE queue_entries SET rank = ? WHERE id = ?", [.int(rank), .int(Int64(bitPattern: id))])
        }
        for (id, key) in zip(shuffleKeys.ids, shuffleKeys.values) {
            try db.query("UPDATE queue_entries SET shuffle_key = ? WHERE id = ?", [.int(key), .int(Int64(bitPattern: id))])
        }
        for row in rows {
            // An item removed from the library meanwhile leaves the entry without one.
            try db.query("""
                INSERT OR REPLACE INTO queue_entries (id, rank, shuffle_key, item_id, uri, range_start, range_end)
                VALUES (?, ?, ?, (SELECT id FROM items WHERE id = ?), ?, ?, ?)
                """, [.int(Int64(bitPattern: row.id)), .int(row.rank), .int(row.shuffleKey),
                      row.itemID.map(SQLValue.int) ?? .null, .text(row.uri),
                      row.range.map { .int($0.start) } ?? .null, row.range?.end.map(SQLValue.int) ?? .null])
        }
    }

    func writeQueueState(_ state: QueueState) throws {
        let values: [(String, String)] = [
            ("current", state.current.map(String.init) ?? ""), ("next_entry", String(state.nextID)),
            ("loop", state.settings.loop.rawValue), ("shuffle", state.settings.shuffle ? "1" : "0"),
            ("rate", String(state.settings.rate)), ("volume", String(state.settings.volume)),
        ]
        for (key, value) in values {
            try db.query("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [.text(key), .text(value)])
        }
    }

    /// The stored queue, each row with its item when it has one, or nil if
    /// none was ever stored.
    public func loadQueue() throws -> (rows: [(QueueRow, LibraryItem?)], state: QueueState)? {
        let settings = Dictionary(try db.query("SELECT key, value FROM settings").compactMap { row in
            row[0].text.flatMap { k in row[1].text.map { (k, $0) } }
        }) { a, _ in a }
        guard !settings.isEmpty else { return nil }
        var state = QueueState()
        state.current = settings["current"].flatMap(UInt64.init)
        state.nextID = settings["next_entry"].flatMap(UInt64.init) ?? 1
        state.settings.loop = settings["loop"].flatMap(LoopStatus.init) ?? .none
        state.settings.shuffle = settings["shuffle"] == "1"
        state.settings.rate = settings["rate"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 1
        state.settings.volume = settings["volume"].flatMap(Double.init) ?? 1
        let columns = LibraryItem.columns.split(separator: ",").map { "i." + $0.trimmed() }
        let rows = try db.query("""
            SELECT q.id, q.rank, q.shuffle_key, q.item_id, q.uri, q.range_start, q.range_end, \(columns.joined(separator: ", "))
            FROM queue_entries q LEFT JOIN items i ON i.id = q.item_id ORDER BY q.rank
            """).map { r -> (QueueRow, LibraryItem?) in
            // A range that is not one (edited by hand: negative, empty) is dropped, not trusted.
            let range = r[5].int.flatMap { PlayRange(start: $0, end: r[6].int) }
            let row = QueueRow(id: UInt64(bitPattern: r[0].int ?? 0), rank: r[1].int ?? 0, shuffleKey: r[2].int ?? 0,
                               itemID: r[3].int, uri: r[4].text ?? "", range: range)
            return (row, row.itemID == nil ? nil : LibraryItem(row: Array(r[7...])))
        }
        return (rows, state)
    }

    /// Gives every stored entry without an item one, made from its URI.
    /// Returns (entry id, item id) for each.
    func attachMissingItems() throws -> [(UInt64, Int64)] {
        let orphans = try db.query("SELECT id, uri FROM queue_entries WHERE item_id IS NULL")
        var attached: [(UInt64, Int64)] = []
        for row in orphans {
            guard let id = row[0].int, let uri = row[1].text, !uri.isEmpty else { continue }
            let item = try upsertURI(uri)
            try db.query("UPDATE queue_entries SET item_id = ? WHERE id = ?", [.int(item), .int(id)])
            attached.append((UInt64(bitPattern: id), item))
        }
        return attached
    }
}
