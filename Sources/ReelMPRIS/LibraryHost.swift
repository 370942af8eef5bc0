import ReelCore

/// What the adapter needs from the daemon for the library and playlists.
/// Every call happens on the loop thread; `importItems` calls back there too.
public protocol LibraryHost: AnyObject {
    func libraryItems(matching query: String, offset: Int, limit: Int) throws -> [LibraryItem]
    func libraryItem(_ id: Int64) throws -> LibraryItem?
    func removeLibraryItem(_ id: Int64) throws -> Bool
    func forgetPosition(_ id: Int64) throws -> Bool
    /// Queues the items and plays the first; returns how many were queued.
    func playLibraryItems(_ items: [LibraryItem]) -> Int
    /// Starts an import off the loop; `progress` and `done` are called on the loop.
    func importItems(_ inputs: [String], progress: @escaping (Int, Int) -> Void,
                     done: @escaping (ImportSummary) -> Void) throws
    func savePlaylist(_ name: String) throws -> Int
    /// Replaces the queue with the playlist; nil if there is no such playlist.
    func loadPlaylist(id: Int64) throws -> Int?
    func playlists() throws -> [PlaylistInfo]
    var activePlaylist: PlaylistInfo? { get }
}
