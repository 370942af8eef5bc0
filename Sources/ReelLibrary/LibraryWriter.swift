import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// The daemon's library writes, on a thread of their own with their own
/// connection, so that disk I/O never holds up the run loop (writing 100,000
/// shuffled rows takes a good part of a second).
///
/// What is submitted is merged into one pending change set; the thread writes
/// it in one transaction. When that fails (a read-only or full disk), nothing
/// is lost: the set stays pending, later submissions merge into it, and the
/// thread tries again every few seconds. The first failure and the recovery
/// are reported, once each.
public final class LibraryWriter: @unchecked Sendable {
    // @unchecked: what is submitted and pending is shared only under `condition`; the connection is the writer thread's.
    public enum Outcome: Sendable {
        /// A write failed; nothing is lost, it is retried.
        case failed(String)
        /// Writes work again after a failure.
        case recovered
        /// Entries stored without an item got one: (entry id, item id).
        case attached([(UInt64, Int64)])
    }

    /// A change to an item.
    public enum ItemWrite: Equatable, Sendable {
        case position(Int64, MediaTime)
        case finished(Int64)
        case learned(Int64, TrackMetadata)
        case timeSaved(Int64, MediaTime)
    }

    /// One loop turn's writes.
    public struct Batch: Sendable {
        /// Everything stored before is gone.
        public var cleared = false
        public var rows: [QueueRow] = []
        public var removed: [UInt64] = []
        /// New ranks or shuffle keys of every entry (ranks laid out afresh, a
        /// new shuffle order): entry ids and numbers in two arrays of the same
        /// length, handed over without a copy.
        public var ranks: (ids: [UInt64], values: [Int64]) = ([], [])
        public var shuffleKeys: (ids: [UInt64], values: [Int64]) = ([], [])
        public var state: QueueState?
        public var items: [ItemWrite] = []

        public init() {}

        public var isEmpty: Bool {
            !cleared && rows.isEmpty && removed.isEmpty && ranks.ids.isEmpty && shuffleKeys.ids.isEmpty && state == nil
                && items.isEmpty
        }
    }

    /// How long to wait before trying a failed write again.
    public static let retryInterval: TimeInterval = 3

    private let path: String
    private let report: @Sendable (Outcome) -> Void
    private let condition = Condition()
    /// Submitted and not yet merged: the loop only appends (merging 100,000
    /// shuffle keys is the writer's work, not the loop's).
    private var submitted: [Batch] = []
    private var pending = Pending()
    private var writing = false
    /// Positions submitted and not yet written (a finish as 0), by item, with the serial of
    /// the batch that brought each: what a read of the library says once they land.
    private var unwritten: [Int64: (position: MediaTime, serial: UInt64)] = [:]
    private var serial: UInt64 = 0
    private var failing = false
    private var stopped = false

    public init(path: String, report: @escaping @Sendable (Outcome) -> Void) {
        self.path = path
        self.report = report
        Threads.start(name: "reel-library") { [self] in run() }
    }

    public func submit(_ batch: Batch) {
        guard !batch.isEmpty else { return }
        condition.lock()
        submitted.append(batch)
        serial += 1
        for write in batch.items {
            switch write {
            case .position(let item, let position): unwritten[item] = (position, serial)
            case .finished(let item): unwritten[item] = (0, serial)
            case .learned, .timeSaved: break
            }
        }
        condition.signal()
        condition.unlock()
    }

    /// The position last submitted for `item` while it is not yet written.
    public func unwrittenPosition(of item: Int64) -> MediaTime? {
        condition.lock()
        defer { condition.unlock() }
        return unwritten[item]?.position
    }

    /// Stops answering for `item`'s unwritten position (the user forgot it).
    public func forgetUnwritten(_ item: Int64) {
        condition.lock()
        unwritten[item] = nil
        condition.unlock()
    }

