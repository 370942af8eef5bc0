import FoundationEssentials
import Glibc

/// Byte counts for people: "1.5 MB".
public enum ByteCount {
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes), unit = 0
        while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) B" : "\(fixed(value, places: value < 10 ? 1 : 0)) \(units[unit])"
    }

    /// `value` with `places` decimals (0 or 1), rounded half away from zero.
    public static func fixed(_ value: Double, places: Int) -> String {
        guard places > 0 else { return String(Int(value.rounded())) }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }
}
