import Glibc
import ReelCore
import ReelScan
import ReelSQLite

/// The collection's part of the library: what a scan compares the disk with, and what it writes.
extension Library {
    /// The rows at or under each root (a folder, or a file).
    func knownFiles(under roots: [String]) throws -> KnownFiles {
        var known = KnownFiles()
        for root in roots {
            // Paths under `root/` sort between `root/` and `root0` ('0' follows '/').
            let base = root == "/" ? "" : root
            let range: [SQLValue] = [.text(root), .text(base + "/"), .text(base + "0")]
            for row in try db.query("""
                SELECT id, local_path, size, mtime_ns, identity FROM items
                WHERE local_path = ?1 OR (local_path > ?2 AND local_path < ?3)
                """, range) {
                guard let path = row[1].text else { continue }
                known.files[path] = KnownFiles.File(id: row[0].int ?? 0, size: row[2].int, modified: row[3].int,
                                                    identity: row[4].int.map { UInt64(bitPattern: $0) })
            }
            for row in try db.query("""
                SELECT path, size, mtime_ns FROM scan_problems WHERE path = ?1 OR (path > ?2 AND path < ?3)
                """, range) {
                guard let path = row[0].text else { continue }
                known.problems[path] = KnownFiles.Problem(size: row[1].int, modified: row[2].int)
            }
            for row in try db.query("SELECT path, mtime_ns, cover FROM folders WHERE path = ?1 OR (path > ?2 AND path < ?3)", range) {
                guard let path = row[0].text else { continue }
                known.folders[path] = KnownFiles.Folder(modified: row[1].int ?? 0, cover: row[2].text)
            }
        }
        known.index()
        return known
    }

    /// Writes what the scanner read of some files, in one transaction: each media file's item (made,
    /// read again, or moved: `moves` gives the item a file moved from, by path), each unreadable
    /// file's reason. Returns how many items were made.
    func writeScanned(_ files: [(file: ScannedFile, cover: String?)], moves: [String: Int64]) throws -> Int {
        try db.transaction {
            let before = try db.scalar("SELECT coalesce(max(id), 0) FROM items").int ?? 0
            let now = Library.now()
            for (file, cover) in files {
                switch file.outcome {
                case .media(let item, let picture):
                    let values: [SQLValue] = [text(item.title), text(item.artist), text(item.album),
                                              item.duration.map(SQLValue.int) ?? .null, text(cover), text(item.genre),
                                              text(item.albumArtist), number(item.track), number(item.disc), text(item.date),
                                              .int(file.modified / 1_000_000_000), text(item.format),
                                              text(ChapterColumn.encode(item.chapters)), .int(file.size), .int(file.modified),
                                              .int(Int64(bitPattern: file.identity)), .int(picture ? 1 : 0)]
                    if let id = moves[file.path] {
                        try db.query("""
                            UPDATE items SET title = ?, artist = ?, album = ?, duration_us = ?, cover = ?, genre = ?, album_artist = ?,
                                track = ?, disc = ?, date = ?, modified = ?, format = ?, chapters = ?, size = ?, mtime_ns = ?,
                                identity = ?, picture = ?, local_path = ?
                            WHERE id = ?
                            """, values + [.text(file.path), .int(id)])
                    } else {
                        try db.query("""
                            INSERT INTO items (title, artist, album, duration_us, cover, genre, album_artist, track, disc, date,
                                               modified, format, chapters, size, mtime_ns, identity, picture, local_path, added_at)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            ON CONFLICT (local_path) DO UPDATE SET title = excluded.title, artist = excluded.artist,
                                album = excluded.album, duration_us = excluded.duration_us, cover = excluded.cover,
                                genre = excluded.genre, album_artist = excluded.album_artist, track = excluded.track,
                                disc = excluded.disc, date = excluded.date, modified = excluded.modified, format = excluded.format,
                                chapters = excluded.chapters, size = excluded.size, mtime_ns = excluded.mtime_ns,
                                identity = excluded.identity, picture = excluded.picture
                            """, values + [.text(file.path), .int(now)])
                    }
                    try db.query("DELETE FROM scan_problems WHERE path = ?", [.text(file.path)])
                case .unreadable(let reason):
                    try recordProblem(file.path, reason, size: file.size, modified: file.modified, now: now)
                }
            }
            try index(after: before)
            return Int(try db.scalar("SELECT count(*) FROM items WHERE id > ?", [.int(before)]).int ?? 0)
        }
    }

    /// A file (or folder) that could not be read or looked at; `size` and `modified` nil for what
    /// is looked at again by every scan (a folder that cannot be listed).
    private func recordProblem(_ path: String, _ reason: String, size: Int64?, modified: Int64?, now: Int64) throws {
        try db.query("INSERT OR REPLACE INTO scan_problems (path, reason, size, mtime_ns, seen_at) VALUES (?, ?, ?, ?, ?)",
                     [.text(path), .text(reason), size.map(SQLValue.int) ?? .null, modified.map(SQLValue.int) ?? .null, .int(now)])
    }

