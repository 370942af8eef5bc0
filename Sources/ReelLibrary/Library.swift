import FoundationEssentials
import Glibc
import ReelSystem
import ReelSQLite
import ReelCore

/// Why the library could not be opened. The file is left exactly as it was.
public enum LibraryOpenError: Error, Equatable, CustomStringConvertible {
    case corrupt(path: String, detail: String)
    case future(path: String, version: Int64)
    case foreign(path: String)
    case unavailable(path: String, detail: String)

    public var description: String {
        switch self {
        case .corrupt(let path, let detail): "the library \(path) is damaged (\(detail)); it was left untouched"
        case .future(let path, let version):
            "the library \(path) has schema version \(version), newer than this reel understands (\(Schema.version)); it was left untouched"
        case .foreign(let path): "\(path) is not a reel library; it was left untouched"
        case .unavailable(let path, let detail): "cannot open the library \(path): \(detail)"
        }
    }
}

/// The SQLite media library: items, resume positions, the saved queue and
/// playlists. One instance per thread.
public final class Library {
    public let path: String
    let db: Database

    /// `$XDG_DATA_HOME/reel/library.sqlite3`.
    public static func defaultPath(environment: [String: String]) -> String {
        Paths.base(.data, environment: environment) + "/reel/library.sqlite3"
    }

    /// Opens or creates the library, checking it is ours, sound and not from
    /// the future before anything is written, then migrating it forward.
    /// `check: false` skips the integrity check, for reopening a library
    /// already checked in this run.
    public init(path: String, check: Bool = true) throws {
        self.path = path
        do {
            try Paths.createDirectory(Paths.directory(of: path))
        } catch {
            throw LibraryOpenError.unavailable(path: path, detail: error.description)
        }
        do {
            db = try Database(path: path)
            // One statement, so one snapshot: read apart, a second opener could see
            // no application id and then the tables the first one has just made.
            let header = try db.query("""
                SELECT (SELECT user_version FROM pragma_user_version), (SELECT application_id FROM pragma_application_id),
                       (SELECT count(*) FROM sqlite_schema)
                """).first ?? []
            let version = header.first?.int ?? 0
            let appID = header.dropFirst().first?.int ?? 0
            let tables = header.last?.int ?? 0
            if appID != Schema.applicationID, appID != 0 || tables > 0 { throw LibraryOpenError.foreign(path: path) }
            if version > Schema.version { throw LibraryOpenError.future(path: path, version: version) }
            if check {
                let result = try db.scalar("PRAGMA quick_check").text ?? "?"
                guard result == "ok" else { throw LibraryOpenError.corrupt(path: path, detail: result) }
            }
            try db.enableWriteAheadLog()
            try db.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
            try migrate(from: version)
        } catch let error as SQLiteError {
            if error.isNotADatabase, !Self.hasSQLiteHeader(path) { throw LibraryOpenError.foreign(path: path) }
            throw error.isCorrupt ? LibraryOpenError.corrupt(path: path, detail: error.message)
                : LibraryOpenError.unavailable(path: path, detail: error.message)
        }
    }

    /// Whether the file starts as an SQLite database does. Only asked once SQLite refused the
    /// file: closing a descriptor of it drops every lock this process holds on it, those of
    /// the daemon's own connections too (POSIX locks belong to the process), and the next
    /// process to close its connection would then take the write-ahead log away from under them.
    private static func hasSQLiteHeader(_ path: String) -> Bool {
        var header = [UInt8](repeating: 0, count: 16)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        let n = fd >= 0 ? read(fd, &header, 16) : -1
        if fd >= 0 { close(fd) }
        return n == 16 && header == Array("SQLite format 3\0".utf8)
    }

    private func migrate(from version: Int64) throws {
        for target in (version + 1)..<(Schema.version + 1) {
            try db.transaction {
                // Another process (the daemon, an importer) may have migrated
                // since we looked; the write lock makes this second look exact.
                guard try db.scalar("PRAGMA user_version").int ?? 0 < target else { return }
                try db.execute(Schema.migrations[Int(target) - 1])
                try db.execute("PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = \(target)")
            }
        }
    }

