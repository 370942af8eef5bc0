/// Times as people read them on a clock.
public enum ClockText {
    /// µs → "1:05" or "1:02:03" (truncated to whole seconds).
    public static func format(_ micros: Int64) -> String {
        let negative = micros < 0
        let total = micros.magnitude / 1_000_000
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let body = h > 0 ? "\(h):\(pad(m)):\(pad(s))" : "\(m):\(pad(s))"
        return negative ? "-" + body : body
    }

    private static func pad(_ n: UInt64) -> String { String(n).zeroPadded(to: 2) }
}
