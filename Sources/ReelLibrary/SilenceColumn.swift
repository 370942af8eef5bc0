import ReelCore

/// Silences as the library's `silences` column keeps them: a line a silence, its start and end in
/// µs apart by a space; first, when it is not 0, `origin N` (`Silences.origin`). `none` when a
/// scan found none; NULL before a scan.
enum SilenceColumn {
    static func encode(_ silences: Silences?) -> String? {
        guard let silences else { return nil }
        guard !silences.isEmpty else { return "none" }
        let origin = silences.origin != 0 ? ["origin \(silences.origin)"] : []
        return (origin + silences.spans.map { "\($0.start) \($0.end)" }).joined(separator: "\n")
    }

    /// What `encode` wrote; a line that is neither (a damaged row) is skipped, and a row with no
    /// silence left counts as never scanned (it is scanned again).
    static func decode(_ text: String?) -> Silences? {
        guard let text else { return nil }
        if text == "none" { return Silences() }
        var origin: MediaTime = 0
        var spans: [Silence] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let end = MediaTime(parts[1]) else { continue }
            if parts[0] == "origin" { origin = end; continue }
            if let start = MediaTime(parts[0]), let silence = Silence(start: start, end: end) { spans.append(silence) }
        }
        return spans.isEmpty ? nil : Silences(spans, origin: origin)
    }
}
