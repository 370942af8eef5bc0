/// A queue entry as stored: one row each, under the id clients know it by.
public struct QueueRow: Equatable, Sendable {
    public var id: UInt64
    public var rank: Int64
    public var shuffleKey: Int64
    public var itemID: Int64?
    public var uri: String
    public var range: PlayRange?

    public init(id: UInt64, rank: Int64, shuffleKey: Int64, itemID: Int64?, uri: String, range: PlayRange? = nil) {
        self.id = id
        self.rank = rank
        self.shuffleKey = shuffleKey
        self.itemID = itemID
        self.uri = uri
        self.range = range
    }

    public init(_ entry: QueueEntry, _ place: Queue.Place) {
        self.init(id: entry.id.raw, rank: place.rank, shuffleKey: place.shuffleKey, itemID: entry.itemID, uri: entry.uri,
                  range: entry.range)
    }
}

/// What is stored besides the rows: the current entry, the next id to hand
/// out, and the settings that outlive a track.
public struct QueueState: Equatable, Sendable {
    public var current: UInt64?
    public var nextID: UInt64 = 1
    public var settings = Settings()

    public init(current: UInt64? = nil, nextID: UInt64 = 1, settings: Settings = Settings()) {
        self.current = current
        self.nextID = nextID
        self.settings = settings
    }
}

/// Numbers of every entry (ranks laid out afresh, a new shuffle order): entry ids and
/// numbers in two arrays of the same length, handed over without a copy.
public struct Numbering: Equatable, Sendable {
    public var ids: [UInt64]
    public var values: [Int64]
    public init(ids: [UInt64], values: [Int64]) {
        self.ids = ids
        self.values = values
    }
}

/// What the store must write of the queue after a loop turn: the rows that
/// changed, and the state beside them when it changed.
public struct QueueSave: Equatable, Sendable {
    /// Everything stored before is gone (the queue was cleared).
    public var cleared = false
    /// Entries to write whole: new, or with a new item or range.
    public var rows: [QueueRow] = []
    public var removed: [UInt64] = []
    public var ranks: Numbering?
    public var shuffleKeys: Numbering?
    public var state: QueueState?

    public init() {}

    public var isEmpty: Bool {
        !cleared && rows.isEmpty && removed.isEmpty && ranks == nil && shuffleKeys == nil && state == nil
    }
}

