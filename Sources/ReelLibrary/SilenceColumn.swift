import ReelCore

/// Silences as the library's `silences` column keeps them: a line a silence, its start and end in
/// µs apart by a space. NULL for none found yet.
enum SilenceColumn {
    static func encode(_ silences: [Silence]) -> String? {
        guard !silences.isEmpty else { return nil }
        return silences.map { "\($0.start) \($0.end)" }.joined(separator: "\n")
    }

    /// What `encode` wrote; a line that is not a silence (a damaged row) is skipped.
    static func decode(_ text: String?) -> [Silence] {
        guard let text else { return [] }
        return Silence.normalized(text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let start = MediaTime(parts[0]), let end = MediaTime(parts[1]) else { return nil }
            return Silence(start: start, end: end)
        })
    }
}
