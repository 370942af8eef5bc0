/// What a command answers before its `OK`: `key: value` lines, and for
/// covers a binary chunk.
public struct Reply: Equatable, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        // Straight into the bytes: a 100,000-entry playlistinfo is 700,000 lines.
        bytes.append(contentsOf: key.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        for byte in value.utf8 {
            bytes.append(byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") ? UInt8(ascii: " ") : byte)
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) {
        add(key, String(value))
    }

    /// `binary: N`, then the bytes, then a newline.
    public mutating func addBinary(_ chunk: some Collection<UInt8>) {
        add("binary", chunk.count)
        bytes += chunk
        bytes.append(UInt8(ascii: "\n"))
    }

    public mutating func append(_ other: Reply) { bytes += other.bytes }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A value cannot end the line it is on early: line breaks become spaces.
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }
    // (`add` does the same byte by byte for CR and LF; the other Unicode line
    // breaks cannot end an MPD line, which clients split at LF.)

    /// Seconds with three decimals, as MPD prints `elapsed` and `duration`.
    static func seconds(_ micros: Int64) -> String {
        let millis = max(micros, 0) / 1000
        return "\(millis / 1000).\(String(millis % 1000).zeroPadded(to: 3))"
    }
}