    /// SQLite's full integrity check: "ok", or what is wrong.
    public func integrityCheck() throws -> String {
        try db.query("PRAGMA integrity_check").compactMap { $0.first?.text }.joined(separator: "; ")
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    // MARK: Items

    public func item(id: Int64) throws -> LibraryItem? {
        try db.query("SELECT \(LibraryItem.columns) FROM items WHERE id = ?", [.int(id)]).first.map(LibraryItem.init)
    }

    /// The item for a played URI, created if new: `file://` URIs are local
    /// paths, http(s) URLs remote ones. The same URI always gives the same item.
    public func item(forURI uri: String) throws -> LibraryItem {
        try item(id: try upsertURI(uri))!
    }

    /// The items already in the library for these URIs (nil where there is
    /// none). Only reads, so it never waits for a writer.
    public func knownItems(forURIs uris: [String]) throws -> [LibraryItem?] {
        try uris.map { uri in
            let url = URL(string: uri)
            let (column, key) = url?.isFileURL == true ? ("local_path", url!.path) : ("remote_url", uri)
            return try db.query("SELECT \(LibraryItem.columns) FROM items WHERE \(column) = ?", [.text(key)])
                .first.map(LibraryItem.init)
        }
    }

    func upsertURI(_ uri: String) throws -> Int64 {
        var probed = ProbedItem()
        if let url = URL(string: uri), url.isFileURL { probed.localPath = url.path } else { probed.remoteURL = uri }
        return try add(probed).id
    }

    /// Inserts an item, or finds the one with the same local path or remote
    /// URL and fills in what it lacked. Returns its id and whether it is new.
    @discardableResult
    public func add(_ p: ProbedItem) throws -> (id: Int64, isNew: Bool) {
        let result = try upsert(p)
        if result.isNew { try index(after: result.id - 1) }
        return result
    }

    /// Adds many items in one transaction; returns how many were new.
    public func addAll(_ items: [ProbedItem]) throws -> Int {
        try db.transaction {
            let before = try db.scalar("SELECT coalesce(max(id), 0) FROM items").int ?? 0
            // Rows of this batch are not indexed until its end, so none may be updated before then.
            let added = try ProbedItem.merged(items).reduce(0) { $0 + (try upsert($1).isNew ? 1 : 0) }
            try index(after: before)
            return added
        }
    }

    /// Puts the items with ids above `id` into the full-text index, and counts them in the catalogue's version.
    func index(after id: Int64) throws {
        try db.query("INSERT INTO items_fts (rowid, title, artist, album) SELECT id, title, artist, album FROM items WHERE id > ?",
                     [.int(id)])
        if db.changes > 0 { try db.query("UPDATE catalogue SET version = version + 1") }
    }

    private func upsert(_ p: ProbedItem) throws -> (id: Int64, isNew: Bool) {
        // Most imports are new items: try the insert first, look up only on a clash.
        try db.query("""
            INSERT OR IGNORE INTO items (title, artist, album, duration_us, cover, local_path, remote_url, added_at, genre,
                                         from_feed, album_artist, track, disc, date, modified, format, chapters, feed)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [text(p.title), text(p.artist), text(p.album), p.duration.map(SQLValue.int) ?? .null, text(p.cover),
                  text(p.localPath), text(p.remoteURL), .int(Library.now()), text(p.genre), .int(p.fromFeed ? 1 : 0),
                  text(p.albumArtist), number(p.track), number(p.disc), text(p.date), p.modified.map(SQLValue.int) ?? .null,
                  text(p.format), text(ChapterColumn.encode(p.chapters)), text(p.feed)])
        if db.changes == 1 { return (db.lastInsertID, true) }
        let byPath = try p.localPath.flatMap {
            try db.query("SELECT id FROM items WHERE local_path = ?", [.text($0)]).first?.first?.int
        }
        let existing = try byPath ?? p.remoteURL.flatMap {
            try db.query("SELECT id FROM items WHERE remote_url = ?", [.text($0)]).first?.first?.int
        }
        if let existing {
            try db.query("""
                UPDATE items SET title = coalesce(title, ?), artist = coalesce(artist, ?), album = coalesce(album, ?),
                    duration_us = coalesce(duration_us, ?), cover = coalesce(cover, ?),
                    local_path = coalesce(local_path, ?), remote_url = coalesce(remote_url, ?), genre = coalesce(genre, ?),
                    from_feed = max(from_feed, ?), album_artist = coalesce(album_artist, ?), track = coalesce(track, ?),
                    disc = coalesce(disc, ?), date = coalesce(date, ?), modified = coalesce(?, modified),
                    format = coalesce(format, ?), chapters = coalesce(chapters, ?), feed = coalesce(feed, ?)
                WHERE id = ?
                """, [text(p.title), text(p.artist), text(p.album), p.duration.map(SQLValue.int) ?? .null,
                      text(p.cover), text(p.localPath), text(p.remoteURL), text(p.genre), .int(p.fromFeed ? 1 : 0),
                      text(p.albumArtist), number(p.track), number(p.disc), text(p.date),
                      p.modified.map(SQLValue.int) ?? .null, text(p.format), text(ChapterColumn.encode(p.chapters)),
                      text(p.feed), .int(existing)])
            return (existing, false)
        }
        throw SQLiteError(code: 19, message: "cannot add \(p.localPath ?? p.remoteURL ?? "an item without a path or URL")")
    }


    /// Fills blanks from what playback found: tags, length. The cover found last replaces the stored
    /// one, which may be gone (a deleted cover.png); so do chapters, which mpv times as it plays them.
    public func learn(_ m: TrackMetadata, for id: Int64) throws {
        let cover = m.artURL.map { URL(string: $0)?.isFileURL == true ? URL(string: $0)!.path : $0 }
        try db.query("""
            UPDATE items SET title = coalesce(title, ?), artist = coalesce(artist, ?), album = coalesce(album, ?),
                duration_us = coalesce(duration_us, ?), cover = coalesce(?, cover), genre = coalesce(genre, ?),
                album_artist = coalesce(album_artist, ?), track = coalesce(track, ?), disc = coalesce(disc, ?),
                date = coalesce(date, ?), chapters = coalesce(?, chapters), silences = coalesce(?, silences)
            WHERE id = ?
            """, [text(m.title), text(m.artists.first), text(m.album), m.length.map(SQLValue.int) ?? .null,
                  text(cover), text(m.genres.isEmpty ? nil : m.genres.joined(separator: ";")),
                  text(m.albumArtists.first), number(m.trackNumber), number(m.disc), text(m.date),
                  text(ChapterColumn.encode(m.chapters)), text(SilenceColumn.encode(m.silences)), .int(id)])
    }

    /// Items matching a full-text query over title, artist and album (every
    /// word a prefix), by artist, album and title; or, for an empty query,
    /// every item in the order added.
    public func search(_ query: String, offset: Int = 0, limit: Int = -1) throws -> [LibraryItem] {
        let words = query.split(whereSeparator: { $0.isWhitespace || $0 == "\"" })
        let page: [SQLValue] = [.int(Int64(limit)), .int(Int64(max(offset, 0)))]
        if words.isEmpty {
            // Everything: in the order added, which pages without sorting (an index
            // for name order would cost a third of the bulk insertion rate).
            return try db.query("SELECT \(LibraryItem.columns) FROM items ORDER BY id LIMIT ? OFFSET ?",
                                page).map(LibraryItem.init)
        }
        let match = words.map { "\"\($0)\"*" }.joined(separator: " ")
        return try db.query("""
            SELECT \(LibraryItem.columns) FROM items WHERE id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)
            ORDER BY artist, album, title, id LIMIT ? OFFSET ?
            """, [.text(match)] + page).map(LibraryItem.init)
    }

    /// Changes whenever items come or go, or their tags or places change, through this connection
    /// or another (the writer thread's, another process's); not with saved positions or play counts.
    /// A cheap test for a stale copy of the catalogue.
    public var revision: Int64 {
        (try? db.scalar("SELECT version FROM catalogue"))?.int ?? 0
    }

    public var count: Int { Int((try? db.scalar("SELECT count(*) FROM items"))?.int ?? 0) }

    @discardableResult
    public func remove(id: Int64) throws -> Bool {
        try db.query("DELETE FROM items WHERE id = ?", [.int(id)])
        return db.changes > 0
    }

    // MARK: Positions

    public func setPosition(_ position: MediaTime, for id: Int64) throws {
        try db.query("UPDATE items SET position_us = ?, last_played = ? WHERE id = ?",
                     [.int(max(position, 0)), .int(Library.now()), .int(id)])
    }

    /// Trimming silence left out this much more of the item.
    public func addTimeSaved(_ saved: MediaTime, for id: Int64) throws {
        try db.query("UPDATE items SET time_saved_us = time_saved_us + ? WHERE id = ?", [.int(max(saved, 0)), .int(id)])
    }

    /// How much trimming silence has saved over every item.
    public func totalTimeSaved() throws -> MediaTime {
        try db.query("SELECT coalesce(sum(time_saved_us), 0) FROM items").first?[0].int ?? 0
    }

    /// Played to the end: from the start next time, and one more play.
    public func markFinished(_ id: Int64) throws {
        try db.query("""
            UPDATE items SET position_us = 0, finished = 1, play_count = play_count + 1, last_played = ? WHERE id = ?
            """, [.int(Library.now()), .int(id)])
    }

    public func forgetPosition(_ id: Int64) throws -> Bool {
        try db.query("UPDATE items SET position_us = 0, finished = 0 WHERE id = ?", [.int(id)])
        return db.changes > 0
    }

    func text(_ s: String?) -> SQLValue { s.map(SQLValue.text) ?? .null }
    func number(_ n: Int?) -> SQLValue { n.map { .int(Int64($0)) } ?? .null }
}
