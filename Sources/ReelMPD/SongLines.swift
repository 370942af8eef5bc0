import ReelCore

/// The tags reel knows, by MPD's names, in the order MPD lists them.
public enum Tag: String, CaseIterable, Sendable {
    case artist = "Artist", album = "Album", albumArtist = "AlbumArtist", title = "Title", track = "Track"
    case name = "Name", genre = "Genre", date = "Date", disc = "Disc"

    /// A tag named by a client, in any case.
    init?(named name: String) {
        guard let tag = Tag.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = tag
    }

    /// Every tag MPD 0.23 knows, as MPD spells them: clients may enable or
    /// disable any of them (mpc does), and filter, list and group by them,
    /// though reel has no values for most.
    static let mpdNames = [
        "Artist", "ArtistSort", "Album", "AlbumSort", "AlbumArtist", "AlbumArtistSort", "Title", "TitleSort", "Track",
        "Name", "Genre", "Mood", "Date", "OriginalDate", "Composer", "ComposerSort", "Performer", "Conductor", "Work",
        "Ensemble", "Movement", "MovementNumber", "Location", "Grouping", "Comment", "Disc", "Label",
        "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID",
        "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID",
    ]
    /// MPD's spelling of a tag named in any case.
    static let mpdSpelling = Dictionary(uniqueKeysWithValues: mpdNames.map { ($0.lowercased(), $0) })

    /// The values a search, a sort or a `list` sees: as MPD does, AlbumArtist
    /// falls back to Artist for a song that has none (most files have none).
    func matchedValues(_ metadata: TrackMetadata) -> [String] {
        let own = values(metadata)
        return own.isEmpty && self == .albumArtist ? Tag.artist.values(metadata) : own
    }

    /// The tag's values for a track, as its song lines show them.
    func values(_ metadata: TrackMetadata) -> [String] {
        switch self {
        case .artist: return metadata.artists
        case .albumArtist: return metadata.albumArtists
        case .genre: return metadata.genres
        case .album, .title, .track, .name, .date, .disc:
            var values: [String] = []
            forEachValue(metadata) { values.append($0) }
            return values
        }
    }
}

/// A set of tags as bits: a song's lines ask whether it holds each tag, for every song of a
/// `playlistinfo` (a `Set<Tag>` hashed each tag's name, nine times a song).
public struct TagSet: OptionSet, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    init(_ tags: some Sequence<Tag>) {
        self = tags.reduce(into: []) { $0.insert($1.bit) }
    }

    public static let all = TagSet(Tag.allCases)
}

extension Tag {
    /// Its bit in a `TagSet`.
    var bit: TagSet {
        let index: UInt16 = switch self {
        case .artist: 0
        case .album: 1
        case .albumArtist: 2
        case .title: 3
        case .track: 4
        case .name: 5
        case .genre: 6
        case .date: 7
        case .disc: 8
        }
        return TagSet(rawValue: 1 << index)
    }
}

/// A tag as a client names it in a filter, `list`, a group or a sort: one
/// reel keeps, or one of MPD's that reel has no values for, which every song
/// has empty (so `find Date ""` finds every song, as MPD finds every song
/// without a date).
enum TagField: Equatable {
    case kept(Tag)
    case empty(String)

    /// Nil for a name MPD does not know either.
    init?(named name: String) {
        if let tag = Tag(named: name) {
            self = .kept(tag)
        } else if let spelling = Tag.mpdSpelling[name.lowercased()] {
            self = .empty(spelling)
        } else {
            return nil
        }
    }

    /// How MPD writes its name in replies.
    var name: String {
        switch self {
        case .kept(let tag): tag.rawValue
        case .empty(let spelling): spelling
        }
    }

    /// The values a search, a sort or a `list` sees.
    func matchedValues(_ metadata: TrackMetadata) -> [String] {
        switch self {
        case .kept(let tag): tag.matchedValues(metadata)
        case .empty: []
        }
    }

    /// As MPD lists a song without the tag: with an empty value.
    func listedValues(_ metadata: TrackMetadata) -> [String] {
        let values = matchedValues(metadata)
        return values.isEmpty ? [""] : values
    }

