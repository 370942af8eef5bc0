import ReelCore

/// What the backend reads of a file mpv has opened (at FILE_LOADED), asked for without waiting:
/// six reads that each waited for mpv's core thread held the loop for 250–300 µs at every file.
/// The events after FILE_LOADED wait with them (`MPVBackend.drainEvents`), so that the engine
/// still hears the file open before anything else of it.
struct OpeningReads {
    /// One answer, read out of mpv's node at the edge.
    enum Value: Equatable {
        case seekable(Bool)
        /// mpv's duration, on its timeline.
        case duration(MediaTime?)
        case sizeKnown(Bool)
        case chapters([Chapter])
        case tags([String: String])
        case embeddedArt(Bool)
    }

    static let purposes: [PropertyRead.Purpose] = [.seekable, .duration, .fileSize, .chapters, .metadata, .trackList]

    let generation: UInt64
    private var pending = Set(Self.purposes)
    private var seekable = false
    private var length: MediaTime?
    private var sizeKnown = false
    private var chapters: [Chapter] = []
    private var tags: [String: String] = [:]
    private var embeddedArt = false

    init(generation: UInt64) { self.generation = generation }

    var reads: [PropertyRead] { Self.purposes.map { PropertyRead($0, generation: generation) } }
    var complete: Bool { pending.isEmpty }

    /// Whether `read` is one of these: its answer is taken (nil: mpv had none, or would not take the read).
    mutating func answered(_ read: PropertyRead, _ value: Value?) -> Bool {
        guard read.generation == PropertyRead(read.purpose, generation: generation).generation,
              pending.remove(read.purpose) != nil else { return false }
        switch value {
        case .seekable(let on): seekable = on
        case .duration(let time): length = time
        case .sizeKnown(let known): sizeKnown = known
        case .chapters(let list): chapters = list
        case .tags(let found): tags = found
        case .embeddedArt(let found): embeddedArt = found
        case nil: break
        }
        return true
    }

    /// The file as far as the answers tell (what was not answered is unknown).
    var file: OpenedFile {
        var metadata = TrackMetadata()
        metadata.length = length
        metadata.chapters = chapters
        ContainerTags(tags).apply(to: &metadata)
        return OpenedFile(seekable: seekable, metadata: metadata, sizeKnown: sizeKnown, embeddedArt: embeddedArt)
    }
}
