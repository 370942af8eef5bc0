import ReelCore

/// What a demuxer read of a file, before reel judges it: the rules that make it media (or
/// not) and the description the library keeps, apart from the C that reads it, so that they
/// can be tested without files.
public struct MediaFacts: Equatable, Sendable {
    /// -1 when the file does not say.
    public var duration: MediaTime = -1
    /// The first timestamp (an MP3's encoder delay), which mpv times chapters from.
    public var start: MediaTime = 0
    public var audio = false
    public var video = false
    public var picture = false
    public var sampleRate = 0
    public var channels = 0
    /// Bits per decoded sample; 0 for floating point; -1 when not known.
    public var bits = -1
    /// Bits per second (0: not known).
    public var bitRate: Int64 = 0
    /// 100 when the demuxer is sure of the format; 50 when only the name's extension says so.
    public var probeScore = 100
    /// Tags by layer, each stream's, then the container's: a later layer wins.
    public var tagLayers: [[String: String]] = []
    /// Starts in the file's time (before `start` is taken off), and titles.
    public var chapters: [(start: MediaTime, title: String?)] = []

    public init() {}

    public static func == (a: MediaFacts, b: MediaFacts) -> Bool {
        a.duration == b.duration && a.start == b.start && a.audio == b.audio && a.video == b.video && a.picture == b.picture
            && a.sampleRate == b.sampleRate && a.channels == b.channels && a.bits == b.bits && a.bitRate == b.bitRate
            && a.probeScore == b.probeScore && a.tagLayers == b.tagLayers
            && a.chapters.map(\.start) == b.chapters.map(\.start) && a.chapters.map(\.title) == b.chapters.map(\.title)
    }

    /// Below this a format was only guessed from bytes that could be anything (libavformat's
    /// AVPROBE_SCORE_RETRY): a file not named as media is then not taken for it.
    public static let weakGuess = 25

    /// Compressed audio below this many bits a second is not heard as anything: a file whose
    /// length would need less lies about its length.
    public static let lowestBitRate: Int64 = 2_000

    /// Media, with what the library keeps of it; or why not. `size` is the file's in bytes,
    /// `named` whether its name's extension is one of media.
    public func outcome(size: Int64, namedAsMedia named: Bool) -> ScannedFile.Outcome {
        guard audio || video else { return .unreadable("not a media file (no audio or video in it)") }
        guard named || probeScore >= Self.weakGuess else {
            return .unreadable("not a media file (its bytes only look like \(audio ? "audio" : "video") by chance)")
        }
        guard let length = plausibleDuration(size: size) else {
            return .unreadable("not a media file (it says nothing of its length, and none can be read from it)")
        }
        let tags = ContainerTags(layers: tagLayers)
        var item = ProbedItem(title: tags.title, artist: tags.artist, album: tags.album, duration: length, genre: tags.genre)
        (item.albumArtist, item.track, item.disc, item.date) = (tags.albumArtist, tags.trackNumber, tags.disc, tags.date)
        item.format = format
        // mpv times chapters from the file's first timestamp (an MP3's encoder delay, 25 ms): so must the library.
        let origin = max(start, 0)
        item.chapters = Chapter.normalized(chapters.map { Chapter(start: $0.start - origin, title: $0.title ?? "") })
        return .media(item, picture: picture)
    }

    /// The length the library keeps: what the file says, unless that is more than its bytes
    /// can hold at the stream's own bit rate (a header claiming 47 hours in 80 KB); then what
    /// the bytes hold at that rate. Nil when there is no length at all.
    func plausibleDuration(size: Int64) -> MediaTime? {
        let byBytes: MediaTime? = bitRate > 0 ? size * 8 * 1_000_000 / bitRate : nil
        guard duration > 0 else { return byBytes.flatMap { $0 > 0 ? $0 : nil } }
        guard audio, !video, size > 0 else { return duration }
        // Seconds the bytes would last at the lowest rate anything is heard at.
        let longest = size * 8 * 1_000_000 / Self.lowestBitRate
        guard duration > longest else { return duration }
        return byBytes.map { min($0, longest) } ?? longest
    }

    /// As MPD writes it: rate, bits (f for floating point), channels.
    var format: String? {
        guard sampleRate > 0, channels > 0 else { return nil }
        return "\(sampleRate):\(bits > 0 ? String(bits) : "f"):\(channels)"
    }
}
