import FoundationEssentials

// The library and the cache as control buses see them: plain values, made by
// ReelLibrary and ReelCache, shown by MPRIS (and the MPD protocol next) without
// knowing how they are stored.

/// One catalogue entry: a local file, a remote URL, or both. What describes
/// the media is in `info` (readable directly: `item.title`); the rest is
/// what reel learnt by playing it.
@dynamicMemberLookup
public struct LibraryItem: Equatable, Sendable {
    public var id: Int64
    public var info: ProbedItem
    /// Where playback stopped, in µs.
    public var position: MediaTime
    public var finished: Bool
    public var playCount: Int
    /// Unix seconds.
    public var lastPlayed: Int64?
    public var addedAt: Int64
    /// How much of it trimming silence has left out, over every play (µs).
    public var timeSaved: MediaTime = 0

    public init(id: Int64, info: ProbedItem, position: MediaTime = 0, finished: Bool = false, playCount: Int = 0,
                lastPlayed: Int64? = nil, addedAt: Int64 = 0) {
        self.id = id
        self.info = info
        self.position = position
        self.finished = finished
        self.playCount = playCount
        self.lastPlayed = lastPlayed
        self.addedAt = addedAt
    }

    public subscript<T>(dynamicMember field: KeyPath<ProbedItem, T>) -> T { info[keyPath: field] }

    /// The engine's view of the tags.
    public var metadata: TrackMetadata { info.metadata }
}

/// What describes an item: what probing a file finds, and what a library item keeps of it.
public struct ProbedItem: Equatable, Sendable {
    public var title: String?
    public var artist: String?
    public var album: String?
    public var duration: MediaTime?
    public var cover: String?
    public var localPath: String?
    public var remoteURL: String?
    /// The GENRE tag as found (several genres joined by ";").
    public var genre: String?
    /// Catalogued from a feed: an episode, which resumes whatever its length.
    public var fromFeed = false
    /// The tags MPD's clients read besides the common ones.
    public var albumArtist: String?
    public var track: Int?
    public var disc: Int?
    public var date: String?
    /// The file's modification time when it was imported (Unix seconds), for MPD's `Last-Modified`.
    public var modified: Int64?
    /// The audio as decoded: "44100:16:2", "48000:f:2" (rate, bits or f for floats, channels).
    public var format: String?
    /// The file's chapters (or its feed's), in order of start.
    public var chapters: [Chapter] = []
    /// The feed it was catalogued from, as `reel sync` was given it.
    public var feed: String?
    /// Its silences, once a scan looked for them (kept for trimming); nil before.
    public var silences: Silences?
    /// Where a feed's item keeps its chapters apart (Podcasting 2.0 `<podcast:chapters url=…>`):
    /// fetched when the feed is synced; not stored.
    public var chaptersURL: String?
    /// What was left out of its chapters, and why: for the sync's log; not stored.
    public var chapterProblems: [String] = []

    /// The engine's view of the tags.
    public var metadata: TrackMetadata {
        TrackMetadata(title: title, artists: artist.map { [$0] } ?? [], albumArtists: albumArtist.map { [$0] } ?? [],
                      album: album, genres: TrackMetadata.genres(fromTag: genre), trackNumber: track, disc: disc, date: date,
                      length: duration,
                      artURL: cover.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0).absoluteString : $0 },
                      chapters: chapters, silences: silences)
    }

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, duration: MediaTime? = nil,
                cover: String? = nil, localPath: String? = nil, remoteURL: String? = nil, genre: String? = nil,
                fromFeed: Bool = false, albumArtist: String? = nil, track: Int? = nil, disc: Int? = nil, date: String? = nil,
                modified: Int64? = nil, format: String? = nil) {
        self.modified = modified
        self.format = format
        self.genre = genre
        self.fromFeed = fromFeed
        self.albumArtist = albumArtist
        self.track = track
        self.disc = disc
        self.date = date
        self.title = title
        self.artist = artist
        self.album = album
        self.duration = duration
        self.cover = cover
        self.localPath = localPath
        self.remoteURL = remoteURL
    }
}

/// A stored playlist.
public struct PlaylistInfo: Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var count: Int
    public var createdAt: Int64
    public init(id: Int64, name: String, count: Int, createdAt: Int64) {
        self.id = id
        self.name = name
        self.count = count
        self.createdAt = createdAt
    }
}

/// What an import or a scan of the collection did.
public struct ImportSummary: Equatable, Sendable {
    public var added = 0
    /// Already in the library and unchanged (not read again).
    public var known = 0
    /// Read again because they changed.
    public var updated = 0
    /// Found at a new place with their history (the item moved with the file).
    public var moved = 0
    /// Gone from disk, and so from the library.
    public var removed = 0
    /// Files that could not be read before and have not changed since (listed by `LibraryProblems`).
    public var standingProblems = 0
    /// Files not taken for media by their names (pictures, text, playlists), by extension.
    public var ignored: [String: Int] = [:]
    /// (path or URL, why it was skipped), each new one once.
    public var problems: [(String, String)] = []

    public init(problems: [(String, String)] = []) { self.problems = problems }

    public static func == (a: ImportSummary, b: ImportSummary) -> Bool {
        a.added == b.added && a.known == b.known && a.updated == b.updated && a.moved == b.moved && a.removed == b.removed
            && a.standingProblems == b.standingProblems && a.ignored == b.ignored
            && a.problems.map(\.0) == b.problems.map(\.0) && a.problems.map(\.1) == b.problems.map(\.1)
    }

    /// Whether the library's catalogue is other than before.
    public var changedCatalogue: Bool { added + updated + moved + removed > 0 }
}

/// One row of `reel cache ls`.
public struct CacheEntry: Equatable, Sendable {
    public var url: String
    public var length: Int64?
    public var present: Int64
    /// Seconds since 1970.
    public var lastRead: Int64
    /// The file in the media store, once downloaded.
    public var downloaded: String?
    public init(url: String, length: Int64?, present: Int64, lastRead: Int64, downloaded: String?) {
        self.url = url
        self.length = length
        self.present = present
        self.lastRead = lastRead
        self.downloaded = downloaded
    }
}

/// What `Sync` did: items new to the library, items it knew, URLs now downloading.
public struct SyncOutcome: Sendable {
    public var added: Int
    public var known: Int
    public var downloading: [String]
    public init(added: Int, known: Int, downloading: [String]) {
        self.added = added
        self.known = known
        self.downloading = downloading
    }
}