    /// Waits until everything submitted is written, or `timeout` seconds.
    /// Returns whether it was.
    @discardableResult
    public func flush(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        condition.broadcast()   // a failing writer tries at once
        while !submitted.isEmpty || !pending.isEmpty || writing {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }

    public func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        var library: Library?
        while true {
            condition.lock()
            while submitted.isEmpty && pending.isEmpty && !stopped { condition.wait() }
            if stopped { condition.unlock(); return }
            if failing { _ = condition.wait(until: Date().addingTimeInterval(Self.retryInterval)) }
            var taken = pending
            let batches = submitted
            let upTo = serial
            pending = Pending()
            submitted = []
            writing = true
            condition.unlock()
            for batch in batches { taken.merge(batch) }

            var attached: [(UInt64, Int64)] = []
            var problem: String?
            do {
                if library == nil { library = try Library(path: path, check: false) }
                attached = try library!.write(taken)
            } catch {
                problem = "\(error)"
                // SQLite opens a file it cannot write read-only, and keeps it so:
                // the next try opens it afresh.
                library = nil
            }

            condition.lock()
            writing = false
            if problem != nil {
                // Keep it for the next try; what came meanwhile is merged on top then.
                pending = taken
            } else {
                unwritten = unwritten.filter { $0.value.serial > upTo }
            }
            let wasFailing = failing
            failing = problem != nil
            condition.broadcast()
            condition.unlock()
            if let problem, !wasFailing { report(.failed(problem)) }
            if problem == nil, wasFailing { report(.recovered) }
            if !attached.isEmpty { report(.attached(attached)) }
        }
    }

    /// Submitted writes not yet done, merged: the latest row of each entry,
    /// the latest state, item writes in order.
    struct Pending {
        typealias Numbers = (ids: [UInt64], values: [Int64])
        var cleared = false
        var rows: [UInt64: QueueRow] = [:]
        var removed = Set<UInt64>()
        /// The latest numbering of every entry, as handed over (a dictionary of
        /// 100,000 would cost the daemon megabytes for a moment); written before
        /// the rows, so that a row queued after it keeps its own numbers.
        var ranks: Numbers = ([], [])
        var shuffleKeys: Numbers = ([], [])
        var state: QueueState?
        var items: [ItemWrite] = []
        var needsItems = false

        var isEmpty: Bool {
            !cleared && rows.isEmpty && removed.isEmpty && ranks.ids.isEmpty && shuffleKeys.ids.isEmpty && state == nil
                && items.isEmpty
        }

        mutating func merge(_ batch: Batch) {
            if batch.cleared { self = Pending(cleared: true, needsItems: needsItems) }
            for id in batch.removed {
                rows.removeValue(forKey: id)
                removed.insert(id)
            }
            // Numbers after a pending row win over the row's own.
            if !batch.ranks.ids.isEmpty {
                ranks = batch.ranks
                renumberRows(batch.ranks) { $0.rank = $1 }
            }
            if !batch.shuffleKeys.ids.isEmpty {
                shuffleKeys = batch.shuffleKeys
                renumberRows(batch.shuffleKeys) { $0.shuffleKey = $1 }
            }
            for row in batch.rows {
                rows[row.id] = row
                removed.remove(row.id)
                if row.itemID == nil { needsItems = true }
            }
            if let state = batch.state { self.state = state }
            for write in batch.items {
                // A position replaces the item's position just before it.
                if case .position(let id, _) = write, case .position(id, _)? = items.last { items.removeLast() }
                items.append(write)
            }
        }

        private mutating func renumberRows(_ numbers: Numbers, _ set: (inout QueueRow, Int64) -> Void) {
            guard !rows.isEmpty else { return }
            for (id, value) in zip(numbers.ids, numbers.values) where rows[id] != nil { set(&rows[id]!, value) }
        }
    }
}

extension Library {
    /// Writes a pending change set in one transaction; then, if entries were
    /// stored without an item, makes their items.
    func write(_ p: LibraryWriter.Pending) throws -> [(UInt64, Int64)] {
        try db.transaction {
            try writeQueue(upserting: Array(p.rows.values), removing: Array(p.removed), cleared: p.cleared,
                           ranks: p.ranks, shuffleKeys: p.shuffleKeys)
            if let state = p.state { try writeQueueState(state) }
            for write in p.items {
                switch write {
                case .position(let id, let position): try setPosition(position, for: id)
                case .finished(let id): try markFinished(id)
                case .learned(let id, let metadata): try learn(metadata, for: id)
                case .timeSaved(let id, let saved): try addTimeSaved(saved, for: id)
                }
            }
        }
        return p.needsItems ? try db.transaction { try attachMissingItems() } : []
    }
}
