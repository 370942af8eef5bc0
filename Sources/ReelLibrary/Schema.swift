/// The library's schema, as forward migrations. Migration N takes a
/// database from user_version N-1 to N; each runs in one transaction.
enum Schema {
    static let applicationID: Int64 = 0x7265_656C   // "reel"

    static let migrations: [String] = [
        // 1: items with full-text search, the queue, settings, playlists.
        // New items are indexed by Library.add/addAll in one statement per batch
        // (a per-row trigger capped bulk insertion near 19,000 items/s on the bench
        // machine; batched, 55,000). Prefix indexes for 3 to 8 characters make a
        // query word that is a prefix of a common word ("artist" in 100,000 items)
        // take 2-3 ms instead of 12 ms, for about half the insertion rate.
        """
        CREATE TABLE items (
            id INTEGER PRIMARY KEY,
            title TEXT, artist TEXT, album TEXT,
            duration_us INTEGER,
            cover TEXT,
            local_path TEXT UNIQUE,
            remote_url TEXT UNIQUE,
            position_us INTEGER NOT NULL DEFAULT 0,
            finished INTEGER NOT NULL DEFAULT 0,
            play_count INTEGER NOT NULL DEFAULT 0,
            last_played INTEGER,
            added_at INTEGER NOT NULL
        );
        CREATE VIRTUAL TABLE items_fts USING fts5(
            title, artist, album, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2',
            prefix='3 4 5 6 7 8');
        CREATE TRIGGER items_ad AFTER DELETE ON items BEGIN
            INSERT INTO items_fts(items_fts, rowid, title, artist, album)
                VALUES ('delete', old.id, old.title, old.artist, old.album);
        END;
        CREATE TRIGGER items_au AFTER UPDATE OF title, artist, album ON items
        WHEN old.title IS NOT new.title OR old.artist IS NOT new.artist OR old.album IS NOT new.album BEGIN
            INSERT INTO items_fts(items_fts, rowid, title, artist, album)
                VALUES ('delete', old.id, old.title, old.artist, old.album);
            INSERT INTO items_fts(rowid, title, artist, album) VALUES (new.id, new.title, new.artist, new.album);
        END;
        CREATE TABLE queue (
            position INTEGER PRIMARY KEY,
            item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
            shuffle_rank INTEGER
        );
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE playlists (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE playlist_items (
            playlist_id INTEGER NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
            PRIMARY KEY (playlist_id, position)
        );
        """,
        // 2: the queue by entry: each row is one queue entry, kept under the id
        // clients know it by, with its place (rank, shuffle key) and its URI, and
        // its item when it has one, so that a change writes only its own rows and
        // an entry is kept even when its item could not be made (a full disk).
        """
        CREATE TABLE queue_entries (
            id INTEGER PRIMARY KEY,
            rank INTEGER NOT NULL,
            shuffle_key INTEGER NOT NULL DEFAULT 0,
            item_id INTEGER REFERENCES items(id) ON DELETE SET NULL,
            uri TEXT NOT NULL
        );
        CREATE INDEX queue_entries_without_item ON queue_entries(id) WHERE item_id IS NULL;
        INSERT INTO queue_entries (id, rank, shuffle_key, item_id, uri)
            SELECT q.position + 1, (q.position + 1) * 4294967296, (coalesce(q.shuffle_rank, -1) + 1) * 4294967296, q.item_id,
                   coalesce('file://' || i.local_path, i.remote_url, '')
            FROM queue q JOIN items i ON i.id = q.item_id;
        UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key = 'current' AND value != '';
        INSERT OR REPLACE INTO settings (key, value)
            SELECT 'next_entry', coalesce(max(id), 0) + 1 FROM queue_entries;
        DROP TABLE queue;
        """,
        // 3: the genre tag (as found, several joined by ";"), for xesam:genre; and whether
        // the item came from a feed (an episode resumes, whatever its length).
        """
        ALTER TABLE items ADD COLUMN genre TEXT;
        ALTER TABLE items ADD COLUMN from_feed INTEGER NOT NULL DEFAULT 0;
        """,
        // 4: the tags MPD's clients group and sort by (album artist, track, disc, date),
        // and what they show of a song (the file's modification time, the audio format).
        // Items imported before have none until imported again (MPD's `update` does).
        """
        ALTER TABLE items ADD COLUMN album_artist TEXT;
        ALTER TABLE items ADD COLUMN track INTEGER;
        ALTER TABLE items ADD COLUMN disc INTEGER;
        ALTER TABLE items ADD COLUMN date TEXT;
        ALTER TABLE items ADD COLUMN modified INTEGER;
        ALTER TABLE items ADD COLUMN format TEXT;
        """,
        // 5: the part of a queue entry that plays (MPD's `rangeid`), in µs; NULL: from the
        // start, to the end.
        """
        ALTER TABLE queue_entries ADD COLUMN range_start INTEGER;
        ALTER TABLE queue_entries ADD COLUMN range_end INTEGER;
        """,
        // 6: a version of the catalogue (which items there are, and their tags and places), for a
        // bus that keeps what it built from them (MPD's database tree). It does not move with saved
        // positions and play counts, which change every few seconds of playback. Library.index
        // moves it for new items, in one statement per batch.
        """
        CREATE TABLE catalogue (version INTEGER NOT NULL);
        INSERT INTO catalogue VALUES (0);
        CREATE TRIGGER items_catalogue_ad AFTER DELETE ON items BEGIN
            UPDATE catalogue SET version = version + 1;
        END;
        CREATE TRIGGER items_catalogue_au AFTER UPDATE OF title, artist, album, duration_us, cover, local_path, remote_url, genre, from_feed,
            album_artist, track, disc, date, modified, format ON items
        WHEN old.title IS NOT new.title OR old.artist IS NOT new.artist OR old.album IS NOT new.album OR
            old.duration_us IS NOT new.duration_us OR old.cover IS NOT new.cover OR
            old.local_path IS NOT new.local_path OR old.remote_url IS NOT new.remote_url OR
            old.genre IS NOT new.genre OR old.from_feed IS NOT new.from_feed OR
            old.album_artist IS NOT new.album_artist OR old.track IS NOT new.track OR old.disc IS NOT new.disc OR
            old.date IS NOT new.date OR old.modified IS NOT new.modified OR old.format IS NOT new.format BEGIN
            UPDATE catalogue SET version = version + 1;
        END;
        """,
        // 7: chapters (ChapterColumn), from ffprobe at import and from playback, so that the queue
        // shows them before an entry plays.
        """
        ALTER TABLE items ADD COLUMN chapters TEXT;
        """,
        // 8: the feed an episode came from (as `reel sync` was given it), and each feed's settings
        // for its episodes (`reel feed set`): rate (NULL: the session's), skips in µs, voice boost.
        """
        ALTER TABLE items ADD COLUMN feed TEXT;
        CREATE INDEX items_feed ON items(feed) WHERE feed IS NOT NULL;
        CREATE TABLE feed_settings (
            feed TEXT PRIMARY KEY,
            rate REAL,
            skip_intro_us INTEGER NOT NULL DEFAULT 0,
            skip_outro_us INTEGER NOT NULL DEFAULT 0,
            voice_boost INTEGER NOT NULL DEFAULT 0
        );
        """,
        // 9: trimming silence: each item's silences (SilenceColumn, from a scan), how much trimming
        // has saved of it, and whether a feed's episodes trim.
        """
        ALTER TABLE items ADD COLUMN silences TEXT;
        ALTER TABLE items ADD COLUMN time_saved_us INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE feed_settings ADD COLUMN trim INTEGER NOT NULL DEFAULT 0;
        """,
        // 10: the collection as MPD keeps it, scanned incrementally (CollectionScan): each file's size,
        // modification time (ns) and identity (FileIdentity: the hash that follows a file that moved),
        // whether a picture is embedded; each folder's time when its listing was last read whole and the
        // cover found in it; the files that could not be read, with why, so that an unchanged one is not
        // read again; and the scans under way, so that one cut short goes on at the next start.
        """
        ALTER TABLE items ADD COLUMN size INTEGER;
        ALTER TABLE items ADD COLUMN mtime_ns INTEGER;
        ALTER TABLE items ADD COLUMN identity INTEGER;
        ALTER TABLE items ADD COLUMN picture INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX items_identity ON items(size, identity) WHERE identity IS NOT NULL;
        CREATE TABLE folders (path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, cover TEXT) WITHOUT ROWID;
        CREATE TABLE scan_problems (
            path TEXT PRIMARY KEY,
            reason TEXT NOT NULL,
            size INTEGER,
            mtime_ns INTEGER,
            seen_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE scan_jobs (job INTEGER NOT NULL, input TEXT NOT NULL, rescan INTEGER NOT NULL, started_at INTEGER NOT NULL);
        """,
    ]

    static var version: Int64 { Int64(migrations.count) }
}
