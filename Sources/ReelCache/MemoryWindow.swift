/// The bytes of a resource that its disk refused (it failed, turned
/// read-only or filled up under a play), held in memory for the reader
/// instead. Bounded: past `capacity` the bytes behind the read position go
/// first, oldest first, then those furthest ahead of it. A byte that went and
/// is read again is fetched again.
struct MemoryWindow {
    let capacity: Int64
    /// Why the disk refused: what a download that cannot be whole on disk says.
    let reason: String
    /// Disjoint, sorted by offset.
    private var pieces: [(at: Int64, bytes: [UInt8])] = []
    private(set) var count: Int64 = 0
    /// Pieces that arrive in order are joined up to this size, so that there are few.
    static let pieceSize = 256 << 10

    init(capacity: Int64, reason: String) {
        self.capacity = capacity
        self.reason = reason
    }

    var ranges: [Range<Int64>] { pieces.map { $0.at..<$0.at + Int64($0.bytes.count) } }

    /// Holds `bytes` at `offset` (what is held already is kept); returns the
    /// ranges dropped to stay within capacity, given the reader is at `reading`.
    mutating func keep(_ bytes: UnsafeRawBufferPointer, at offset: Int64, reading: Int64) -> [Range<Int64>] {
        var from = offset
        let end = offset + Int64(bytes.count)
        while from < end {
            let i = index(reaching: from)
            if i < pieces.count, pieces[i].at <= from {
                from = pieces[i].at + Int64(pieces[i].bytes.count)   // held already
                continue
            }
            let to = min(end, i < pieces.count ? pieces[i].at : end)
            let part = bytes[Int(from - offset)..<Int(to - offset)]
            if i > 0, pieces[i - 1].at + Int64(pieces[i - 1].bytes.count) == from, pieces[i - 1].bytes.count < Self.pieceSize {
                pieces[i - 1].bytes += part
            } else {
                pieces.insert((from, Array(part)), at: i)
            }
            count += to - from
            from = to
        }
        var dropped: [Range<Int64>] = []
        while count > capacity, let far = pieceToDrop(reading: reading) {
            let piece = pieces.remove(at: far)
            count -= Int64(piece.bytes.count)
            dropped.append(piece.at..<piece.at + Int64(piece.bytes.count))
        }
        return dropped
    }

    /// Copies up to `count` held bytes from `offset` on; 0 when that byte is not held.
    func copy(into buffer: UnsafeMutableRawPointer, count wanted: Int, at offset: Int64) -> Int {
        let i = index(reaching: offset)
        guard i < pieces.count, pieces[i].at <= offset else { return 0 }
        let start = Int(offset - pieces[i].at)
        let n = min(wanted, pieces[i].bytes.count - start)
        pieces[i].bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
        return n
    }

    /// The first held byte at or after `offset`.
    func firstHeld(from offset: Int64) -> Int64? {
        let i = index(reaching: offset)
        return i < pieces.count ? max(pieces[i].at, offset) : nil
    }

    /// The piece to drop: the first one wholly behind the reader (a reader
    /// goes on far more often than it goes back), else the one furthest ahead.
    private func pieceToDrop(reading: Int64) -> Int? {
        if let first = pieces.first, first.at + Int64(first.bytes.count) <= reading { return 0 }
        return pieces.indices.last
    }

    /// The index of the first piece that ends after `offset` (binary search).
    private func index(reaching offset: Int64) -> Int {
        var low = 0, high = pieces.count
        while low < high {
            let mid = (low + high) / 2
            if pieces[mid].at + Int64(pieces[mid].bytes.count) <= offset { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
