/// What `idle` waits for, as MPD names it.
public enum Subsystem: String, CaseIterable, Sendable {
    case database, update, storedPlaylist = "stored_playlist", playlist, player, mixer, output, options
    case partition, sticker, subscription, message, neighbor, mount
}
