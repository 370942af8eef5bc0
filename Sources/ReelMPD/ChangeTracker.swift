import ReelCore

/// Turns what changed in the session (its snapshot and the engine's
/// announcements) into MPD's idle subsystems and queue versions.
struct ChangeTracker {
    /// MPD's `playlist:` number: grows with every change of the queue's entries, order or tags.
    private(set) var version: UInt64 = 1
    private var last: Snapshot
    private var lastIDs: [UInt64]
    private var lastRevision: UInt64
    /// A version was taken since the last `update`: clients in `idle playlist` are owed a wake-up.
    private var playlistChanged = false
    /// For `plchanges`: the lowest position each recent version changed, oldest first.
    private var history: [(version: UInt64, from: Int)] = []
    static let historyLimit = 256

    init(_ session: any Session) {
        last = session.snapshot
        lastIDs = session.queue.ids
        lastRevision = session.queue.revision
    }

    mutating func update(_ session: any Session, _ announcements: [Announcement], sessionChanged: Bool = true) -> Set<Subsystem> {
        // Nothing to compare: each `status` turn compared two copies of the session's state.
        guard sessionChanged || !announcements.isEmpty || playlistChanged else { return [] }
        let now = session.snapshot
        var changed = Set<Subsystem>()
        syncQueue(session)
        var from: Int?
        for case .trackMetadataChanged(let id) in announcements {
            if let i = session.queue.index(of: id) { from = min(from ?? i, i) }
        }
        if let from { bump(from) }
        if playlistChanged {
            playlistChanged = false
            changed.insert(.playlist)
        }
        // The current entry's id and tags, not all of it: its resume point moves every second.
        if now.status != last.status || now.current?.id != last.current?.id || now.current?.metadata != last.current?.metadata
            || now.lastError != last.lastError || now.chapter != last.chapter
            || announcements.contains(where: { if case .seeked = $0 { true } else { false } }) {
            changed.insert(.player)
        }
        if now.volume != last.volume { changed.insert(.mixer) }
        if now.loop != last.loop || now.stopAfter != last.stopAfter || now.consume != last.consume || now.shuffle != last.shuffle || now.replayGain != last.replayGain || now.rate != last.rate {
            changed.insert(.options)
        }
        last = now
        return changed
    }

    /// Brings the version up to the queue's entries and order: called before a
    /// command reads it (`status`, `plchanges`), so that a change made earlier in
    /// the same loop turn (or the same command list) is already counted.
    mutating func syncQueue(_ session: any Session) {
        let revision = session.queue.revision
        guard revision != lastRevision else { return }
        lastRevision = revision
        let ids = session.queue.ids
        if let from = Self.firstDifference(lastIDs, ids) { bump(from) }
        lastIDs = ids
    }

    private mutating func bump(_ from: Int) {
        version += 1
        history.append((version, from))
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        playlistChanged = true
    }

    /// The lowest queue position that changed after `old`; nil when nothing
    /// did; 0 when `old` is older than what is remembered (or from the future).
    func changedSince(_ old: UInt64) -> Int? {
        guard old < version else { return old == version ? nil : 0 }
        guard let oldest = history.first, oldest.version <= old + 1 else { return 0 }
        return history.filter { $0.version > old }.map(\.from).min()
    }

    /// The first index where the two differ; nil when they are equal.
    static func firstDifference(_ a: [UInt64], _ b: [UInt64]) -> Int? {
        let common = min(a.count, b.count)
        if let i = (0..<common).first(where: { a[$0] != b[$0] }) { return i }
        return a.count == b.count ? nil : common
    }
}
