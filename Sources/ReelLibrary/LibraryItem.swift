import ReelSQLite
import ReelCore

extension LibraryItem {
    static let columns = """
        id, title, artist, album, duration_us, cover, local_path, remote_url, position_us, finished, play_count, \
        last_played, added_at, genre, from_feed, album_artist, track, disc, date, modified, format, chapters, feed, \
        silences, time_saved_us
        """

    init(row: [SQLValue]) {
        var info = ProbedItem(title: row[1].text, artist: row[2].text, album: row[3].text, duration: row[4].int,
                              cover: row[5].text, localPath: row[6].text, remoteURL: row[7].text, genre: row[13].text,
                              fromFeed: row[14].int == 1, albumArtist: row[15].text, track: row[16].int.map(Int.init),
                              disc: row[17].int.map(Int.init), date: row[18].text, modified: row[19].int,
                              format: row[20].text)
        info.chapters = ChapterColumn.decode(row[21].text)
        info.feed = row[22].text
        info.silences = SilenceColumn.decode(row[23].text)
        self.init(id: row[0].int ?? 0, info: info, position: row[8].int ?? 0, finished: row[9].int == 1,
                  playCount: Int(row[10].int ?? 0), lastPlayed: row[11].int, addedAt: row[12].int ?? 0)
        timeSaved = row[24].int ?? 0
    }
}

extension ProbedItem {
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
                                       fromFeed: first.fromFeed || item.fromFeed, albumArtist: first.albumArtist ?? item.albumArtist,
                                       track: first.track ?? item.track, disc: first.disc ?? item.disc, date: first.date ?? item.date,
                                       modified: first.modified ?? item.modified, format: first.format ?? item.format)
                result[i].chapters = first.chapters.isEmpty ? item.chapters : first.chapters
                result[i].feed = first.feed ?? item.feed
                result[i].silences = first.silences ?? item.silences
                for key in keys { slot[key] = i }
            } else {
                for key in keys { slot[key] = result.count }
                result.append(item)
            }
        }
        return result
    }
}
