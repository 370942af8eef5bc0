import FoundationEssentials
import ReelCore

/// The fetch's decisions about bytes: where a read finds them, where
/// arriving ones go, and what the index may claim.
extension FetchState {

    /// Where a read of `count` bytes at an offset finds them.
    enum ReadStep: Equatable {
        /// Copied from memory (the disk refused them).
        case copied(Int)
        /// On disk: read this many from the file.
        case file(Int)
        /// The end of the resource.
        case end
        case failed
        /// Missing: wait for them; `start`: a fetcher must start.
        case wait(start: Bool)
    }

    /// Where bytes arriving at the main transfer go.
    enum Arrival: Equatable {
        /// Around the page cache (`DirectWriter`), at this offset; nobody reads yet.
        case direct(at: Int64)
        /// Through the page cache at this offset; `closeDirect`: a reader came, and what the
        /// direct writer holds is written first.
        case cached(at: Int64, closeDirect: Bool)
        /// They cannot be taken: the fetch failed.
        case refused
    }

    mutating func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> ReadStep {
        if var end = record.present.runEnd(from: offset) {
            if let memory {
                let n = memory.copy(into: buffer, count: count, at: offset)
                if n > 0 {
                    readPosition = offset + Int64(n)
                    wanted = nil
                    return .copied(n)
                }
                end = min(end, memory.firstHeld(from: offset) ?? end)   // the file holds up to there
            }
            let n = Int(min(Int64(count), end - offset))
            readPosition = offset + Int64(n)
            wanted = nil
            return .file(n)
        }
        if let length = record.length, offset >= length { return .end }
        if failure != nil { return .failed }
        readPosition = offset
        wanted = offset
        return .wait(start: startFetcher())
    }

    /// Whether a reader may move to `offset`. A server that ignores Range can reach a far byte only
    /// by sending everything before it: such a seek is refused (mpv then does without, as it does
    /// over plain HTTP).
    func canSeek(to offset: Int64) -> Bool {
        !ignoresRanges || record.present.contains(offset) || offset <= (transferAt ?? 0) + Self.sideBytes
            || record.length.map { offset >= $0 } == true
    }

    /// `count` bytes arrive at the main transfer; `direct`: a direct writer is open.
    mutating func arriving(_ count: Int, direct: Bool) -> Arrival {
        guard let at = transferAt else { return .refused }
        let end = at + Int64(count)
        if let length = record.length, end > length {
            fail("\(host) sent more than the \(length) bytes it announced")
            return .refused
        }
        if record.length == nil, end > settings.largestUnknownLength {
            fail("\(host) sends without end and gives no length; more than \(ByteCount.text(settings.largestUnknownLength)) is not cached")
            return .refused
        }
        // A reader came: what is held is written, and the rest goes through the page cache it reads.
        guard direct, readers == 0 else { return .cached(at: at, closeDirect: direct) }
        transferAt = end
        return .direct(at: at)
    }

    /// Marks bytes just written present, waking waiting readers; `advancing`: they are the main
    /// transfer's, which moves on past them; `cached`: they went through the page cache. The bytes
    /// not yet synced, and how many the kernel is to start writing back (0: none yet).
    mutating func wrote(_ range: Range<Int64>, advancing: Bool, cached: Bool) -> (unsynced: Int64, flush: Int64) {
        record.present.insert(range)
        if advancing { transferAt = range.upperBound }
        unsynced += Int64(range.count)
        if cached { unflushed += Int64(range.count) }
        let flush = unflushed >= Self.writebackEvery ? unflushed : 0
        if flush > 0 { unflushed = 0 }
        // Waking a thread for every chunk costs a download its speed: only readers that wait are.
        if waitingReaders > 0 { wake = true }
        return (unsynced, flush)
    }

    /// The disk refused a write: a download fails (it could never be whole on disk), and anything
    /// else goes on from memory. False when the fetch fails.
    mutating func refusedByDisk(_ reason: String) -> Bool {
        guard !downloading else {
            fail(reason)
            return false
        }
        if memory == nil {
            memory = MemoryWindow(capacity: max(Self.memoryCapacity, settings.readahead * 2), reason: reason)
        }
        return true
    }

    /// Holds bytes the disk refused in memory and marks them present, waking waiting readers.
    /// False when nothing is held in memory (the disk has not refused).
    mutating func held(_ bytes: UnsafeRawBufferPointer, at offset: Int64, advancing: Bool) -> Bool {
        guard memory != nil else { return false }
        let dropped = memory!.keep(bytes, at: offset, reading: readPosition)
        record.present.insert(offset..<offset + Int64(bytes.count))
        dropped.forEach { record.present.remove($0) }
        if advancing { transferAt = offset + Int64(bytes.count) }
        if waitingReaders > 0 { wake = true }
        return true
    }

    /// What the index may claim once the data file is synced: the record, the bytes it gains and
    /// the record claimed before (to go back to if the sync fails); nil when there is nothing new.
    /// A live stream is never cached, nor a playlist, nor anything once the disk refused a write.
    mutating func claim() -> (record: ResourceRecord, gained: Int64, before: ResourceRecord)? {
        guard kind != .live, kind != .direct, memory == nil, unsynced > 0 || record != persisted else { return nil }
        let claim = (record, record.present.count - persisted.present.count, persisted)
        unsynced = 0
        persisted = record
        return claim
    }

    /// The sync under a claim failed: its bytes are neither claimed nor trusted (a failed disk may
    /// drop them), and are fetched again.
    mutating func unclaim(back to: ResourceRecord) {
        record.present = to.present
        persisted = to
    }

    /// Bytes written between two claims in the index. Each claim waits for the disk (fdatasync), so
    /// they are few; the disk is kept busy between them by `writebackEvery`.
    static let persistEvery: Int64 = 32 << 20
    /// Bytes after which the kernel is asked to start writing them out, so that the disk works while
    /// the network does, and a claim finds little left to wait for.
    static let writebackEvery: Int64 = 4 << 20
    /// The most held in memory once the disk refused writes (or twice the readahead).
    static let memoryCapacity: Int64 = 8 << 20
}
