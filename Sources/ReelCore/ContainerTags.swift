/// Container tags as mpv and ffprobe report them (keys differ in case and
/// spelling between formats), read one way for both, so that a file probed
/// for the library and a file opened for playback describe it alike.
public struct ContainerTags: Sendable {
    private let tags: [String: String]

    public init(_ raw: [String: String]) { self.init(layers: [raw]) }

    /// Tags from several places (a file's streams, then its container); empty
    /// values are no tags, and a later layer wins over an earlier one.
    public init(layers: [[String: String]]) {
        var lowered: [String: String] = [:]
        for raw in layers {
            for (key, value) in raw where !value.isEmpty { lowered[key.lowercased()] = value }
        }
        tags = lowered
    }

    private func first(_ keys: String...) -> String? {
        keys.lazy.compactMap { tags[$0] }.first
    }

    public var title: String? { first("title") }
    /// The artist; a performer, then the album artist, when no artist is named.
    public var artist: String? { first("artist", "performer", "album_artist", "albumartist", "album artist") }
    public var albumArtist: String? { first("album_artist", "albumartist", "album artist") }
    public var album: String? { first("album") }
    /// The GENRE tag as found (several genres joined by ";").
    public var genre: String? { first("genre") }
    /// "3/12" and "03" both mean track 3.
    public var trackNumber: Int? { first("track", "tracknumber").flatMap(Self.leadingNumber) }
    /// "2/2" and "2" both mean disc 2.
    public var disc: Int? { first("disc", "discnumber", "disk").flatMap(Self.leadingNumber) }
    /// The date as found: a year, or a full date.
    public var date: String? { first("date", "year") }

    private static func leadingNumber(_ text: String) -> Int? { Int(text.prefix { $0.isNumber }) }

    public func apply(to metadata: inout TrackMetadata) {
        metadata.title = title
        if let artist { metadata.artists = [artist] }
        if let albumArtist { metadata.albumArtists = [albumArtist] }
        metadata.album = album
        metadata.genres = TrackMetadata.genres(fromTag: genre)
        if let trackNumber { metadata.trackNumber = trackNumber }
        if let disc { metadata.disc = disc }
        if let date { metadata.date = date }
    }
}
