import FoundationEssentials
import Glibc

/// A queue entry's identity. Assigned when the entry is added and never reused,
/// so the same file queued twice has two ids.
public struct EntryID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt64
    public init(_ raw: UInt64) { self.raw = raw }
    public static func < (a: EntryID, b: EntryID) -> Bool { a.raw < b.raw }
    public var description: String { String(raw) }
}

/// What is known about a track: from the URI at first, from tags once loaded.
///
/// A value type over one immutable box: a queue entry holds 8 bytes of it,
/// and the entries of one file share the box their tags arrived in (a
/// 100,000-entry queue would otherwise hold 136 bytes an entry inline).
/// A change makes a new box.
public struct TrackMetadata: Equatable, Sendable {
    struct Fields: Equatable, Sendable {
        var title: String?
        var artists: [String] = []
        var albumArtists: [String] = []
        var album: String?
        var genres: [String] = []
        var trackNumber: Int?
        var disc: Int?
        var date: String?
        var length: MediaTime?
        var artURL: String?
        var streamTitle: String?
        var station: String?
        var chapters: [Chapter] = []
        var silences: Silences?
    }

    private final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
        static let empty = Box(Fields())
    }

    private var box: Box

    // Written through a key path; the getters below read their field straight from the box: through
    // this subscript, each read copied all the fields, retains and all (0.6 µs a song in a `find`).
    private subscript<T>(field: WritableKeyPath<Fields, T>) -> T {
        get { box.fields[keyPath: field] }
        set {
            var fields = box.fields
            fields[keyPath: field] = newValue
            box = Box(fields)
        }
    }

    public var title: String? { get { box.fields.title } set { self[\.title] = newValue } }
    public var artists: [String] { get { box.fields.artists } set { self[\.artists] = newValue } }
    public var albumArtists: [String] { get { box.fields.albumArtists } set { self[\.albumArtists] = newValue } }
    public var album: String? { get { box.fields.album } set { self[\.album] = newValue } }
    /// `xesam:genre`: bluez's AVRCP bridge and KDE read it.
    public var genres: [String] { get { box.fields.genres } set { self[\.genres] = newValue } }
    public var trackNumber: Int? { get { box.fields.trackNumber } set { self[\.trackNumber] = newValue } }
    /// The disc of a set (DISCNUMBER), for MPD's `Disc`.
    public var disc: Int? { get { box.fields.disc } set { self[\.disc] = newValue } }
    /// The DATE tag as found ("1976", "1976-10-11"), for MPD's `Date`.
    public var date: String? { get { box.fields.date } set { self[\.date] = newValue } }
    public var length: MediaTime? { get { box.fields.length } set { self[\.length] = newValue } }
    public var artURL: String? { get { box.fields.artURL } set { self[\.artURL] = newValue } }
    /// What a live stream says plays now (ICY StreamTitle): shown, never stored.
    public var streamTitle: String? { get { box.fields.streamTitle } set { self[\.streamTitle] = newValue } }
    /// A live stream's station name (icy-name).
    public var station: String? { get { box.fields.station } set { self[\.station] = newValue } }
    /// The file's chapters, or its feed's, in order of start (see `Chapter.normalized`).
    public var chapters: [Chapter] { get { box.fields.chapters } set { self[\.chapters] = newValue } }
    /// The file's silences, once a scan looked for them (none found: empty); nil before.
    public var silences: Silences? { get { box.fields.silences } set { self[\.silences] = newValue } }

    public init(title: String? = nil, artists: [String] = [], albumArtists: [String] = [], album: String? = nil,
                genres: [String] = [], trackNumber: Int? = nil, disc: Int? = nil, date: String? = nil,
                length: MediaTime? = nil, artURL: String? = nil, chapters: [Chapter] = [], silences: Silences? = nil) {
        let fields = Fields(title: title, artists: artists, albumArtists: albumArtists, album: album, genres: genres,
                            trackNumber: trackNumber, disc: disc, date: date, length: length, artURL: artURL,
                            chapters: chapters, silences: silences)
        box = fields == Fields() ? Box.empty : Box(fields)
    }

    /// Whether both are the same box: then they are equal without comparing fields.
    public func sharesStorage(with other: TrackMetadata) -> Bool { box === other.box }

    public static func == (a: TrackMetadata, b: TrackMetadata) -> Bool {
        a.box === b.box || a.box.fields == b.box.fields
    }
}

extension TrackMetadata {
    /// A GENRE tag's genres: several are joined by ";" (as mpv and ffprobe give Vorbis comments) or "/".
    public static func genres(fromTag tag: String?) -> [String] {
        (tag ?? "").split(whereSeparator: { $0 == ";" || $0 == "\0" })
            .map { $0.trimmed() }.filter { !$0.isEmpty }
    }
}

/// One entry of the play queue.
public struct QueueEntry: Equatable, Sendable {
    public let id: EntryID
    /// A `file://`, `http://` or `https://` URI.
    public let uri: String
    public var metadata: TrackMetadata
    /// Why the last attempt to play this entry failed, if it did.
    public var lastError: String?
    /// The library item behind the entry; nil when there is no library.
    public var itemID: Int64?
    /// Where to start next time, in µs.
    public var resumeAt: MediaTime
    /// Worth resuming whatever its length: a feed's episode, a video.
    public var prefersResume: Bool
    /// The part of it that plays; nil: all of it. Stored with the queue.
    public var range: PlayRange?
    /// Its feed's settings (rate, skips, voice boost); from the library, not stored with the queue.
    public var episode = EpisodeSettings.none

    public init(id: EntryID, uri: String, metadata: TrackMetadata, lastError: String? = nil, itemID: Int64? = nil,
                resumeAt: MediaTime = 0, prefersResume: Bool = false) {
        self.id = id
        self.uri = uri
        self.metadata = metadata
        self.lastError = lastError
        self.itemID = itemID
        self.resumeAt = resumeAt
        self.prefersResume = prefersResume
    }

    /// Whether `uri` names a video container by its extension (a film resumes, whatever its length).
    public static func looksLikeVideo(_ uri: String) -> Bool {
        var path = Substring(uri)
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }), !uri.hasPrefix("file:") { path = path[..<cut] }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return MediaExtension.video.contains(path[path.index(after: dot)...].lowercased())
    }

    public var isRemote: Bool { URLParts.isRemote(uri) }

    /// Where it starts and ends when it starts from `resume`: its range, less its feed's intro and outro.
    public func bounds(from resume: MediaTime) -> (start: MediaTime, end: MediaTime?) {
        (episode.start(from: resume, length: metadata.length), episode.end(length: metadata.length, rangeEnd: range?.end))
    }

    /// How long it plays: its range's length, or the file's.
    public var playedLength: MediaTime? { PlayRange.playedLength(range, fileLength: metadata.length) }

    /// The title tag, else the name of the file.
    public var displayTitle: String { metadata.title ?? Self.fallbackTitle(for: uri) }

    /// The name to show when there is no title tag: the last path component, percent-decoded.
    public static func fallbackTitle(for uri: String) -> String {
        var path = Substring(uri)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }), !uri.hasPrefix("file:") { path = path[..<q] }
        let last = path.split(separator: "/").last.map(String.init) ?? uri
        return URLParts.percentDecoded(last) ?? last
    }
}
