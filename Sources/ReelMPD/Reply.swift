/// What a command answers before its `OK`: `key: value` lines, and for
/// covers a binary chunk.
public struct Reply: Equatable, Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        bytes += Array("\(key): \(Self.oneLine(value))\n".utf8)
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

    /// Seconds with three decimals, as MPD prints `elapsed` and `duration`.
    static func seconds(_ micros: Int64) -> String {
        let millis = max(micros, 0) / 1000
        return "\(millis / 1000).\(String(millis % 1000).zeroPadded(to: 3))"
    }
}
