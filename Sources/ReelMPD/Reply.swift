/// What a command answers before its `OK`: `key: value` lines, and for
/// covers a binary chunk.
public struct Reply: Equatable, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        Self.appendOneLine(value, to: &bytes)
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

    /// A value cannot end the line it is on early: CR and LF become spaces (clients
    /// split at LF; other Unicode line breaks end no MPD line). Byte by byte: a
    /// 100,000-entry playlistinfo is 700,000 lines.
    static func appendOneLine(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            bytes.append(byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") ? UInt8(ascii: " ") : byte)
        }
    }

    /// Seconds with three decimals, as MPD prints `elapsed` and `duration`.
    static func seconds(_ micros: Int64) -> String {
        let millis = max(micros, 0) / 1000
        return "\(millis / 1000).\(String(millis % 1000).zeroPadded(to: 3))"
    }
}
