import FoundationEssentials
import ReelCore

/// Why fetching a resource failed: the reason for the user, and the HTTP
/// status behind it when there was one.
struct FetchFailure: Equatable {
    let reason: String
    let status: Int?

    init(_ reason: String, status: Int? = nil) {
        self.reason = reason
        self.status = status
    }

    /// The server said the request is wrong (4xx): asking again will not mend it.
    var isRefusal: Bool { status.map { (400..<500).contains($0) } ?? false }
}

/// What one remote file's fetching knows and decides: what is present, who
/// wants which bytes, what the running transfer is doing, and why it failed.
/// A pure value: each decision is a method that returns what the shell
/// (`Resource`) must do, and the shell performs it outside its lock. It takes
/// the time as an argument, so that a unit test can drive every rule without
/// a socket or a clock. Live streams are not fetched here (`LiveStream`):
/// this only tells one when a response says so.
struct FetchState {
    let url: String
    let settings: CacheSettings
    var record: ResourceRecord
    /// What the index was last given (or had when the resource was made).
    var persisted: ResourceRecord
    var failure: FetchFailure?
    var kind: ResourceKind?
    var readers = 0
    /// Where the latest read wanted bytes; the readahead counts from here.
    var readPosition: Int64 = 0
    /// A reader waits for this missing byte.
    var wanted: Int64?
    var downloading = false
    /// Bytes from the start wanted with no reader yet (a probe, the next entry).
    var holdUntil: Int64 = 0
    /// Until when a held transfer waits, paused, for its reader to come.
    var holdExpiry = Date.distantPast
    /// Those waiting to hear what the URL is (the shell holds their callbacks).
    var askingKind = 0
    /// What the URL turned out to be, for those asking; the shell tells them outside the lock.
    var kindNews: ResourceKind?
    var fetcherRunning = false
    /// The next byte the running transfer will write.
    var transferAt: Int64?
    /// The server sends whole bodies whatever the Range: never move, wait.
    var ignoresRanges = false
    /// The end of the last out-of-window fetch: a read there is a real seek.
    var sideEnd: Int64?
    var sideSize = FetchState.sideBytes
    /// Side fetches in a row that brought nothing.
    var sideFailures = 0
    /// Attempts of the main transfer in a row without progress.
    var attempts = 0
    /// Bytes written since the last claim in the index.
    var unsynced: Int64 = 0
    /// Bytes written since the kernel was last asked to write back.
    var unflushed: Int64 = 0
    /// Once the disk refused a write: the bytes fetched since, for the reader
    /// (`record.present` counts them; the index never claims them).
    var memory: MemoryWindow?
    /// Readers blocked waiting for bytes: only they need waking when some arrive.
    var waitingReaders = 0
    /// Blocked readers and waiters must look again; the shell wakes them.
    var wake = false

    init(record: ResourceRecord, settings: CacheSettings) {
        url = record.url
        self.record = record
        persisted = record
        self.settings = settings
    }

    /// Bytes ahead of the transfer that a reader waits for rather than move it.
    static let nearby: Int64 = 64 << 10
    static let sideBytes: Int64 = 256 << 10
    static let chunk: Int64 = 1 << 20

    // MARK: Interest

    var interested: Bool { readers > 0 || downloading || holdUntil > 0 || askingKind > 0 }
    var isBusy: Bool { readers > 0 || fetcherRunning || downloading }

    /// A failure that trying again will not mend: the server refused the request, or the URL is a
    /// live stream or a playlist, which have no file to download.
    var failedForGood: Bool { failure != nil && (failure!.isRefusal || kind == .live || kind == .direct) }
    /// What it says of the URL (a failure, a live stream, a playlist) is not in the index.
    var remembers: Bool { failure != nil || kind == .live || kind == .direct }

    /// What is present on disk (bytes held in memory are not).
    var onDisk: ResourceRecord {
        guard let memory else { return record }
        var disk = record
        memory.ranges.forEach { disk.present.remove($0) }
        return disk
    }

    /// A failed attempt is forgotten when something asks again.
    mutating func beginAttempt() {
        if !fetcherRunning, failure != nil {
            failure = nil
            if kind != .live { kind = nil }
        }
    }

    /// Whether a fetcher must start now (none runs, and nothing failed).
    mutating func startFetcher() -> Bool {
        guard !fetcherRunning, failure == nil else { return false }
        fetcherRunning = true
        attempts = 0
        return true
    }

    /// Someone asks what the URL is: the answer when it is known, else nil,
    /// and the first bytes are held for the reader about to come; true in
    /// `start` when a fetcher must start.
    mutating func classify(now: Date) -> (known: ResourceKind?, start: Bool) {
        if kind == nil, record.length != nil || !record.present.isEmpty {
            kind = Self.kind(contentType: record.contentType, length: record.length, icy: false)
        }
        // A live stream known already connects when its reader opens: one connection, no probe.
        if let kind { return (kind, false) }
        beginAttempt()
        askingKind += 1
        holdUntil = max(holdUntil, settings.readahead)
        holdExpiry = now.addingTimeInterval(10)
        return (nil, startFetcher())
    }

    mutating func openReader() {
        beginAttempt()
        readers += 1
        readPosition = 0
        sideEnd = nil
    }

    mutating func closeReader() {
        readers -= 1
        if readers == 0 { wanted = nil }
        wake = true
    }

    /// Fetches every missing byte, or stops doing so. Whether a download runs now; true in `start`
    /// when a fetcher must start.
    mutating func download(_ on: Bool) -> (running: Bool, start: Bool) {
        // Once the disk refused a write, no download can be whole on disk.
        downloading = on && memory == nil
        guard downloading, !record.isComplete else { return (false, false) }
        beginAttempt()
        return (true, startFetcher())
    }

    /// Fails the fetch, telling anyone who asked what the URL is.
    mutating func fail(_ reason: String, status: Int? = nil) {
        failure = FetchFailure(reason, status: status)
        announce(.failed(reason))
        wake = true
    }

    /// What the URL is, for those who asked.
    mutating func announce(_ new: ResourceKind) {
        if case .failed = new {} else { kind = new }
        if askingKind > 0 {
            kindNews = new
            askingKind = 0
        }
    }

    /// What a response says the URL is.
    static func kind(contentType: String?, length: Int64?, icy: Bool) -> ResourceKind {
        let type = contentType?.split(separator: ";").first?.trimmed().lowercased()
        if let type, directTypes.contains(type) { return .direct }
        return length == nil && icy ? .live : .media
    }

    /// Playlists and stream manifests: mpv expands or follows them itself.
    static let directTypes: Set<String> = [
        "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl",
        "audio/x-scpls", "application/pls+xml", "application/dash+xml", "video/vnd.mpeg.dash.mpd",
        "application/xspf+xml", "audio/x-ms-wax", "video/x-ms-asf", "application/smil+xml",
    ]

    var host: String { HTTPTransfer.serverName(of: url) }
}
