/// Times as people read and write them on a clock: `reel seek 1:30`, a feed's chapter at "00:01:30.500".
public enum ClockText {
    /// µs → "1:05" or "1:02:03" (truncated to whole seconds).
    public static func format(_ micros: Int64) -> String {
        let negative = micros < 0
        let total = micros.magnitude / 1_000_000
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let body = h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(m):\(pad(s))"
        return negative ? "-" + body : body
    }

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
    private static func decimalMicros(_ text: Substring) -> Int64? {
        let pieces = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = pieces[0]
        let fraction = pieces.count > 1 ? pieces[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 12, fraction.count <= 6,
              whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit) else { return nil }
        let micros = Int64(String(fraction) + String(repeating: "0", count: 6 - fraction.count))!
        return (Int64(whole.isEmpty ? "0" : String(whole)) ?? 0) * 1_000_000 + micros
    }

    private static func pad(_ n: UInt64) -> String { String(n).zeroPadded(to: 2) }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