    /// The one value `listedValues` has, when it has one (most songs' tags), without making an array.
    func singleListedValue(_ metadata: TrackMetadata) -> String? {
        guard case .kept(let tag) = self else { return "" }
        func one(_ values: [String]) -> String? { values.count == 1 ? values[0] : values.isEmpty ? "" : nil }
        switch tag {
        case .artist: return one(metadata.artists)
        case .albumArtist:
            let own = metadata.albumArtists
            return own.isEmpty ? one(metadata.artists) : one(own)
        case .genre: return one(metadata.genres)
        case .album: return metadata.album ?? ""
        default: return one(tag.values(metadata))
        }
    }

    /// `listedValues` one at a time, without making an array: what `list` runs 10,000 times.
    func forEachListedValue(_ metadata: TrackMetadata, _ body: (String) -> Void) {
        guard case .kept(let tag) = self else { return body("") }
        var any = false
        tag.forEachValue(metadata) { any = true; body($0) }
        if !any, tag == .albumArtist { Tag.artist.forEachValue(metadata) { any = true; body($0) } }
        if !any { body("") }
    }
}

extension Tag {
    /// `values` one at a time, without making an array.
    func forEachValue(_ metadata: TrackMetadata, _ body: (String) -> Void) {
        switch self {
        case .artist, .albumArtist, .genre: for value in values(metadata) { body(value) }   // the stored arrays
        // One value at most, given without an array (10,000 songs a `playlistinfo`).
        case .album: if let album = metadata.album { body(album) }
        // A live stream's title is what plays now, as MPD shows it.
        case .title: if let title = metadata.streamTitle ?? metadata.title { body(title) }
        case .track: if let number = metadata.trackNumber { body(String(number)) }
        case .name: if let station = metadata.station { body(station) }
        case .date: if let date = metadata.date { body(date) }
        case .disc: if let disc = metadata.disc { body(String(disc)) }
        }
    }
}

enum SongLines {
    /// A local file's path (a file:// URI decoded), or the URL as it is.
    static func path(_ uri: String) -> String {
        // Bytes, not Characters, and no lowercased copy: `playlistinfo` runs this for every entry.
        let scheme = uri.utf8.prefix(7)
        guard scheme.count == 7, zip(scheme, "file://".utf8).allSatisfy({ $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) == $1 }) else {
            return uri
        }
        let afterScheme = uri.utf8.index(uri.startIndex, offsetBy: 7)
        let path = uri[afterScheme...].drop { $0 != "/" }
        return URLParts.percentDecoded(path) ?? String(path)
    }

    /// What MPD calls a song's `file`: its name in the database (relative to
    /// the music folder `root`) when it lies there, else a local file's
    /// absolute path (the Unix socket's client may queue any), or the URL.
    static func file(_ uri: String, root: String?) -> String {
        let local = path(uri)
        return LibraryTree.name(ofPath: local, root: root) ?? local
    }

    /// A song's lines: file, the tags the client asked for, its length (a queued song's place
    /// follows, from `MPDCommands.addQueueSongs`).
    /// `facts`: the database's facts of the song (Last-Modified, Format).
    /// `range`: the part of it that plays, whose length it shows, as MPD does.
    static func add(file: String, _ metadata: TrackMetadata, facts: SongFacts? = nil, range: PlayRange? = nil, tags: TagSet,
                    to reply: inout Reply) {
        reply.add("file", file)
        // In MPD's order: the file, its range, when it changed, its format, then the tags and the length.
        if let range {
            reply.add("Range", "\(Reply.seconds(range.start))-\(range.end.map(Reply.seconds) ?? "")")
        }
        if let modified = facts?.lastModified { reply.add("Last-Modified", modified) }
        if let format = facts?.format { reply.add("Format", format) }
        for tag in Tag.allCases where tags.contains(tag.bit) {
            tag.forEachValue(metadata) { reply.add(tag.rawValue, $0) }
        }
        if let length = PlayRange.playedLength(range, fileLength: metadata.length), length > 0 {
            reply.add("Time", (length + 500_000) / 1_000_000)
            reply.addSeconds("duration", length)
        }
    }
}

/// What the database knows of a song's file besides its tags, as its lines show it.
struct SongFacts {
    /// When the file last changed, in ISO 8601 (written once: a `playlistinfo` shows it for every song).
    let lastModified: String?
    /// As decoded: `44100:16:2`.
    let format: String?

    init(_ item: ProbedItem) {
        lastModified = item.modified.map(UTCTime.iso8601)
        format = item.format
    }
}

/// What a queue entry's lines take from its file, kept per entry: its name and its database facts
/// (for the item it had then).
struct QueueSong {
    let file: String
    let item: Int64?
    let facts: SongFacts?
}
