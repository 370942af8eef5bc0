import FoundationEssentials
import Glibc

/// A live stream's audio between its one connection and its reader: never
/// on disk, bounded in memory. Takes the ICY metadata blocks that a station
/// interleaves every `icy-metaint` bytes out of the audio and keeps the
/// StreamTitle they carry.
struct LiveBuffer {
    /// Bytes held before the connection is paused (about 30 s of 128 kbit/s).
    static let capacity = 512 << 10

    private var bytes: [UInt8] = []
    private var start = 0
    /// Audio bytes between metadata blocks; nil when the station sends none.
    private var metaint: Int?
    private var untilMeta = 0
    /// The metadata block being read: its size and what has come of it.
    private var metaLength: Int?
    private var meta: [UInt8] = []
    /// Audio bytes received on the current connection.
    private(set) var received: Int64 = 0
    private(set) var station: String?
    private(set) var title: String?

    var count: Int { bytes.count - start }
    var isFull: Bool { count >= Self.capacity }

    /// A new connection's headers: its metadata interval and station name.
    mutating func connected(metaint: String?, station: String?) {
        self.metaint = metaint.flatMap { Int($0.trimmed()) }.flatMap { (1...(1 << 20)).contains($0) ? $0 : nil }
        untilMeta = self.metaint ?? 0
        metaLength = nil
        meta = []
        received = 0
        self.station = station.flatMap { $0.isEmpty ? nil : $0 } ?? self.station
    }

    /// Audio a reader will not hear (it came before the reader did).
    mutating func dropAudio() {
        bytes = []
        start = 0
    }

    /// Takes a piece of the body; true when the title changed.
    mutating func push(_ piece: UnsafeRawBufferPointer) -> Bool {
        var changed = false
        var at = 0
        while at < piece.count {
            if let length = metaLength {
                let n = min(length - meta.count, piece.count - at)
                meta += piece[at..<at + n]
                at += n
                if meta.count == length {
                    changed = take(meta) || changed
                    metaLength = nil
                    meta = []
                    untilMeta = metaint ?? 0
                }
            } else if let metaint, untilMeta == 0 {
                // The length byte: 16-byte blocks; 0 means no news.
                let length = Int(piece[at]) * 16
                at += 1
                if length > 0 { metaLength = length } else { untilMeta = metaint }
            } else {
                let n = metaint == nil ? piece.count - at : min(untilMeta, piece.count - at)
                bytes += piece[at..<at + n]
                untilMeta -= metaint == nil ? 0 : n
                received += Int64(n)
                at += n
            }
        }
        return changed
    }

    /// Copies up to `count` bytes of audio out; the number copied.
    mutating func take(into buffer: UnsafeMutableRawPointer, count wanted: Int) -> Int {
        let n = min(wanted, count)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + start, byteCount: n) }
        start += n
        // Compact now and then, not on every read.
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64 << 10 {
            bytes.removeFirst(start)
            start = 0
        }
        return n
    }

    /// `StreamTitle='…';` out of a metadata block; true when it differs from the last.
    private mutating func take(_ block: [UInt8]) -> Bool {
        let text = String(decoding: block.prefix { $0 != 0 }, as: UTF8.self)
        guard let open = text.firstRange(of: "StreamTitle='") else { return false }
        let rest = text[open.upperBound...]
        // The title ends at the last "';" before the next field, and may itself hold quotes.
        let end = rest.firstRange(of: "';StreamUrl=")?.lowerBound ?? rest.ranges(of: "';").last?.lowerBound
            ?? rest.endIndex
        let found = String(rest[..<end]).trimmed()
        let new = found.isEmpty ? nil : found
        guard new != title else { return false }
        title = new
        return true
    }
}
