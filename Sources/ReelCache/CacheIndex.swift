import FoundationEssentials
import ReelSystem
import Glibc
import ReelSQLite

/// What the index knows of one resource.
public struct ResourceRecord: Equatable, Sendable {
    public var url: String
    public var key: String
    public var present: ByteRanges
    public var length: Int64?
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// Seconds since 1970.
    public var lastRead: Int64
    /// The bytes live in the media store (a finished download), not in the cache:
    /// they count in no cache size and are never evicted.
    public var stored = false

    /// Every byte is present.
    public var isComplete: Bool { length.map(present.covers) ?? false }

    /// What `If-Range` carries: a strong ETag, else Last-Modified; nil when nothing tells a change.
    public var validator: String? {
        etag.flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? lastModified
    }
}

/// The cache's SQLite index (`index.sqlite3` in the cache directory): the
/// resources, their present ranges and validators, and the pending downloads.
/// Safe to use from any thread.
final class CacheIndex: @unchecked Sendable {
    // @unchecked: the SQLite connection is used only under `lock`.
    private let db: Database
    private let lock = Lock()

    init(path: String) throws {
        db = try Database(path: path)
        do {
            try db.enableWriteAheadLog()
            try db.execute("""
                PRAGMA synchronous = NORMAL;
                CREATE TABLE IF NOT EXISTS resources (
                    key TEXT PRIMARY KEY, url TEXT NOT NULL, ranges TEXT NOT NULL DEFAULT '',
                    length INTEGER, etag TEXT, last_modified TEXT, content_type TEXT,
                    last_read INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE IF NOT EXISTS downloads (url TEXT PRIMARY KEY, added INTEGER NOT NULL);
                """)
            // Under the write lock, so that two openers of an old index (reeld and
            // `reel cache`) cannot both add the same column.
            try db.transaction {
                // Version 2: a failed download keeps its reason and is not resumed.
                let columns = try db.query("PRAGMA table_info(downloads)").compactMap { $0[1].text }
                if !columns.contains("error") { try db.execute("ALTER TABLE downloads ADD COLUMN error TEXT") }
                // Version 3: a finished download is the cache's file moved into the media store.
                let resourceColumns = try db.query("PRAGMA table_info(resources)").compactMap { $0[1].text }
                if !resourceColumns.contains("stored") {
                    try db.execute("ALTER TABLE resources ADD COLUMN stored INTEGER NOT NULL DEFAULT 0")
                }
            }
        } catch let error as SQLiteError where error.isCorrupt {
            throw CacheError.io("\(path) is damaged (\(error.message)); move it away to start an empty cache")
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }


    func record(key: String) -> ResourceRecord? {
        lock.withLock { (try? db.query("SELECT \(Self.columns) FROM resources WHERE key = ?", [.text(key)]))?.first.map(Self.decode) }
    }

    func all() -> [ResourceRecord] {
        lock.withLock { ((try? db.query("SELECT \(Self.columns) FROM resources ORDER BY last_read DESC")) ?? []).map(Self.decode) }
    }

    func save(_ record: ResourceRecord) throws {
        _ = try lock.withLock {
            try db.query("""
                INSERT INTO resources (key, url, ranges, length, etag, last_modified, content_type, last_read, stored)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET url = excluded.url, ranges = excluded.ranges, length = excluded.length,
                  etag = excluded.etag, last_modified = excluded.last_modified, content_type = excluded.content_type,
                  last_read = excluded.last_read, stored = excluded.stored
                """, [.text(record.key), .text(record.url), .text(record.present.description),
                      record.length.map(SQLValue.int) ?? .null, record.etag.map(SQLValue.text) ?? .null,
                      record.lastModified.map(SQLValue.text) ?? .null, record.contentType.map(SQLValue.text) ?? .null,
                      .int(record.lastRead), .int(record.stored ? 1 : 0)])
        }
    }

    func remove(key: String) {
        lock.withLock { _ = try? db.query("DELETE FROM resources WHERE key = ?", [.text(key)]) }
    }

    // MARK: Downloads, so that they resume after a restart

    func pendingDownloads() -> [String] {
        lock.withLock {
            ((try? db.query("SELECT url FROM downloads WHERE error IS NULL ORDER BY added")) ?? []).compactMap { $0.first?.text }
        }
    }

    /// Downloads that failed for good, with why, oldest first.
    func failedDownloads() -> [(url: String, error: String)] {
        lock.withLock {
            ((try? db.query("SELECT url, error FROM downloads WHERE error IS NOT NULL ORDER BY added")) ?? []).compactMap { row in
                row[0].text.map { ($0, row[1].text ?? "") }
            }
        }
    }

    func isPendingDownload(_ url: String) -> Bool {
        lock.withLock { (try? db.query("SELECT 1 FROM downloads WHERE url = ? AND error IS NULL", [.text(url)]))?.isEmpty == false }
    }

    /// Marks downloads pending (in one transaction; a failed one is tried again) or done.
    /// Marks downloads pending (or not); throws when the index cannot be written.
    func setDownloads(_ urls: [String], pending: Bool) throws {
        let now = Int64(Date().timeIntervalSince1970)
        try lock.withLock {
            _ = try db.transaction {
                for url in urls {
                    _ = try pending
                        ? db.query("""
                            INSERT INTO downloads (url, added) VALUES (?, ?)
                            ON CONFLICT (url) DO UPDATE SET error = NULL, added = excluded.added WHERE error IS NOT NULL
                            """, [.text(url), .int(now)])
                        : db.query("DELETE FROM downloads WHERE url = ?", [.text(url)])
                }
            }
        }
    }

    /// A download that failed for good: kept with its reason, not resumed, tried again on request.
    func failDownload(_ url: String, _ error: String) {
        lock.withLock { _ = try? db.query("UPDATE downloads SET error = ? WHERE url = ?", [.text(error), .text(url)]) }
    }

    /// Forgets every download, pending or failed; how many were pending.
    func clearDownloads() -> Int {
        lock.withLock {
            let pending = (try? db.query("SELECT count(*) FROM downloads WHERE error IS NULL"))?.first?.first?.int ?? 0
            _ = try? db.query("DELETE FROM downloads")
            return Int(pending)
        }
    }

    private static let columns = "url, key, ranges, length, etag, last_modified, content_type, last_read, stored"

    private static func decode(_ row: [SQLValue]) -> ResourceRecord {
        ResourceRecord(url: row[0].text ?? "", key: row[1].text ?? "", present: ByteRanges(parsing: row[2].text ?? "") ?? ByteRanges(),
                       length: row[3].int, etag: row[4].text, lastModified: row[5].text, contentType: row[6].text,
                       lastRead: row[7].int ?? 0, stored: row[8].int == 1)
    }
}
