import ReelCore

/// What `Tracks` lists. MPRIS lets a player with a long track list show a
/// window of it around the current track; reel lists the whole queue up to
/// `size` entries, and beyond that `size` entries from a little before the
/// current one. GetTracksMetadata takes any entry's id, and reel's
/// `QueuePage` pages through the whole queue.
enum TrackWindow {
    static let size = 1000
    /// How many entries before the current one the window shows.
    static let before = 100

    static func ids(_ queue: Queue) -> [EntryID] {
        guard queue.count > size else { return queue.entries.map(\.id) }
        let current = queue.currentID.flatMap(queue.index(of:)) ?? 0
        let start = min(max(current - before, 0), queue.count - size)
        return queue.entries[start..<start + size].map(\.id)
    }
}