    /// The end of a scan, in one transaction: the folders listed whole, covers that changed,
    /// what could not be looked at, and what has gone. An item that has gone hands its history
    /// (position, plays, playlists, queue entries) to another with the same identity, which is
    /// the same file copied elsewhere before this one was removed (a move across file systems);
    /// then it leaves the library. Returns how many items left and how many handed on their history.
    func finishScan(_ plan: CollectionWalk.Plan) throws -> (removed: Int, handedOn: Int) {
        try db.transaction {
            let now = Library.now()
            for (path, folder) in plan.listed {
                try db.query("INSERT OR REPLACE INTO folders (path, mtime_ns, cover) VALUES (?, ?, ?)",
                             [.text(path), .int(folder.modified), text(folder.cover)])
            }
            for path in plan.goneFolders { try db.query("DELETE FROM folders WHERE path = ?", [.text(path)]) }
            for (folder, cover) in plan.coverChanged {
                let base = folder == "/" ? "" : folder
                try db.query("""
                    UPDATE items SET cover = ?1 WHERE local_path > ?2 AND local_path < ?3
                        AND instr(substr(local_path, length(?2) + 1), '/') = 0
                    """, [text(cover), .text(base + "/"), .text(base + "0")])
            }
            for path in plan.goneProblems { try db.query("DELETE FROM scan_problems WHERE path = ?", [.text(path)]) }
            for (path, reason) in plan.problems { try recordProblem(path, reason, size: nil, modified: nil, now: now) }
            var removed = 0, handedOn = 0
            for (_, file) in plan.gone {
                if try handOnHistory(of: file) { handedOn += 1 }
                try db.query("DELETE FROM items WHERE id = ?", [.int(file.id)])
                removed += db.changes
            }
            return (removed, handedOn)
        }
    }

    /// Gives a gone item's history to the newest present item with its identity; whether there was one.
    private func handOnHistory(of file: KnownFiles.File) throws -> Bool {
        guard let size = file.size, let identity = file.identity,
              let row = try db.query("""
                SELECT position_us, finished, play_count, last_played, time_saved_us, added_at,
                       EXISTS (SELECT 1 FROM playlist_items WHERE item_id = ?1), EXISTS (SELECT 1 FROM queue_entries WHERE item_id = ?1)
                FROM items WHERE id = ?1
                """, [.int(file.id)]).first else { return false }
        let hasHistory = (row[0].int ?? 0) > 0 || (row[2].int ?? 0) > 0 || row[6].int == 1 || row[7].int == 1 || (row[4].int ?? 0) > 0
        guard hasHistory else { return false }
        let candidates = try db.query("""
            SELECT id, local_path FROM items WHERE size = ? AND identity = ? AND id != ? AND local_path IS NOT NULL ORDER BY id DESC
            """, [.int(size), .int(Int64(bitPattern: identity)), .int(file.id)])
        guard let target = candidates.first(where: { $0[1].text.map { access($0, F_OK) == 0 } ?? false })?[0].int else { return false }
        try db.query("""
            UPDATE items SET position_us = CASE WHEN position_us = 0 THEN ?1 ELSE position_us END, finished = max(finished, ?2),
                play_count = play_count + ?3, last_played = max(coalesce(last_played, 0), coalesce(?4, 0)),
                time_saved_us = time_saved_us + ?5, added_at = min(added_at, ?6)
            WHERE id = ?7
            """, Array(row[0..<6]) + [.int(target)])
        try db.query("UPDATE playlist_items SET item_id = ? WHERE item_id = ?", [.int(target), .int(file.id)])
        try db.query("UPDATE queue_entries SET item_id = ? WHERE item_id = ?", [.int(target), .int(file.id)])
        return true
    }

    // MARK: Problems and scans under way

    /// Files and folders that could not be read, with why, in path order.
    public func scanProblems() throws -> [(path: String, reason: String)] {
        try db.query("SELECT path, reason FROM scan_problems ORDER BY path").compactMap { row in
            guard let path = row[0].text, let reason = row[1].text else { return nil }
            return (path, reason)
        }
    }

    /// Notes a scan as under way, so that one cut short (a crash, a kill) is gone on with at the next start.
    func beginScanJob(_ inputs: [String], rescan: Bool) throws -> Int64 {
        try db.transaction {
            let job = (try db.scalar("SELECT coalesce(max(job), 0) + 1 FROM scan_jobs").int) ?? 1
            for input in inputs {
                try db.query("INSERT INTO scan_jobs (job, input, rescan, started_at) VALUES (?, ?, ?, ?)",
                             [.int(job), .text(input), .int(rescan ? 1 : 0), .int(Library.now())])
            }
            return job
        }
    }

    func endScanJob(_ job: Int64) throws {
        try db.query("DELETE FROM scan_jobs WHERE job = ?", [.int(job)])
    }

    /// Scans that were under way when the daemon stopped, oldest first, taken: they are noted
    /// again when they run again.
    public func takeUnfinishedScans() throws -> [(inputs: [String], rescan: Bool)] {
        try db.transaction {
            var jobs: [(job: Int64, inputs: [String], rescan: Bool)] = []
            for row in try db.query("SELECT job, input, rescan FROM scan_jobs ORDER BY job, rowid") {
                guard let job = row[0].int, let input = row[1].text else { continue }
                if jobs.last?.job == job { jobs[jobs.count - 1].inputs.append(input) } else { jobs.append((job, [input], row[2].int == 1)) }
            }
            try db.execute("DELETE FROM scan_jobs")
            return jobs.map { ($0.inputs, $0.rescan) }
        }
    }
}
