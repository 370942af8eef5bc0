import ReelCore

/// The scanner's pipe protocol. Each message is a frame: its length (4 bytes, little-endian)
/// and its bytes. A request is a path's bytes (a name may hold any byte but NUL, a newline
/// among them); a reply is a `ScannedFile`, field by field. Frames are bounded, so a reply
/// from a damaged or hostile scanner cannot make the reader allocate without end.
public enum ScanWire {
    /// The largest frame either side takes (a reply with many chapters and long tags stays far below).
    public static let maxFrame = 16 << 20

    public static func frame(_ payload: [UInt8]) -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(payload.count + 4)
        let count = UInt32(payload.count)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
        bytes += payload
        return bytes
    }

    /// The first whole frame's payload in `buffer` from `start`, and where the next begins; nil
    /// while it is incomplete. Throws on a frame longer than `maxFrame`.
    public static func nextFrame(in buffer: [UInt8], from start: Int) throws(WireError) -> (payload: ArraySlice<UInt8>, next: Int)? {
        guard buffer.count - start >= 4 else { return nil }
        var count = 0
        for i in 0..<4 { count |= Int(buffer[start + i]) << (8 * i) }
        guard count <= maxFrame else { throw WireError("a frame of \(count) bytes (at most \(maxFrame))") }
        guard buffer.count - start - 4 >= count else { return nil }
        return (buffer[(start + 4)..<(start + 4 + count)], start + 4 + count)
    }

    public static func encode(_ file: ScannedFile) -> [UInt8] {
        var w = WireWriter()
        w.string(file.path)
        w.int(file.size)
        w.int(file.modified)
        w.int(Int64(bitPattern: file.identity))
        switch file.outcome {
        case .unreadable(let reason):
            w.byte(0)
            w.string(reason)
        case .media(let item, let picture):
            w.byte(1)
            for text in [item.title, item.artist, item.album, item.albumArtist, item.genre, item.date, item.format] {
                w.optional(text)
            }
            w.int(item.track.map(Int64.init) ?? -1)
            w.int(item.disc.map(Int64.init) ?? -1)
            w.int(item.duration ?? -1)
            w.byte(picture ? 1 : 0)
            w.int(Int64(item.chapters.count))
            for chapter in item.chapters {
                w.int(chapter.start)
                w.string(chapter.title)
            }
        }
        return w.bytes
    }

    public static func decode(_ payload: ArraySlice<UInt8>) throws(WireError) -> ScannedFile {
        var r = WireReader(payload)
        let path = try r.string()
        let size = try r.int()
        let modified = try r.int()
        let identity = UInt64(bitPattern: try r.int())
        let outcome: ScannedFile.Outcome
        switch try r.byte() {
        case 0: outcome = .unreadable(try r.string())
        case 1:
            var texts: [String?] = []
            for _ in 0..<7 { texts.append(try r.optional()) }
            var item = ProbedItem(title: texts[0], artist: texts[1], album: texts[2], genre: texts[4],
                                  albumArtist: texts[3], date: texts[5], format: texts[6])
            let track = try r.int(), disc = try r.int(), duration = try r.int()
            item.track = track >= 0 ? Int(clamping: track) : nil
            item.disc = disc >= 0 ? Int(clamping: disc) : nil
            item.duration = duration >= 0 ? duration : nil
            let picture = try r.byte() == 1
            let chapters = try r.int()
            guard chapters >= 0, chapters <= Int64(r.remaining / 12) else { throw WireError("\(chapters) chapters in \(r.remaining) bytes") }
            for _ in 0..<chapters { item.chapters.append(Chapter(start: try r.int(), title: try r.string())) }
            outcome = .media(item, picture: picture)
        case let kind: throw WireError("an outcome of kind \(kind)")
        }
        guard r.remaining == 0 else { throw WireError("\(r.remaining) bytes after the reply") }
        return ScannedFile(path: path, size: size, modified: modified, identity: identity, outcome: outcome)
    }
}

/// A reply that does not parse: the scanner is not the one this reel was built with, or is broken.
public struct WireError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

struct WireWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func int(_ value: Int64) {
        let bits = UInt64(bitPattern: value)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    mutating func string(_ text: String) {
        let utf8 = text.utf8
        int(Int64(utf8.count))
        bytes += utf8
    }

    mutating func optional(_ text: String?) {
        guard let text else { return byte(0) }
        byte(1)
        string(text)
    }
}

struct WireReader {
    private let bytes: ArraySlice<UInt8>
    private var at: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        at = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - at }

    mutating func byte() throws(WireError) -> UInt8 {
        guard remaining >= 1 else { throw WireError("the reply ends early") }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func int() throws(WireError) -> Int64 {
        guard remaining >= 8 else { throw WireError("the reply ends early") }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(bytes[at + i]) << UInt64(8 * i) }
        at += 8
        return Int64(bitPattern: bits)
    }

    mutating func string() throws(WireError) -> String {
        let count = try int()
        guard count >= 0, count <= Int64(remaining) else { throw WireError("a text of \(count) bytes in \(remaining)") }
        defer { at += Int(count) }
        // Tags in legacy encodings can hold bytes that are not UTF-8: they are repaired, never a failure.
        return String(decoding: bytes[at..<(at + Int(count))], as: UTF8.self)
    }

    mutating func optional() throws(WireError) -> String? {
        try byte() == 0 ? nil : try string()
    }
}
