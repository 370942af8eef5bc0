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
public struct TrackMetadata: Equatable, Sendable {
    public var title: String?
    public var artists: [String] = []
    public var albumArtists: [String] = []
    public var album: String?
    /// `xesam:genre`: bluez's AVRCP bridge and KDE read it.
    public var genres: [String] = []
    public var trackNumber: Int?
    public var length: MediaTime?
    public var artURL: String?
    /// What a live stream says plays now (ICY StreamTitle): shown, never stored.
    public var streamTitle: String?
    /// A live stream's station name (icy-name).
    public var station: String?

    public init(title: String? = nil, artists: [String] = [], albumArtists: [String] = [], album: String? = nil,
                genres: [String] = [], trackNumber: Int? = nil, length: MediaTime? = nil, artURL: String? = nil) {
        self.title = title
        self.artists = artists
        self.albumArtists = albumArtists
        self.album = album
        self.genres = genres
        self.trackNumber = trackNumber
        self.length = length
        self.artURL = artURL
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
        return ["mkv", "mp4", "m4v", "webm", "mov", "avi", "ogv", "mpg", "mpeg", "wmv", "flv", "ts"]
            .contains(path[path.index(after: dot)...].lowercased())
    }

    public var isRemote: Bool { Self.isRemote(uri) }

    /// Whether `uri` is http(s), whatever the case of its scheme.
    public static func isRemote(_ uri: String) -> Bool {
        let scheme = uri.prefix(8).lowercased()
        return scheme.hasPrefix("http://") || scheme.hasPrefix("https://")
    }

    /// The name to show when there is no title tag: the last path component, percent-decoded.
    public static func fallbackTitle(for uri: String) -> String {
        var path = Substring(uri)
        if let q = path.firstIndex(where: { $0 == "?" || $0 == "#" }), !uri.hasPrefix("file:") { path = path[..<q] }
        let last = path.split(separator: "/").last.map(String.init) ?? uri
        return URLParts.percentDecoded(last) ?? last
    }
}
