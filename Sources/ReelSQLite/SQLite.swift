import CSQLite
import FoundationEssentials
import Glibc

/// A value bound to or read from a statement.
public enum SQLValue: Equatable, Sendable {
    case null
    case int(Int64)
    case real(Double)
    case text(String)

    public var int: Int64? { if case .int(let v) = self { v } else { nil } }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    public var real: Double? { if case .real(let v) = self { v } else { nil } }
}

/// An SQLite error, with the database's own message.
public struct SQLiteError: Error, Equatable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var description: String { message }
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
    /// The file is damaged or is not a database.
    public var isCorrupt: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }
    /// The file is not an SQLite database (or its header is damaged).
    public var isNotADatabase: Bool { code & 0xFF == SQLITE_NOTADB }
}

/// One SQLite connection, used from one thread. Statements are prepared with
/// bound parameters only.
public final class Database {
    let handle: OpaquePointer
    private var cache: [String: Statement] = [:]

    public init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: "\(path): \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs SQL without parameters (schema, pragmas); may hold several statements.
    public func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// Switches the file to write-ahead logging. While another connection is
    /// switching the same file (two openers of a new library), SQLite answers
    /// BUSY at once, without the busy handler; so this retries, for up to the
    /// busy timeout.
    public func enableWriteAheadLog() throws {
        var pause: UInt32 = 1_000
        var waited: UInt32 = 0
        while true {
            do {
                return try execute("PRAGMA journal_mode = WAL")
            } catch let error as SQLiteError where error.code & 0xFF == SQLITE_BUSY && waited < 5_000_000 {
                usleep(pause)
                waited += pause
                pause = min(pause * 2, 50_000)
            }
        }
    }

    /// A prepared statement for `sql`, cached for reuse.
    public func statement(_ sql: String) throws -> Statement {
        if let cached = cache[sql] { return cached }
        let made = try Statement(self, sql)
        cache[sql] = made
        return made
    }

    /// Runs `sql` with `values` bound and returns all rows.
    @discardableResult
    public func query(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try statement(sql).rows(values)
    }

    public func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue {
        try query(sql, values).first?.first ?? .null
    }

    public var lastInsertID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// Rows this connection has changed since it opened.
    public var totalChanges: Int64 { Int64(sqlite3_total_changes64(handle)) }

    /// Runs `body` in one transaction: all of it is stored, or none.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

public final class Statement {
    private let raw: OpaquePointer
    private unowned let db: Database

    init(_ db: Database, _ sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(db.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw db.error(rc) }
        raw = stmt
        self.db = db
    }

    deinit { sqlite3_finalize(raw) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds, runs to completion and returns every row.
    public func rows(_ values: [SQLValue]) throws -> [[SQLValue]] {
        defer { sqlite3_reset(raw); sqlite3_clear_bindings(raw) }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(raw, index)
            case .int(let v): rc = sqlite3_bind_int64(raw, index, v)
            case .real(let v): rc = sqlite3_bind_double(raw, index, v)
            case .text(let v): rc = sqlite3_bind_text(raw, index, v, -1, Statement.transient)
            }
            guard rc == SQLITE_OK else { throw db.error(rc) }
        }
        var result: [[SQLValue]] = []
        while true {
            let rc = sqlite3_step(raw)
            if rc == SQLITE_DONE { return result }
            guard rc == SQLITE_ROW else { throw db.error(rc) }
            result.append((0..<sqlite3_column_count(raw)).map(column))
        }
    }

    private func column(_ i: Int32) -> SQLValue {
        switch sqlite3_column_type(raw, i) {
        case SQLITE_INTEGER: .int(sqlite3_column_int64(raw, i))
        case SQLITE_FLOAT: .real(sqlite3_column_double(raw, i))
        case SQLITE_NULL: .null
        default: .text(sqlite3_column_text(raw, i).map { String(cString: $0) } ?? "")
        }
    }
}
