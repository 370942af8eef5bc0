/// Chapters: which one is heard, when the next one will be, and moving between them.
extension Engine {
    /// The chapters of the entry the backend plays; none when nothing is loaded.
    public var loadedChapters: [Chapter] {
        state.token.flatMap { queue[$0.entry]?.metadata.chapters } ?? []
    }

    /// A position this close before a chapter's start is in that chapter: mpv lands a seek to a
    /// chapter's start a µs short of it now and then (seconds as doubles, rounded to µs).
    static let chapterSlack: MediaTime = 1_000

    /// The index of the loaded entry's chapter at `position`.
    func chapterIndex(at position: MediaTime) -> Int? {
        loadedChapters.index(at: position + Engine.chapterSlack)
    }

    /// Brings the chapter of the current load up to what is heard at `now`. Run at the end of
    /// every step, so that the snapshot (and through it every bus) names the chapter heard.
    mutating func followChapter(now: MonotonicTime) {
        guard var load = state.load else { return }
        let chapter = chapterIndex(at: position(at: now))
        guard load.chapter != chapter else { return }
        load.chapter = chapter
        state.load = load
    }

    /// Where the chapter after the one heard starts; nil in the last one.
    var nextChapterStart: MediaTime? {
        let chapters = loadedChapters
        let next = state.load?.chapter.map { $0 + 1 } ?? 0
        return next < chapters.count ? chapters[next].start : nil
    }

    /// When the chapter after the one heard starts to be heard, by the estimate of what is heard;
    /// nil while the position does not run.
    var nextChapterHeardAt: MonotonicTime? {
        nextChapterStart.flatMap { tracker.anchor.time(reaching: $0 - Engine.chapterSlack) }
    }

    /// Moves to a chapter of the loaded entry: the next, the previous (the start of this one when
    /// it has played for more than `restartThreshold`), or one by its number from 1.
    mutating func goToChapter(_ move: ChapterMove, now: MonotonicTime) -> Result<[Effect], CommandError> {
        let chapters = loadedChapters
        guard !chapters.isEmpty else { return .failure(.invalidArgument("the track that plays has no chapters")) }
        let here = position(at: now)
        let index = chapterIndex(at: here)
        let target: Int
        switch move {
        case .number(let n):
            guard (1...chapters.count).contains(n) else {
                return .failure(.invalidArgument("there is no chapter \(n); the track has \(chapters.count)"))
            }
            target = n - 1
        case .next:
            let next = index.map { $0 + 1 } ?? 0
            guard next < chapters.count else { return .failure(.invalidArgument("this is the last chapter")) }
            target = next
        case .previous:
            guard let index else { target = 0; break }
            target = here > chapters[index].start + Engine.restartThreshold || index == 0 ? index : index - 1
        }
        return .success(seek(to: chapters[target].start, now: now))
    }

    /// Whether Next and Previous move by chapter in the loaded entry: with `chapterKeys` auto, a
    /// long entry (one that resumes, by the resume policy's length or as a feed's episode) with
    /// at least two chapters.
    var keysMoveByChapter: Bool {
        guard settings.chapterKeys == .auto, state.token != nil, let entry = queue.current,
              entry.id == state.token?.entry, entry.metadata.chapters.count > 1 else { return false }
        let minimum = if case .auto(let length) = resumePolicy { length } else { ResumePolicy.defaultMinLength }
        return entry.prefersResume || (entry.metadata.length ?? 0) >= minimum
    }

    /// Next inside a long entry with chapters: the next chapter, or nil from the last one.
    mutating func nextChapter(now: MonotonicTime) -> [Effect]? {
        guard keysMoveByChapter else { return nil }
        return try? goToChapter(.next, now: now).get()
    }

    /// Previous inside a long entry with chapters: this chapter's start or the one before; nil in
    /// the first chapter's first seconds, where Previous goes to the previous entry.
    mutating func previousChapter(now: MonotonicTime) -> [Effect]? {
        guard keysMoveByChapter else { return nil }
        let chapters = loadedChapters
        let here = position(at: now)
        guard let index = chapterIndex(at: here),
              index > 0 || here > chapters[0].start + Engine.restartThreshold else { return nil }
        return try? goToChapter(.previous, now: now).get()
    }
}

/// Where `reel chapter` moves.
public enum ChapterMove: Equatable, Sendable {
    case next, previous
    /// A chapter by its number, from 1.
    case number(Int)
}

/// Whether Next and Previous (media keys, widgets, MPD's next/previous) move by chapter inside
/// long entries with chapters.
public enum ChapterKeys: String, CaseIterable, Equatable, Sendable {
    case auto, never
}
