import ReelCore

/// Chapters as the library's `chapters` column keeps them: a line a chapter, its start in µs, a
/// tab, its title (a title's tabs and line breaks become spaces). NULL for none.
enum ChapterColumn {
    static func encode(_ chapters: [Chapter]) -> String? {
        guard !chapters.isEmpty else { return nil }
        return chapters.map { chapter in
            "\(chapter.start)\t" + String(chapter.title.map { $0 == "\t" || $0.isNewline ? " " : $0 })
        }.joined(separator: "\n")
    }

    /// What `encode` wrote; a line that is not a chapter (a damaged row) is skipped.
    static func decode(_ text: String?) -> [Chapter] {
        guard let text else { return [] }
        return Chapter.normalized(text.split(separator: "\n").compactMap { line in
            guard let tab = line.firstIndex(of: "\t"), let start = MediaTime(line[..<tab]) else { return nil }
            return Chapter(start: start, title: String(line[line.index(after: tab)...]))
        })
    }
}
