import ReelCore
import ReelDBus

/// MPRIS metadata maps (`a{sv}`) for queue entries.
public enum MetadataMap {
    public static func of(_ entry: QueueEntry?) -> DBusValue {
        guard let entry else { return .vardict([("mpris:trackid", .objectPath(MPRIS.noTrack))]) }
        let m = entry.metadata
        var pairs: [(String, DBusValue)] = [
            ("mpris:trackid", .objectPath(TrackID.path(entry.id))),
            ("xesam:url", .string(entry.uri)),
            ("xesam:title", .string(m.title ?? QueueEntry.fallbackTitle(for: entry.uri))),
        ]
        if let length = m.length { pairs.append(("mpris:length", .int64(length))) }
        if !m.artists.isEmpty { pairs.append(("xesam:artist", .strings(m.artists))) }
        if !m.albumArtists.isEmpty { pairs.append(("xesam:albumArtist", .strings(m.albumArtists))) }
        if let album = m.album { pairs.append(("xesam:album", .string(album))) }
        if let track = m.trackNumber, let n = Int32(exactly: track) { pairs.append(("xesam:trackNumber", .int32(n))) }
        if let art = m.artURL { pairs.append(("mpris:artUrl", .string(art))) }
        return .vardict(pairs)
    }
}
