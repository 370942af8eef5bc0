/// What a stored playlist may be called, on every bus: MPD's rule (not
/// empty, no slash, no line break) and what makes a name safe to show and
/// to store: no control characters (NUL would cut it short in C), no
/// direction overrides (U+202E shows `evil.gpj.exe` as `evil.exe.jpg`), not
/// `.` or `..`, at most 255 bytes.
public enum PlaylistName {
    public static let longest = 255

    /// Why `name` cannot name a playlist; nil when it can.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "a playlist needs a name" }
        if name.utf8.count > longest { return "a playlist name is at most \(longest) bytes" }
        if name == "." || name == ".." { return "a playlist cannot be called \(name)" }
        for scalar in name.unicodeScalars {
            if scalar == "/" { return "a playlist name cannot hold a slash" }
            if scalar.properties.generalCategory == .control || scalar.properties.isBidiControl
                || scalar == "\u{2028}" || scalar == "\u{2029}" {
                return "a playlist name cannot hold control characters (U+\(String(scalar.value, radix: 16, uppercase: true)))"
            }
        }
        return nil
    }
}
