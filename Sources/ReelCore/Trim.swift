/// A stretch of a file that is silent, in the file's own time (µs).
public struct Silence: Equatable, Sendable {
    public let start: MediaTime
    public let end: MediaTime

    public init?(start: MediaTime, end: MediaTime) {
        guard start >= 0, end > start else { return nil }
        self.start = start
        self.end = end
    }

    public var length: MediaTime { end - start }

    /// Sorted, without overlaps (joined), at most `mostSilences`: what a scan or a stored column
    /// holds, whoever wrote it.
    public static func normalized(_ silences: [Silence]) -> [Silence] {
        var joined: [Silence] = []
        for silence in silences.sorted(by: { $0.start < $1.start }) {
            if let last = joined.last, silence.start <= last.end {
                joined[joined.count - 1] = Silence(start: last.start, end: max(last.end, silence.end))!
            } else {
                joined.append(silence)
            }
        }
        return Array(joined.prefix(mostSilences))
    }

    /// More than one a second over 10 hours is no speech.
    public static let mostSilences = 36_000
}

/// A file's silences as a scan found them (none: empty): in the file's own time (where mpv and ffmpeg start it,
/// at its first sample), and where that time starts among the container's timestamps (an MP3's
/// encoder delay, 25 ms), which mpv's timelines count in.
public struct Silences: Equatable, Sendable {
    public var spans: [Silence]
    public var origin: MediaTime

    public init(_ spans: [Silence] = [], origin: MediaTime = 0) {
        self.spans = Silence.normalized(spans)
        self.origin = origin
    }

    public var isEmpty: Bool { spans.isEmpty }
}

/// What trimming silence takes out of a file: the middle of every silence of at least
/// `threshold`, so that each one plays `kept` long; speech and short pauses stay as they are.
///
/// The backend plays the file with the cuts taken out (mpv's timeline: the kept parts back to
/// back); the engine keeps every position in the file's own time, and Position jumps over a cut
/// at the moment it is heard.
public struct Trim: Equatable, Sendable {
    /// Silences at least this long are shortened. Shorter pauses belong to speech.
    public static let threshold: MediaTime = 500_000
    /// How long a shortened silence still lasts: half of it before the cut, half after.
    public static let kept: MediaTime = 300_000

    /// The parts taken out, sorted, apart from each other: each is `start ..< end`.
    public let cuts: [Silence]
    /// Where the file's time starts among its container's timestamps (`Silences.origin`).
    public let origin: MediaTime

    /// The cuts of a file with these silences; nil when no silence is long enough.
    public init?(silences: Silences) {
        origin = silences.origin
        let cuts = silences.spans.compactMap { silence -> Silence? in
            guard silence.length >= Trim.threshold else { return nil }
            return Silence(start: silence.start + Trim.kept / 2, end: silence.end - Trim.kept / 2)
        }
        guard !cuts.isEmpty else { return nil }
        self.cuts = cuts
    }

    /// How much is cut in all.
    public var saved: MediaTime { cuts.reduce(0) { $0 + $1.length } }

    /// Where `position` of the file is played: its time on the backend's timeline, which leaves
    /// the cuts out. A position inside a cut plays where the cut ends.
    public func timeline(_ position: MediaTime) -> MediaTime {
        var removed: MediaTime = 0
        for cut in cuts {
            if position < cut.start { break }
            if position < cut.end { return cut.start - removed }
            removed += cut.length
        }
        return position - removed
    }

    /// The file's position at `time` of the backend's timeline. The moment a cut is reached is
    /// where it ends: what follows it is heard.
    public func file(_ time: MediaTime) -> MediaTime {
        var removed: MediaTime = 0
        for cut in cuts {
            if time + removed < cut.start { break }
            removed += cut.length
        }
        return time + removed
    }

    /// `position`, or where the cut it falls in ends: a file position that is heard.
    public func heard(_ position: MediaTime) -> MediaTime { file(timeline(position)) }

    /// The first cut that starts after `position`.
    public func cut(after position: MediaTime) -> Silence? { cuts.first { $0.start > position } }

    /// The kept parts of a file, as (start, length) on its own timeline; the last has no length
    /// (it plays to the end).
    public var keptParts: [(start: MediaTime, length: MediaTime?)] {
        var parts: [(MediaTime, MediaTime?)] = []
        var from: MediaTime = 0
        for cut in cuts {
            if cut.start > from { parts.append((from, cut.start - from)) }
            from = cut.end
        }
        parts.append((from, nil))
        return parts
    }
}
