/// The byte ranges of a resource that are present, kept sorted and merged.
public struct ByteRanges: Equatable, Sendable, CustomStringConvertible {
    public private(set) var ranges: [Range<Int64>] = []

    public init(_ ranges: [Range<Int64>] = []) {
        ranges.forEach { insert($0) }
    }

    /// The bytes present, counted once.
    public var count: Int64 { ranges.reduce(0) { $0 + $1.upperBound - $1.lowerBound } }
    public var isEmpty: Bool { ranges.isEmpty }

    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        // Ranges that overlap or touch the new one merge with it.
        let first = index(reaching: range.lowerBound - 1)
        var last = first
        var merged = range
        while last < ranges.count, ranges[last].lowerBound <= range.upperBound {
            merged = min(merged.lowerBound, ranges[last].lowerBound)..<max(merged.upperBound, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [merged])
    }

    /// Takes a range out (bytes held in memory that were dropped).
    public mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var kept: [Range<Int64>] = []
        for existing in ranges {
            if existing.lowerBound < range.lowerBound { kept.append(existing.lowerBound..<min(existing.upperBound, range.lowerBound)) }
            if existing.upperBound > range.upperBound { kept.append(max(existing.lowerBound, range.upperBound)..<existing.upperBound) }
        }
        ranges = kept.filter { !$0.isEmpty }
    }

    /// Whether the byte at `offset` is present.
    public func contains(_ offset: Int64) -> Bool {
        let i = index(reaching: offset)
        return i < ranges.count && ranges[i].contains(offset)
    }

    /// The end of the present run that holds `offset`, or nil when that byte is missing.
    public func runEnd(from offset: Int64) -> Int64? {
        let i = index(reaching: offset)
        return i < ranges.count && ranges[i].contains(offset) ? ranges[i].upperBound : nil
    }

    /// The first missing byte at or after `offset`.
    public func firstMissing(from offset: Int64) -> Int64 {
        runEnd(from: offset) ?? offset
    }

    /// The first present byte after `offset`, which ends the gap there.
    public func nextPresent(after offset: Int64) -> Int64? {
        let i = index(reaching: offset)
        guard i < ranges.count else { return nil }
        return ranges[i].contains(offset) ? offset : ranges[i].lowerBound
    }

    /// Whether every byte of `0..<length` is present.
    public func covers(_ length: Int64) -> Bool {
        length == 0 || (ranges.first.map { $0.lowerBound == 0 && $0.upperBound >= length } ?? false)
    }

    /// "0-1023,4096-8191": half-open ranges, as stored in the index.
    public var description: String {
        ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",")
    }

    /// Parses `description`; nil for anything else.
    public init?(parsing text: String) {
        for part in text.split(separator: ",") {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2, let low = Int64(ends[0]), let high = Int64(ends[1]), low >= 0, low <= high else {
                return nil
            }
            insert(low..<high)
        }
    }

    /// The index of the first range that ends after `offset` (binary search).
    private func index(reaching offset: Int64) -> Int {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound <= offset { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
