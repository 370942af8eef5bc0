import FoundationEssentials
import Glibc
import ReelSQLite
import ReelCore

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

    public subscript<T>(dynamicMember field: KeyPath<ProbedItem, T>) -> T { info[keyPath: field] }

    static let columns = """
        id, title, artist, album, duration_us, cover, local_path, remote_url, position_us, finished, play_count, \
        last_played, added_at, genre, from_feed
        """

    init(row: [SQLValue]) {
        id = row[0].int ?? 0
        info = ProbedItem(title: row[1].text, artist: row[2].text, album: row[3].text, duration: row[4].int,
                          cover: row[5].text, localPath: row[6].text, remoteURL: row[7].text, genre: row[13].text,
                          fromFeed: row[14].int == 1)
        position = row[8].int ?? 0
        finished = row[9].int == 1
        playCount = Int(row[10].int ?? 0)
        lastPlayed = row[11].int
        addedAt = row[12].int ?? 0
    }

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

    /// One item per local path or remote URL, later duplicates filling blanks of the first.
    static func merged(_ items: [ProbedItem]) -> [ProbedItem] {
        var result: [ProbedItem] = []
        var slot: [String: Int] = [:]
        for item in items {
            let keys = [item.localPath.map { "f:" + $0 }, item.remoteURL.map { "u:" + $0 }].compactMap { $0 }
            if let i = keys.lazy.compactMap({ slot[$0] }).first {
                let first = result[i]
                result[i] = ProbedItem(title: first.title ?? item.title, artist: first.artist ?? item.artist,
                                       album: first.album ?? item.album, duration: first.duration ?? item.duration,
                                       cover: first.cover ?? item.cover, localPath: first.localPath ?? item.localPath,
                                       remoteURL: first.remoteURL ?? item.remoteURL, genre: first.genre ?? item.genre,
                                       fromFeed: first.fromFeed || item.fromFeed)
                for key in keys { slot[key] = i }
            } else {
                for key in keys { slot[key] = result.count }
                result.append(item)
            }
        }
        return result
    }

    /// The engine's view of the tags.
    public var metadata: TrackMetadata {
        TrackMetadata(title: title, artists: artist.map { [$0] } ?? [], album: album,
                      genres: TrackMetadata.genres(fromTag: genre), length: duration,
                      artURL: cover.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0).absoluteString : $0 })
    }

    public init(title: String? = nil, artist: String? = nil, album: String? = nil, duration: MediaTime? = nil,
                cover: String? = nil, localPath: String? = nil, remoteURL: String? = nil, genre: String? = nil,
                fromFeed: Bool = false) {
        self.genre = genre
        self.fromFeed = fromFeed
        self.title = title
        self.artist = artist
        self.album = album
        self.duration = duration
        self.cover = cover
        self.localPath = localPath
        self.remoteURL = remoteURL
    }
}
