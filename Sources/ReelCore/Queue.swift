/// The play queue: entries in track-list order, the current entry, and, while
/// shuffle is on, the play order.
///
/// Built for long queues (100,000 entries). Every entry has a rank, increasing
/// along the track list, and while shuffle is on a shuffle key, increasing
/// along the play order. Both live in plain `Int64` arrays beside the entries,
/// so that finding an entry, its neighbours or its place is a binary search
/// over them, a new shuffle order rewrites only numbers, and the store writes
/// only the rows a change concerns (`takeChanges`).
public struct Queue: Sendable {
    /// In track-list order.
    public private(set) var entries: [QueueEntry] = []
    /// `ranks[i]` is the rank of `entries[i]`; increasing.
    private var ranks: [Int64] = []
    /// `keys[i]` is the shuffle key of `entries[i]` (meaningful while shuffled).
    public private(set) var keys: [Int64] = []
    /// `ids[i]` is the raw id of `entries[i]`: with `keys`, what the store
    /// writes for a new shuffle order, handed over without a copy.
    public private(set) var ids: [UInt64] = []
    private var rankByID = RankIndex()
    public private(set) var currentID: EntryID?
    /// The play order while shuffle is on (keys increasing); nil while it is off.
    private var shuffled: [Slot]?
    private var nextRawID: UInt64 = 1
    /// Changes whenever the entries or the play order change (not their metadata).
    public private(set) var revision: UInt64 = 0
    private var changes = QueueChanges()

    /// The distance between neighbouring ranks and keys when they are laid out afresh.
    static let spacing: Int64 = 1 << 32
    /// More entries than this shuffled in at once are merged in one pass over the play order.
    static let mergeThreshold = 16

    struct Slot: Sendable {
        var key: Int64
        var id: EntryID
    }

    /// An entry's place as the store keeps it.
    public struct Place: Equatable, Sendable {
        public var rank: Int64
        public var shuffleKey: Int64
        public init(rank: Int64, shuffleKey: Int64) {
            self.rank = rank
            self.shuffleKey = shuffleKey
        }
    }

    public init() {}

