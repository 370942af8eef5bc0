import ReelCore
import ReelDBus

/// MPRIS metadata maps (`a{sv}`) for queue entries.
public enum MetadataMap {
    /// The Player's Metadata: the entry's, with the chapter heard (`reel:chapter`, its title;
    /// `reel:chapterNumber`, from 1). xesam:title stays the entry's.
    public static func of(_ entry: QueueEntry?, chapter: Int?) -> DBusValue {
        guard let entry else { return of(entry) }
        var pairs = self.pairs(entry)
        if let chapter, entry.metadata.chapters.indices.contains(chapter) {
            pairs.append(("reel:chapter", .string(entry.metadata.chapters[chapter].title)))
            pairs.append(("reel:chapterNumber", .int32(Int32(clamping: chapter + 1))))
        }
        return .vardict(pairs)
    }

    public static func of(_ entry: QueueEntry?) -> DBusValue {
        guard let entry else { return .vardict([("mpris:trackid", .objectPath(MPRIS.noTrack))]) }
        return .vardict(pairs(entry))
    }

    private static func pairs(_ entry: QueueEntry) -> [(String, DBusValue)] {
        var m = entry.metadata
        if let streamTitle = m.streamTitle {
            // ICY titles are "Artist - Title" by convention; a stream's own artist tag wins.
            if m.artists.isEmpty, let dash = streamTitle.firstRange(of: " - ") {
                m.artists = [String(streamTitle[..<dash.lowerBound])]
                m.title = String(streamTitle[dash.upperBound...])
            } else {
                m.title = streamTitle
            }
        }
        var pairs: [(String, DBusValue)] = [
            ("mpris:trackid", .objectPath(TrackID.path(entry.id))),
            ("xesam:url", .string(entry.uri)),
            ("xesam:title", .string(m.title ?? m.station ?? QueueEntry.fallbackTitle(for: entry.uri))),
        ]
        if let station = m.station { pairs.append(("reel:station", .string(station))) }
        if let length = m.length { pairs.append(("mpris:length", .int64(length))) }
        if !m.artists.isEmpty { pairs.append(("xesam:artist", .strings(m.artists))) }
        if !m.albumArtists.isEmpty { pairs.append(("xesam:albumArtist", .strings(m.albumArtists))) }
        if let album = m.album { pairs.append(("xesam:album", .string(album))) }
        if !m.genres.isEmpty { pairs.append(("xesam:genre", .strings(m.genres))) }
        if let track = m.trackNumber, let n = Int32(exactly: track) { pairs.append(("xesam:trackNumber", .int32(n))) }
        if let disc = m.disc, let n = Int32(exactly: disc) { pairs.append(("xesam:discNumber", .int32(n))) }
        if let art = m.artURL { pairs.append(("mpris:artUrl", .string(art))) }
        return pairs
    }
}
