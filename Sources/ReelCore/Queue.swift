/// The play queue: entries in track-list order, the current entry, and, while
/// shuffle is on, the play order.
///
/// Built for long queues (100,000 entries): every entry has a rank, increasing
/// along the track list, and while shuffle is on a shuffle key, increasing
/// along the play order; finding an entry, its neighbours or its place is a
/// binary search, and a change touches only the entries it concerns (plus a
/// memmove). Ranks and keys are what the store keeps, so a change writes
/// only its own rows (`takeChanges`).
public struct Queue: Sendable {
    /// In track-list order, ranks increasing.
    public private(set) var entries: [QueueEntry] = []
    private var ranks: [EntryID: Int64] = [:]
    public private(set) var currentID: EntryID?
    /// The play order while shuffle is on (keys increasing); nil while it is off.
    private var shuffled: [Slot]?
    private var nextRawID: UInt64 = 1
    /// Changes whenever the entries or the play order change (not their metadata).
    public private(set) var revision: UInt64 = 0
    private var changes = QueueChanges()

    /// The distance between neighbouring ranks and keys when they are laid out afresh.
    static let spacing: Int64 = 1 << 32

    struct Slot: Sendable {
        var key: Int64
        var id: EntryID
    }

    public init() {}

    /// The queue as stored: entries with their ids, ranks and shuffle keys.
    public init(restoring stored: [QueueEntry], current: EntryID?, nextID: UInt64, shuffle: Bool) {
        entries = stored.sorted { $0.rank < $1.rank }
        for entry in entries { ranks[entry.id] = entry.rank }
        nextRawID = max(nextID, (entries.map(\.id.raw).max() ?? 0) + 1)
        currentID = current.flatMap { ranks[$0] != nil ? $0 : nil }
        if shuffle {
            let order = entries.map { Slot(key: $0.shuffleKey, id: $0.id) }.sorted { $0.key < $1.key }
            // Keys that do not order every entry (an older store) leave shuffle to be laid out afresh.
            if zip(order, order.dropFirst()).allSatisfy({ $0.key < $1.key }) { shuffled = order }
        }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var current: QueueEntry? { currentID.flatMap { self[$0] } }
    public var isShuffled: Bool { shuffled != nil }
    /// The next id an entry will get (ids are never reused, also across restarts).
    public var nextID: UInt64 { nextRawID }

    public subscript(id: EntryID) -> QueueEntry? {
        index(of: id).map { entries[$0] }
    }

    public func index(of id: EntryID) -> Int? {
        guard let rank = ranks[id] else { return nil }
        let i = Self.lowerBound(entries.count) { entries[$0].rank < rank }
        return i < entries.count && entries[i].id == id ? i : nil
    }

    /// The first entry in play order.
    public var first: EntryID? { shuffled?.first?.id ?? entries.first?.id }

    // MARK: Changing it

    /// Inserts new entries after `after` (nil: at the end, or at the start
    /// with `atStart`). Returns them with their new ids.
    @discardableResult
    public mutating func insert(_ new: [NewEntry], after: EntryID? = nil, atStart: Bool = false,
                                rng: inout SplitMix64) -> [QueueEntry] {
        guard !new.isEmpty else { return [] }
        revision += 1
        var position = entries.endIndex
        if atStart { position = 0 } else if let after, let i = index(of: after) { position = i + 1 }
        guard let ranks = spread(new.count, at: position) else {
            renumber()
            return insert(new, after: after, atStart: atStart, rng: &rng)
        }
        let added = zip(new, ranks).map { n, rank -> QueueEntry in
            defer { nextRawID += 1 }
            var metadata = n.metadata ?? TrackMetadata()
            metadata.title = metadata.title ?? QueueEntry.fallbackTitle(for: n.uri)
            return QueueEntry(id: EntryID(nextRawID), uri: n.uri, metadata: metadata, itemID: n.itemID,
                              resumeAt: n.resumeAt, rank: rank)
        }
        entries.insert(contentsOf: added, at: position)
        for entry in added {
            self.ranks[entry.id] = entry.rank
            changes.upserted.insert(entry.id)
        }
        if shuffled != nil { shuffleIn(added.map(\.id), rng: &rng) }
        return added
    }

    /// Removes an entry. The caller decides what plays instead when it was current.
    @discardableResult
    public mutating func remove(_ id: EntryID) -> QueueEntry? {
        guard let i = index(of: id) else { return nil }
        revision += 1
        let removed = entries.remove(at: i)
        ranks.removeValue(forKey: id)
        if let p = playPosition(of: removed) { shuffled?.remove(at: p) }
        if currentID == id { currentID = nil }
        changes.upserted.remove(id)
        changes.removed.insert(id)
        return removed
    }

    public mutating func removeAll() {
        revision += 1
        entries.removeAll()
        ranks.removeAll()
        currentID = nil
        if shuffled != nil { shuffled = [] }
        changes = QueueChanges(cleared: true)
    }

    public mutating func setCurrent(_ id: EntryID?) {
        precondition(id == nil || ranks[id!] != nil, "current entry must be in the queue")
        currentID = id
    }

    /// Changes an entry's metadata, item, resume point or error; not its place.
    public mutating func update(_ id: EntryID, _ change: (inout QueueEntry) -> Void) {
        guard let i = index(of: id) else { return }
        let (item, rank, key) = (entries[i].itemID, entries[i].rank, entries[i].shuffleKey)
        change(&entries[i])
        precondition(entries[i].rank == rank && entries[i].shuffleKey == key, "update cannot move an entry")
        if entries[i].itemID != item { changes.upserted.insert(id) }   // the stored row names the item
    }

    /// Inserts bare URIs (tests and callers without a library).
    @discardableResult
    public mutating func insert(uris: [String], after: EntryID? = nil, atStart: Bool = false,
                                rng: inout SplitMix64) -> [QueueEntry] {
        insert(uris.map { NewEntry(uri: $0) }, after: after, atStart: atStart, rng: &rng)
    }

    /// Turns shuffle on (a fresh permutation with the current entry first, so
    /// that everything else is still ahead) or off.
    public mutating func setShuffle(_ on: Bool, rng: inout SplitMix64) {
        revision += 1
        guard on else { shuffled = nil; return }
        var order = entries.indices.filter { entries[$0].id != currentID }
        order.shuffle(using: &rng)
        if let current = currentID, let i = index(of: current) { order.insert(i, at: 0) }
        layOutShuffle(order)
    }

    /// What changed since the last call, for the store; then forgets it.
    public mutating func takeChanges() -> QueueChanges {
        defer { changes = QueueChanges() }
        return changes
    }

    // MARK: Play order

    /// The entry after `id` in play order; with `wrap`, the first after the last.
    public func entry(after id: EntryID, wrap: Bool) -> EntryID? {
        neighbour(of: id, step: 1, wrap: wrap)
    }

    /// The entry before `id` in play order; with `wrap`, the last before the first.
    public func entry(before id: EntryID, wrap: Bool) -> EntryID? {
        neighbour(of: id, step: -1, wrap: wrap)
    }

    /// The play order, from its start (a copy: for tests and small queues).
    public var playOrder: [EntryID] { shuffled?.map(\.id) ?? entries.map(\.id) }

    private func neighbour(of id: EntryID, step: Int, wrap: Bool) -> EntryID? {
        guard let i = index(of: id) else { return nil }
        let (position, count) = shuffled.map { (playPosition(of: entries[i]) ?? 0, $0.count) } ?? (i, entries.count)
        var j = position + step
        if !(0..<count).contains(j) {
            guard wrap, count > 0 else { return nil }
            j = (j + count) % count
        }
        return shuffled.map { $0[j].id } ?? entries[j].id
    }

    private func playPosition(of entry: QueueEntry) -> Int? {
        guard let shuffled else { return nil }
        let p = Self.lowerBound(shuffled.count) { shuffled[$0].key < entry.shuffleKey }
        return p < shuffled.count && shuffled[p].id == entry.id ? p : nil
    }

    // MARK: Ranks and keys

    /// Ranks for `count` new entries at `position`, evenly between their
    /// neighbours; nil when the gap is too small (then renumber).
    private func spread(_ count: Int, at position: Int) -> [Int64]? {
        let low = position > 0 ? entries[position - 1].rank : (entries.first?.rank ?? 0) - Self.spacing * Int64(count + 1)
        let high = position < entries.count ? entries[position].rank : low + Self.spacing * Int64(count + 1)
        let step = (high - low) / Int64(count + 1)
        guard step >= 1 else { return nil }
        return (1...Int64(count)).map { low + step * $0 }
    }

    /// Lays the ranks out afresh (a rare, whole-queue change: every row is rewritten).
    private mutating func renumber() {
        for i in entries.indices {
            entries[i].rank = Self.spacing * Int64(i + 1)
            ranks[entries[i].id] = entries[i].rank
            changes.upserted.insert(entries[i].id)
        }
    }

    /// Gives the entries at these indices shuffle keys in this order.
    private mutating func layOutShuffle(_ order: [Int]) {
        var slots: [Slot] = []
        slots.reserveCapacity(order.count)
        for (n, i) in order.enumerated() {
            entries[i].shuffleKey = Self.spacing * Int64(n + 1)
            slots.append(Slot(key: entries[i].shuffleKey, id: entries[i].id))
        }
        shuffled = slots
        changes.reshuffled = true
    }

    /// Puts new entries at random places after the current one in play order,
    /// in one pass over the order however many there are.
    private mutating func shuffleIn(_ ids: [EntryID], rng: inout SplitMix64) {
        guard let order = shuffled else { return }
        let floor = currentID.flatMap { self[$0] }.flatMap(playPosition).map { $0 + 1 } ?? 0
        // Where each goes: before the old entry at that slot (count: at the end).
        let placed = ids.map { (slot: Int.random(in: floor...order.count, using: &rng), id: $0) }
            .sorted { $0.slot < $1.slot }
        var merged: [Slot] = []
        merged.reserveCapacity(order.count + ids.count)
        var next = placed[...]
        var fits = true
        for slot in 0...order.count {
            var run: [EntryID] = []
            while let first = next.first, first.slot == slot { run.append(first.id); next.removeFirst() }
            if !run.isEmpty {
                let low = slot > 0 ? order[slot - 1].key : (order.first?.key ?? 0) - Self.spacing * Int64(run.count + 1)
                let high = slot < order.count ? order[slot].key : low + Self.spacing * Int64(run.count + 1)
                let step = (high - low) / Int64(run.count + 1)
                if step < 1 { fits = false }
                for (n, id) in run.enumerated() { merged.append(Slot(key: low + step * Int64(n + 1), id: id)) }
            }
            if slot < order.count { merged.append(order[slot]) }
        }
        guard fits else {
            // No room between two neighbours: lay the whole order out afresh.
            layOutShuffle(merged.compactMap { index(of: $0.id) })
            return
        }
        for slot in merged where ids.contains(slot.id) {
            if let i = index(of: slot.id) { entries[i].shuffleKey = slot.key }
        }
        shuffled = merged
    }

    /// The first index in 0..<count for which `isBelow` is false (it must be
    /// true for a prefix of the range and false after).
    static func lowerBound(_ count: Int, _ isBelow: (Int) -> Bool) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let mid = (low + high) / 2
            if isBelow(mid) { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// What changed in the queue since the store last looked.
public struct QueueChanges: Equatable, Sendable {
    /// Everything stored before is gone (the queue was cleared).
    public var cleared = false
    /// Entries to write: new, or with a new rank, shuffle key or item.
    public var upserted: Set<EntryID> = []
    public var removed: Set<EntryID> = []
    /// Every entry has a new shuffle key.
    public var reshuffled = false

    public var isEmpty: Bool { !cleared && upserted.isEmpty && removed.isEmpty && !reshuffled }
}
