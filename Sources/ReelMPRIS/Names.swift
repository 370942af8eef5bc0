import ReelCore

/// Bus names, paths and interface names reel uses.
public enum MPRIS {
    public static let busName = "org.mpris.MediaPlayer2.reel"
    public static let objectPath = "/org/mpris/MediaPlayer2"
    public static let root = "org.mpris.MediaPlayer2"
    public static let player = "org.mpris.MediaPlayer2.Player"
    public static let trackList = "org.mpris.MediaPlayer2.TrackList"
    public static let playlists = "org.mpris.MediaPlayer2.Playlists"
    public static let reel = "dev.reel.Daemon1"
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    /// Error names for reel's own failures.
    public static let errorNoSuchTrack = "dev.reel.Error.NoSuchTrack"
    public static let errorInvalidURI = "dev.reel.Error.InvalidUri"
    public static let errorNoSuchFile = "dev.reel.Error.NoSuchFile"
    public static let errorNoLibrary = "dev.reel.Error.NoLibrary"
    public static let errorNoSuchItem = "dev.reel.Error.NoSuchItem"
    public static let errorNoSuchPlaylist = "dev.reel.Error.NoSuchPlaylist"
}

/// MPRIS track ids: object paths outside /org/mpris, one per queue entry.
public enum TrackID {
    static let prefix = "/dev/reel/Track/"

    public static func path(_ id: EntryID) -> String { prefix + String(id.raw) }

    /// The entry id in a track-id path, or nil if the path is not one of ours.
    public static func entry(_ path: String) -> EntryID? {
        guard path.hasPrefix(prefix), let raw = UInt64(path.dropFirst(prefix.count)) else { return nil }
        return EntryID(raw)
    }
}
