import ReelCore

/// Parsing and printing of times on the command line, in integer µs.
public enum TimeText {
    /// "90", "1.5", "01:30", "1:02:03.25" → µs. Nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let last = parts.last, let seconds = decimalMicros(last) else { return nil }
        var total = seconds
        var scale: Int64 = 60_000_000
        for part in parts.dropLast().reversed() {
            guard !part.isEmpty, part.allSatisfy(\.isASCIIDigit), let n = Int64(part) else { return nil }
            if parts.count > 1, seconds >= 60_000_000 { return nil }
            let (product, o1) = n.multipliedReportingOverflow(by: scale)
            let (sum, o2) = total.addingReportingOverflow(product)
            guard !o1, !o2 else { return nil }
            total = sum
            scale *= 60
        }
        return total
    }

    /// "12" or "12.345678" → µs, without going through floating point.
    static func decimalMicros(_ text: Substring) -> Int64? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = pieces[0]
        let fraction = pieces.count > 1 ? pieces[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 12, fraction.count <= 6,
              whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        let micros = Int64(String(fraction) + String(repeating: "0", count: 6 - fraction.count))!
        return (Int64(whole.isEmpty ? "0" : String(whole)) ?? 0) * 1_000_000 + micros
    }

}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
