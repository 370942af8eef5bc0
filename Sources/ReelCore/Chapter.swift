/// A chapter of a file: where it starts, in the file's own time, and its title.
public struct Chapter: Equatable, Sendable {
    public var start: MediaTime
    public var title: String

    public init(start: MediaTime, title: String) {
        self.start = start
        self.title = title
    }

    /// The chapters as a list to play by: in order of start, one a start, none before 0. Titles
    /// are one line, trimmed (a chapters document may hold a NUL, which no D-Bus string may); an
    /// untitled chapter is called by its number, as players show it.
    public static func normalized(_ chapters: [Chapter]) -> [Chapter] {
        var seen = Set<MediaTime>()
        return chapters.map { Chapter(start: max($0.start, 0), title: oneLine($0.title)) }
            .sorted { $0.start < $1.start }
            .filter { seen.insert($0.start).inserted }
            .enumerated().map { n, chapter in
                chapter.title.isEmpty ? Chapter(start: chapter.start, title: "Chapter \(n + 1)") : chapter
            }
    }
}

/// Control characters (line breaks, NUL) as spaces, then trimmed.
private func oneLine(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map {
        $0.properties.generalCategory == .control ? " " : $0
    })).trimmed()
}

extension Chapter {
    /// Says which chapters were left out for starting at or after the end of a file of `length`.
    static func leftOut(_ cut: [Chapter], length: MediaTime) -> String {
        let first = cut[0]
        let which = cut.count == 1 ? "chapter \"\(first.title.prefix(40))\" (at \(ClockText.format(first.start)))"
            : "\(cut.count) chapters (the first \"\(first.title.prefix(40))\" at \(ClockText.format(first.start)))"
        return "\(which) left out: past the end of the file (\(ClockText.format(length)))"
    }
}

extension [Chapter] {
    /// Removes the chapters that start at or after `length` (a file's end), returning them: none
    /// of them can be played to.
    mutating func cut(at length: MediaTime) -> [Chapter] {
        guard let first = firstIndex(where: { $0.start >= length }) else { return [] }
        let gone = Array(self[first...])
        removeSubrange(first...)
        return gone
    }

    /// The index of the chapter that holds `position`: the last to start at or before it.
    /// Before the first chapter's start (a file whose first chapter starts late) there is none.
    public func index(at position: MediaTime) -> Int? {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid].start <= position { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? nil : low - 1
    }
}
