/// The part of a queue entry that plays (MPD's `rangeid`): from `start` to
/// `end`, in the file's own time; without an end it plays to the file's end.
public struct PlayRange: Equatable, Sendable {
    public let start: MediaTime
    public let end: MediaTime?

    /// Nil when the range is empty or starts before the file does.
    public init?(start: MediaTime, end: MediaTime?) {
        guard start >= 0, end.map({ $0 > start }) ?? true else { return nil }
        self.start = start
        self.end = end
    }

    /// How long `range` plays in a file of `fileLength` (all of it without a range); nil while unknown.
    public static func playedLength(_ range: PlayRange?, fileLength: MediaTime?) -> MediaTime? {
        guard let range else { return fileLength }
        guard let stop = [range.end, fileLength].compactMap({ $0 }).min() else { return nil }
        return max(stop - range.start, 0)
    }

    /// `position` if the range plays it; else where the range starts.
    public func clamp(_ position: MediaTime) -> MediaTime {
        position < start || end.map({ position >= $0 }) == true ? start : position
    }
}
