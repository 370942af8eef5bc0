/// The play queue: entries in track-list order, the current entry, and, while
/// shuffle is on, a permutation that gives the play order.
public struct Queue: Equatable, Sendable {
    public private(set) var entries: [QueueEntry] = []
    public private(set) var currentID: EntryID?
    /// The play order while shuffle is on; nil while it is off.
    public private(set) var shuffleOrder: [EntryID]?
    private var nextRawID: UInt64 = 1
    /// Changes whenever the entries or the play order change (not their metadata).
    public private(set) var revision: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var current: QueueEntry? { currentID.flatMap { self[$0] } }
    public var playOrder: [EntryID] { shuffleOrder ?? entries.map(\.id) }

    public subscript(id: EntryID) -> QueueEntry? {
        entries.first { $0.id == id }
    }

    public func index(of id: EntryID) -> Int? { entries.firstIndex { $0.id == id } }

    /// Inserts new entries after `after` (nil: at the end, or at the start
    /// with `atStart`). Returns them with their new ids.
    @discardableResult
    public mutating func insert(_ new: [NewEntry], after: EntryID? = nil, atStart: Bool = false,
                                rng: inout SplitMix64) -> [QueueEntry] {
        revision += 1
        let added = new.map { n -> QueueEntry in
            defer { nextRawID += 1 }
            var metadata = n.metadata ?? TrackMetadata()
            metadata.title = metadata.title ?? QueueEntry.fallbackTitle(for: n.uri)
            return QueueEntry(id: EntryID(nextRawID), uri: n.uri, metadata: metadata, itemID: n.itemID,
                              resumeAt: n.resumeAt)
        }
        var position = entries.endIndex
        if atStart { position = 0 } else if let after, let i = index(of: after) { position = i + 1 }
        entries.insert(contentsOf: added, at: position)
        if var order = shuffleOrder {
            // New entries go to random places among the ones not yet played.
            let floor = currentID.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            for entry in added {
                order.insert(entry.id, at: Int.random(in: floor...order.count, using: &rng))
            }
            shuffleOrder = order
        }
        return added
    }

    /// Removes an entry. The caller decides what plays instead when it was current.
    @discardableResult
    public mutating func remove(_ id: EntryID) -> QueueEntry? {
        revision += 1
        guard let i = index(of: id) else { return nil }
        let removed = entries.remove(at: i)
        shuffleOrder?.removeAll { $0 == id }
        if currentID == id { currentID = nil }
        return removed
    }

    public mutating func removeAll() {
        revision += 1
        entries.removeAll()
        currentID = nil
        if shuffleOrder != nil { shuffleOrder = [] }
    }

    public mutating func setCurrent(_ id: EntryID?) {
        precondition(id == nil || self[id!] != nil, "current entry must be in the queue")
        currentID = id
    }

    public mutating func update(_ id: EntryID, _ change: (inout QueueEntry) -> Void) {
        guard let i = index(of: id) else { return }
        change(&entries[i])
    }

    /// Inserts bare URIs (tests and callers without a library).
    @discardableResult
    public mutating func insert(uris: [String], after: EntryID? = nil, atStart: Bool = false,
                                rng: inout SplitMix64) -> [QueueEntry] {
        insert(uris.map { NewEntry(uri: $0) }, after: after, atStart: atStart, rng: &rng)
    }

    /// Restores a stored shuffle order; ignored unless it is a permutation of the entries.
    public mutating func restoreShuffleOrder(_ order: [EntryID]) {
        revision += 1
        guard Set(order) == Set(entries.map(\.id)), order.count == entries.count else { return }
        shuffleOrder = order
    }

    /// Turns shuffle on (a fresh permutation with the current entry first, so
    /// that everything else is still ahead) or off.
    public mutating func setShuffle(_ on: Bool, rng: inout SplitMix64) {
        revision += 1
        guard on else { shuffleOrder = nil; return }
        var rest = entries.map(\.id).filter { $0 != currentID }
        rest.shuffle(using: &rng)
        shuffleOrder = (currentID.map { [$0] } ?? []) + rest
    }

    /// The entry after `id` in play order; with `wrap`, the first after the last.
    public func entry(after id: EntryID, wrap: Bool) -> EntryID? {
        neighbour(of: id, step: 1, wrap: wrap)
    }

    /// The entry before `id` in play order; with `wrap`, the last before the first.
    public func entry(before id: EntryID, wrap: Bool) -> EntryID? {
        neighbour(of: id, step: -1, wrap: wrap)
    }

    private func neighbour(of id: EntryID, step: Int, wrap: Bool) -> EntryID? {
        // Without shuffle the play order is the entries themselves: no copy of the ids.
        if let order = shuffleOrder { return Queue.neighbour(in: order, at: order.firstIndex(of: id), step, wrap) }
        return Queue.neighbour(in: entries, at: index(of: id), step, wrap)?.id
    }

    private static func neighbour<T>(in order: [T], at index: Int?, _ step: Int, _ wrap: Bool) -> T? {
        guard let i = index else { return nil }
        let j = i + step
        if order.indices.contains(j) { return order[j] }
        guard wrap, !order.isEmpty else { return nil }
        return order[(j + order.count) % order.count]
    }
}
