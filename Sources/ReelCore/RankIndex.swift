/// Each queued entry's rank, by its id: two arrays in id order, 16 bytes an
/// entry (a dictionary took about 40, and rehashed 100,000 keys as it grew).
/// Ids are handed out in increasing order, so adding an entry appends.
struct RankIndex: Sendable {
    private var ids: [UInt64] = []
    private var ranks: [Int64] = []

    init() {}

    init(_ pairs: [(EntryID, Int64)]) {
        let sorted = pairs.sorted { $0.0 < $1.0 }
        ids = sorted.map(\.0.raw)
        ranks = sorted.map(\.1)
    }

    private func slot(of id: EntryID) -> Int {
        Queue.lowerBound(ids.count) { ids[$0] < id.raw }
    }

    subscript(id: EntryID) -> Int64? {
        let i = slot(of: id)
        return i < ids.count && ids[i] == id.raw ? ranks[i] : nil
    }

    /// Adds the entry, or gives it a new rank.
    mutating func set(_ id: EntryID, rank: Int64) {
        if let last = ids.last, last < id.raw {
            ids.append(id.raw)
            ranks.append(rank)
            return
        }
        let i = slot(of: id)
        if i < ids.count, ids[i] == id.raw {
            ranks[i] = rank
        } else {
            ids.insert(id.raw, at: i)
            ranks.insert(rank, at: i)
        }
    }

    mutating func remove(_ id: EntryID) {
        let i = slot(of: id)
        guard i < ids.count, ids[i] == id.raw else { return }
        ids.remove(at: i)
        ranks.remove(at: i)
    }

    mutating func removeAll() {
        ids.removeAll()
        ranks.removeAll()
    }
}