    /// The queue as stored: entries with their ids and places.
    public init(restoring stored: [(QueueEntry, Place)], current: EntryID?, nextID: UInt64, shuffle: Bool) {
        let sorted = stored.sorted { $0.1.rank < $1.1.rank }
        entries = sorted.map(\.0)
        ranks = sorted.map(\.1.rank)
        keys = sorted.map(\.1.shuffleKey)
        ids = entries.map(\.id.raw)
        rankByID = RankIndex(sorted.map { ($0.0.id, $0.1.rank) })
        nextRawID = max(nextID, (entries.map(\.id.raw).max() ?? 0) + 1)
        currentID = current.flatMap { rankByID[$0] != nil ? $0 : nil }
        if shuffle {
            let order = zip(entries, keys).map { Slot(key: $1, id: $0.id) }.sorted { $0.key < $1.key }
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
        guard let rank = rankByID[id] else { return nil }
        let i = Self.lowerBound(ranks.count) { ranks[$0] < rank }
        return i < entries.count && entries[i].id == id ? i : nil
    }

    /// `ranks[i]` is the rank of `entries[i]` (for the store).
    public var rankList: [Int64] { ranks }

    /// Where the entry at `index` is, as the store keeps it.
    public func place(at index: Int) -> Place { Place(rank: ranks[index], shuffleKey: keys[index]) }

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
        guard let newRanks = spread(new.count, between: position > 0 ? ranks[position - 1] : nil,
                                    and: position < ranks.count ? ranks[position] : nil) else {
            renumber()
            return insert(new, after: after, atStart: atStart, rng: &rng)
        }
        let added = new.map { n -> QueueEntry in
            defer { nextRawID += 1 }
            // No title tag: readers show `QueueEntry.fallbackTitle` (not stored: 100,000 of them add up).
            var entry = QueueEntry(id: EntryID(nextRawID), uri: n.uri, metadata: n.metadata ?? TrackMetadata(),
                                   itemID: n.itemID, resumeAt: n.resumeAt, prefersResume: n.prefersResume)
            entry.episode = n.episode
            return entry
        }
        entries.insert(contentsOf: added, at: position)
        ranks.insert(contentsOf: newRanks, at: position)
        keys.insert(contentsOf: repeatElement(0, count: added.count), at: position)
        ids.insert(contentsOf: added.map(\.id.raw), at: position)
        for (entry, rank) in zip(added, newRanks) {
            rankByID.set(entry.id, rank: rank)
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
        if let p = playPosition(of: i) { shuffled?.remove(at: p) }
        let removed = entries.remove(at: i)
        ranks.remove(at: i)
        keys.remove(at: i)
        ids.remove(at: i)
        rankByID.remove(id)
        if currentID == id { currentID = nil }
        changes.upserted.remove(id)
        changes.removed.insert(id)
        return removed
    }

    /// Moves an entry to `index` in the track list, keeping its id and its
    /// place in the play order. False when there is no such entry or place.
    @discardableResult
    public mutating func move(_ id: EntryID, to target: Int) -> Bool {
        guard let i = index(of: id), (0..<entries.count).contains(target) else { return false }
        guard i != target else { return true }
        let entry = entries.remove(at: i), rank = ranks.remove(at: i), key = keys.remove(at: i)
        ids.remove(at: i)
        guard let newRank = spread(1, between: target > 0 ? ranks[target - 1] : nil,
                                   and: target < ranks.count ? ranks[target] : nil)?.first else {
            // No room between the new neighbours: put it back, lay the ranks out afresh, try again.
            entries.insert(entry, at: i); ranks.insert(rank, at: i); keys.insert(key, at: i); ids.insert(id.raw, at: i)
            renumber()
            return move(id, to: target)
        }
        revision += 1
        entries.insert(entry, at: target)
        ranks.insert(newRank, at: target)
        keys.insert(key, at: target)
        ids.insert(id.raw, at: target)
        rankByID.set(id, rank: newRank)
        changes.upserted.insert(id)
        return true
    }

    /// Puts the entries at `range` of the track list in a random order (MPD's
    /// `shuffle`): they keep their ids, and the places they had between them.
    public mutating func shuffleTrackList(_ range: Range<Int>, rng: inout SplitMix64) {
        let range = range.clamped(to: entries.indices)
        guard range.count > 1 else { return }
        revision += 1
        var order = Array(range)
        order.shuffle(using: &rng)
        let moved = order.map { (entries[$0], keys[$0]) }
        for (i, (entry, key)) in zip(range, moved) {
            entries[i] = entry
            keys[i] = key
            ids[i] = entry.id.raw
            rankByID.set(entry.id, rank: ranks[i])
            changes.upserted.insert(entry.id)
        }
    }

    public mutating func removeAll() {
        revision += 1
        entries.removeAll()
        ranks.removeAll()
        keys.removeAll()
        ids.removeAll()
        rankByID.removeAll()
        currentID = nil
        if shuffled != nil { shuffled = [] }
        changes = QueueChanges(cleared: true)
    }

    public mutating func setCurrent(_ id: EntryID?) {
        precondition(id == nil || rankByID[id!] != nil, "current entry must be in the queue")
        currentID = id
    }

    /// Changes an entry's metadata, item, range, resume point or error.
    public mutating func update(_ id: EntryID, _ change: (inout QueueEntry) -> Void) {
        guard let i = index(of: id) else { return }
        let (item, range) = (entries[i].itemID, entries[i].range)
        change(&entries[i])
        precondition(entries[i].id == id, "update cannot change an entry's id")
        // The stored row names the item and the range.
        if entries[i].itemID != item || entries[i].range != range { changes.upserted.insert(id) }
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
        let current = currentID.flatMap(index(of:))
        var order = Array(entries.indices)
        if let current { order.swapAt(0, current) }
        order[(current == nil ? 0 : 1)...].shuffle(using: &rng)
        layOutShuffle(order)
    }

    /// Whether anything changed since the last `takeChanges`.
    public var hasChanges: Bool { !changes.isEmpty }

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
        let (position, count) = shuffled.map { (playPosition(of: i) ?? 0, $0.count) } ?? (i, entries.count)
        var j = position + step
        if !(0..<count).contains(j) {
            guard wrap, count > 0 else { return nil }
            j = (j + count) % count
        }
        return shuffled.map { $0[j].id } ?? entries[j].id
    }

    /// Where the entry at `index` is in the play order.
    private func playPosition(of index: Int) -> Int? {
        guard let shuffled else { return nil }
        let key = keys[index]
        let p = Self.lowerBound(shuffled.count) { shuffled[$0].key < key }
        return p < shuffled.count && shuffled[p].id == entries[index].id ? p : nil
    }

