import ReelCore

/// Maps container tags (keys differ in case and spelling between formats) to metadata.
struct TagReader {
    private let tags: [String: String]

    init(_ raw: [String: String]) {
        var lowered: [String: String] = [:]
        for (key, value) in raw where !value.isEmpty { lowered[key.lowercased()] = value }
        tags = lowered
    }

    private func first(_ keys: String...) -> String? {
        keys.lazy.compactMap { tags[$0] }.first
    }

    func apply(to metadata: inout TrackMetadata) {
        metadata.title = first("title")
        if let artist = first("artist", "performer") { metadata.artists = [artist] }
        if let albumArtist = first("album_artist", "albumartist", "album artist") { metadata.albumArtists = [albumArtist] }
        metadata.album = first("album")
        metadata.genres = TrackMetadata.genres(fromTag: first("genre"))
        // "3/12" and "03" both mean track 3.
        if let track = first("track", "tracknumber"), let number = Int(track.prefix { $0.isNumber }) {
            metadata.trackNumber = number
        }
    }
}
