import FoundationEssentials
import Glibc
import ReelCore

/// Saved playlists: a name and items in order.
extension Library {

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
            SELECT \(LibraryItem.columns.split(separator: ",").map { "i." + $0.trimmed() }
                        .joined(separator: ", "))
            FROM playlist_items pi JOIN items i ON i.id = pi.item_id WHERE pi.playlist_id = ? ORDER BY pi.position
            """, [.int(id)]).map(LibraryItem.init)
    }

    @discardableResult
    public func removePlaylist(id: Int64) throws -> Bool {
        try db.transaction {
            try db.query("DELETE FROM playlist_items WHERE playlist_id = ?", [.int(id)])
            try db.query("DELETE FROM playlists WHERE id = ?", [.int(id)])
        }
        return db.changes > 0
    }

    /// Renames a playlist; a playlist of the new name must not exist.
    public func renamePlaylist(id: Int64, to name: String) throws {
        try db.query("UPDATE playlists SET name = ? WHERE id = ?", [.text(name), .int(id)])
    }
}
