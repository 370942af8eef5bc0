import Foundation
import ReelCore

/// The queue and settings as stored, so that a restarted daemon comes back
/// where it was.
public struct SavedQueue: Equatable, Sendable {
    /// Item ids in track-list order.
    public var items: [Int64] = []
    /// Index of the current entry in `items`.
    public var current: Int?
    /// The shuffle permutation as indices into `items`; nil while shuffle is off.
    public var shuffleOrder: [Int]?
    public var settings = Settings()

    public init() {}
}

extension Library {
    /// Replaces the stored queue and settings in one transaction. Entries whose
    /// item has been removed from the library are left out.
    public func saveQueue(_ q: SavedQueue) throws {
        try db.transaction {
            try db.query("DELETE FROM queue")
            var rank: [Int: Int] = [:]
            for (r, index) in (q.shuffleOrder ?? []).enumerated() { rank[index] = r }
            for (i, item) in q.items.enumerated() {
                try db.query("INSERT INTO queue (position, item_id, shuffle_rank) SELECT ?, id, ? FROM items WHERE id = ?",
                             [.int(Int64(i)), rank[i].map { .int(Int64($0)) } ?? .null, .int(item)])
            }
            let values: [(String, String)] = [
                ("current", q.current.map(String.init) ?? ""), ("loop", q.settings.loop.rawValue),
                ("shuffle", q.settings.shuffle ? "1" : "0"), ("rate", String(q.settings.rate)),
                ("volume", String(q.settings.volume)),
            ]
            for (key, value) in values {
                try db.query("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [.text(key), .text(value)])
            }
        }
    }

    /// The stored queue, or nil if none was ever saved.
    public func loadQueue() throws -> SavedQueue? {
        let settings = Dictionary(try db.query("SELECT key, value FROM settings").compactMap { row in
            row[0].text.flatMap { k in row[1].text.map { (k, $0) } }
        }) { a, _ in a }
        guard !settings.isEmpty else { return nil }
        var q = SavedQueue()
        let rows = try db.query("SELECT item_id, shuffle_rank, position FROM queue ORDER BY position")
        q.items = rows.compactMap { $0[0].int }
        // Positions may have gaps where items were removed; the current entry is found by its old position.
        let oldPositions = rows.compactMap { $0[2].int }
        if let current = settings["current"].flatMap(Int64.init) {
            q.current = oldPositions.firstIndex(of: current) ?? (q.items.isEmpty ? nil : 0)
        }
        q.settings.loop = settings["loop"].flatMap(LoopStatus.init) ?? .none
        q.settings.shuffle = settings["shuffle"] == "1"
        q.settings.rate = settings["rate"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 1
        q.settings.volume = settings["volume"].flatMap(Double.init) ?? 1
        if q.settings.shuffle {
            let ranked = rows.enumerated().compactMap { i, row in row[1].int.map { (i, $0) } }
            q.shuffleOrder = ranked.sorted { $0.1 < $1.1 }.map(\.0)
        }
        return q
    }

    // MARK: Playlists

    /// Saves (or replaces) a named playlist.
    public func savePlaylist(_ name: String, items: [Int64]) throws {
        try db.transaction {
            try db.query("DELETE FROM playlists WHERE name = ?", [.text(name)])
            try db.query("INSERT INTO playlists (name, created_at) VALUES (?, ?)", [.text(name), .int(Library.now())])
            let id = db.lastInsertID
            for (i, item) in items.enumerated() {
                try db.query("INSERT INTO playlist_items (playlist_id, position, item_id) SELECT ?, ?, id FROM items WHERE id = ?",
                             [.int(id), .int(Int64(i)), .int(item)])
            }
        }
    }

    public struct PlaylistInfo: Equatable, Sendable {
        public var id: Int64
        public var name: String
        public var count: Int
        public var createdAt: Int64
    }

    public func playlists() throws -> [PlaylistInfo] {
        try db.query("""
            SELECT p.id, p.name, count(pi.item_id), p.created_at FROM playlists p
            LEFT JOIN playlist_items pi ON pi.playlist_id = p.id GROUP BY p.id ORDER BY p.name
            """).map { PlaylistInfo(id: $0[0].int ?? 0, name: $0[1].text ?? "", count: Int($0[2].int ?? 0),
                                    createdAt: $0[3].int ?? 0) }
    }

    /// A playlist's items in order, or nil if there is no such playlist.
    public func playlist(named name: String) throws -> [LibraryItem]? {
        guard let id = try db.scalar("SELECT id FROM playlists WHERE name = ?", [.text(name)]).int else { return nil }
        return try playlist(id: id)
    }

    public func playlist(id: Int64) throws -> [LibraryItem] {
        try db.query("""
            SELECT \(LibraryItem.columns.split(separator: ",").map { "i." + $0.trimmingCharacters(in: .whitespaces) }
                        .joined(separator: ", "))
            FROM playlist_items pi JOIN items i ON i.id = pi.item_id WHERE pi.playlist_id = ? ORDER BY pi.position
            """, [.int(id)]).map(LibraryItem.init)
    }
}
