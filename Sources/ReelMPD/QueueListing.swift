import ReelCore

/// The queue entries a `playlistinfo` has still to write. A listing of thousands is written a
/// few hundred entries a step, between other clients' turns and MPRIS's calls, as a command list
/// is: one `playlistinfo` of 1,000 entries held the loop for over 100 ms in a debug build on a
/// busy machine, and one of 100,000 would hold it for seconds. It lists the queue as the command
/// found it (the entries array is shared, not copied, until the queue changes).
struct QueueListing: Equatable, Sendable {
    let entries: [QueueEntry]
    var positions: Range<Int>
    /// Entries written between looks at the clock.
    static let step = 100

    init(entries: [QueueEntry], positions: Range<Int>) {
        self.entries = entries
        self.positions = positions
    }
}