    // MARK: Ranks and keys

    /// `count` numbers evenly between two neighbours (nil: open ends); nil
    /// when the gap is too small (then lay them out afresh).
    private func spread(_ count: Int, between low: Int64?, and high: Int64?) -> [Int64]? {
        let room = Self.spacing * Int64(count + 1)
        let (a, b) = switch (low, high) {
        case let (low?, high?): (low, high)
        case let (low?, nil): (low, low + room)
        case let (nil, high?): (high - room, high)
        case (nil, nil): (0, room)
        }
        let step = (b - a) / Int64(count + 1)
        guard step >= 1 else { return nil }
        return (1...Int64(count)).map { a + step * $0 }
    }

    /// Lays the ranks out afresh (rare: the gap between two neighbours ran out).
    private mutating func renumber() {
        for i in ranks.indices {
            ranks[i] = Self.spacing * Int64(i + 1)
            rankByID.set(entries[i].id, rank: ranks[i])
        }
        changes.reranked = true
    }

    /// Gives the entries at these indices shuffle keys in this order.
    private mutating func layOutShuffle(_ order: [Int]) {
        // Over the plain arrays only: at 100,000 entries this is most of what Shuffle on costs.
        var newKeys = keys
        let slots = order.enumerated().map { n, i -> Slot in
            let key = Self.spacing * Int64(n + 1)
            newKeys[i] = key
            return Slot(key: key, id: EntryID(ids[i]))
        }
        keys = newKeys
        shuffled = slots
        changes.reshuffled = true
    }

    /// Puts new entries at random places after the current one in play order.
    private mutating func shuffleIn(_ ids: [EntryID], rng: inout SplitMix64) {
        guard var order = shuffled else { return }
        let floor = currentID.flatMap(index(of:)).flatMap(playPosition).map { $0 + 1 } ?? 0
        // Where each goes: before the old entry at that slot (count: at the end).
        let placed = ids.map { (slot: Int.random(in: floor...order.count, using: &rng), id: $0) }
            .sorted { $0.slot < $1.slot }
        if ids.count <= Self.mergeThreshold {
            // A few: put each in its place (later slots first, so earlier ones stay put).
            for (slot, id) in placed.reversed() {
                guard let key = spread(1, between: slot > 0 ? order[slot - 1].key : nil,
                                       and: slot < order.count ? order[slot].key : nil)?.first,
                      let i = index(of: id) else {
                    return relayOut(order: order, adding: placed)
                }
                keys[i] = key
                order.insert(Slot(key: key, id: id), at: slot)
            }
            shuffled = order
            return
        }
        var merged: [Slot] = []
        merged.reserveCapacity(order.count + ids.count)
        var next = placed[...]
        for slot in 0...order.count {
            var run: [EntryID] = []
            while let first = next.first, first.slot == slot { run.append(first.id); next.removeFirst() }
            if !run.isEmpty {
                guard let runKeys = spread(run.count, between: slot > 0 ? order[slot - 1].key : nil,
                                           and: slot < order.count ? order[slot].key : nil) else {
                    return relayOut(order: order, adding: placed)
                }
                for (id, key) in zip(run, runKeys) {
                    merged.append(Slot(key: key, id: id))
                    if let i = index(of: id) { keys[i] = key }
                }
            }
            if slot < order.count { merged.append(order[slot]) }
        }
        shuffled = merged
    }

    /// No room for a new key between two neighbours: lays the whole order out afresh.
    private mutating func relayOut(order: [Slot], adding placed: [(slot: Int, id: EntryID)]) {
        var ids = order.map(\.id)
        let already = Set(ids)
        for (slot, id) in placed.reversed() where !already.contains(id) { ids.insert(id, at: min(slot, ids.count)) }
        layOutShuffle(ids.compactMap(index(of:)))
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
    /// Entries to write whole: new, or with a new item.
    public var upserted: Set<EntryID> = []
    public var removed: Set<EntryID> = []
    /// Every entry has a new shuffle key.
    public var reshuffled = false
    /// Every entry has a new rank.
    public var reranked = false

    public var isEmpty: Bool { !cleared && upserted.isEmpty && removed.isEmpty && !reshuffled && !reranked }
}
