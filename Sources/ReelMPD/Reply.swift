/// What a command answers before its `OK`: `key: value` lines, and for
/// covers a binary chunk.
public struct Reply: Equatable, Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Queue entries still to be written after `bytes`, a few at a time (`QueueListing`).
    var listing: QueueListing?

    public init() {}

    public mutating func add(_ key: String, _ value: String) {
        startLine(key)
        Self.appendOneLine(value, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    public mutating func add(_ key: String, _ value: some BinaryInteger) {
        guard let value = Int64(exactly: value) else { return add(key, String(value)) }
        startLine(key)
        Self.appendDecimal(value, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    private mutating func startLine(_ key: String) {
        bytes.append(contentsOf: key.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    /// `value` in decimal digits, written in place: making a `String` of each number (a generic
    /// radix conversion) was a fifth of the time reeld took to make a `status` reply.
    static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        var unit: UInt64 = 1
        while rest / unit >= 10 { unit *= 10 }
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / unit))
            rest %= unit
            unit /= 10
        } while unit > 0
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
    /// split at LF; other Unicode line breaks end no MPD line). Copied whole, then
    /// mended where it must be: appended a byte at a time, values were a sixth of
    /// reeld's time for a `playlistinfo`.
    static func appendOneLine(_ text: String, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        bytes.withUnsafeMutableBufferPointer { all in
            for i in start..<all.count where all[i] == UInt8(ascii: "\n") || all[i] == UInt8(ascii: "\r") {
                all[i] = UInt8(ascii: " ")
            }
        }
    }

    /// `key: ` and seconds with three decimals, as MPD prints `elapsed` and `duration`.
    public mutating func addSeconds(_ key: String, _ micros: Int64) {
        startLine(key)
        Self.appendSeconds(micros, to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Seconds with three decimals, as MPD prints `elapsed` and `duration`.
    static func seconds(_ micros: Int64) -> String {
        var bytes: [UInt8] = []
        appendSeconds(micros, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendSeconds(_ micros: Int64, to bytes: inout [UInt8]) {
        let millis = max(micros, 0) / 1000
        appendDecimal(millis / 1000, to: &bytes)
        let fraction = millis % 1000
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }
}
