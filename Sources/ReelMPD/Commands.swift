import ReelCore
import ReelSystem

/// What one client has set for itself.
public struct ClientState: Sendable {
    /// The tags songs are shown with (`tagtypes`).
    public var tags = TagSet.all
    /// The largest binary chunk a client takes (`binarylimit`).
    public var binaryLimit = 8192
    /// Whether the client may run commands beyond `password` and `ping`.
    public var authorized: Bool
    /// Whether it came through the Unix socket (its owner): only such a
    /// client may name files outside the music folder, as in MPD.
    public let local: Bool
    /// The connection's number, unique in the server's life: whom messages are for.
    public let id: Int

    public init(authorized: Bool, local: Bool = false, id: Int = 0) {
        self.authorized = authorized
        self.local = local
        self.id = id
    }
}

/// MPD's commands over reel's session: each request becomes session calls
/// and a reply. Everything runs on the daemon's loop thread.
public final class MPDCommands {
    let session: any Session
    let library: (any LibrarySession)?
    let password: String?
    /// MPD's music directory (absolute, no trailing slash): the database is
    /// the library's items below it, and no client other than the Unix
    /// socket's reads, lists or imports anything outside it.
    let musicFolder: String?
    /// Where reel keeps the covers it extracted from files: served like the music folder's.
    let coverFolder: String?
    var changes: ChangeTracker
    let started = monotonicNow()
    /// Start-up in Unix seconds.
    let startedAt = MPDCommands.wallClock()
    /// Time spent playing since start-up (`stats`' playtime).
    private var played: MediaTime = 0
    private var playingSince: MonotonicTime?
    /// The `update` and `rescan` jobs running and queued, in order (they run one at a time).
    var updates: [Int] = []
    /// The running update's job number (`status`' updating_db).
    var updating: Int? { updates.first }
    /// When the database last changed (Unix seconds; `stats`' db_update).
    var lastUpdate: Int64?
    var nextUpdate = 0
    /// Changes the commands noticed themselves (an update started or ended), for the next `update`.
    var raised = Set<Subsystem>()
    /// The library's revisions as last published.
    private var seen: (catalogue: Int, playlists: Int) = (0, 0)
    /// The database as last built, and the library revision it was built at.
    /// `catalogue`: the catalogue's revision then (items come and go, imports), which a song's
    /// Last-Modified and Format follow; `revision` also follows positions and learnt tags.
    var cachedTree: (revision: Int64?, catalogue: Int?, tree: LibraryTree)?
    /// Each queued entry's name and facts, made once (an entry's URI never changes, and a
    /// `playlistinfo` shows every entry), for the catalogue revision they were made at.
    var queueSongs: (catalogue: Int?, byEntry: [EntryID: QueueSong]) = (nil, [:])
    /// Client-to-client messages, and the clients that got one since the loop last published.
    var messages = MessageBoard()
    var messageNews = Set<Int>()
    var nextClientID = 0
    /// Reads covers off the loop; its `news` wakes the loop when one is read.
    var covers: CoverReader
    /// The loop polls this: a cover was read, and the clients that wait for one go on.
    public var coverNews: Int32 { covers.news.fd }

    /// Throws when the pipe that tells of read covers cannot be made. `extractCover`: the
    /// picture embedded in a local file, extracted into `coverFolder` (blocks; called off the loop).
    public init(session: any Session, library: (any LibrarySession)?, password: String?,
                musicFolder: String? = nil, coverFolder: String? = nil,
                extractCover: (@Sendable (_ path: String) -> String?)? = nil) throws(SystemError) {
        self.session = session
        self.library = library
        self.password = password
        self.musicFolder = musicFolder
        self.coverFolder = coverFolder
        covers = try CoverReader(extract: extractCover)
        changes = ChangeTracker(session)
        if let library { seen = (library.catalogueRevision, library.playlistRevision) }
    }

    typealias Handler = @Sendable (MPDCommands, Arguments, inout ClientState) throws(Ack) -> Reply

    struct Entry: Sendable {
        var arguments: ClosedRange<Int>
        /// Allowed before `password` on a connection that needs one.
        var open = false
        var run: Handler
    }

    /// Every command reel answers, by name (`commands` lists them).
    static let table: [String: Entry] = connectionCommands
        .merging(statusCommands) { a, _ in a }
        .merging(playbackCommands) { a, _ in a }
        .merging(queueCommands) { a, _ in a }
        .merging(databaseCommands) { a, _ in a }
        .merging(playlistCommands) { a, _ in a }
        .merging(messageCommands) { a, _ in a }
        .merging(tagCommands) { a, _ in a }

    /// Runs one request. `idle`, `noidle`, `close` and command lists are the connection's.
    public func execute(_ request: RequestLine, _ client: inout ClientState) throws(Ack) -> Reply {
        guard let entry = Self.table[request.name] else {
            throw Ack(.unknown, "unknown command \"\(request.name)\"")
        }
        guard client.authorized || entry.open else {
            throw Ack(.permission, "you don't have permission for \"\(request.name)\"")
        }
        guard entry.arguments.contains(request.arguments.count) else {
            let few = request.arguments.count < entry.arguments.lowerBound
            throw Ack.argument("too \(few ? "few" : "many") arguments for \"\(request.name)\"")   // MPD's words
        }
        return try entry.run(self, Arguments(request.arguments), &client)
    }

    /// What changed since the last call, as subsystems; call once a loop turn. Without
    /// `sessionChanged`, the session is as it was at the last call.
    public func update(_ announcements: [Announcement], sessionChanged: Bool = true) -> Set<Subsystem> {
        let now = monotonicNow()
        let playing = session.snapshot.status == .playing
        if let since = playingSince { played += now - since }
        playingSince = playing ? now : nil
        if let library {
            // Imports, syncs and playlists of the other bus and of reel's own CLI.
            // What a scan writes shows at once, but clients hear of it once, when the scan ends:
            // each `database` idle makes them read the whole database again.
            if library.catalogueRevision != seen.catalogue, !library.scanning {
                raised.insert(.database)
                lastUpdate = Self.wallClock()
                seen.catalogue = library.catalogueRevision
            }
            if library.playlistRevision != seen.playlists { raised.insert(.storedPlaylist) }
            seen.playlists = library.playlistRevision
        }
        defer { raised = [] }
        return changes.update(session, announcements, sessionChanged: sessionChanged).union(raised)
    }

    var playtime: MediaTime {
        played + (playingSince.map { monotonicNow() - $0 } ?? 0)
    }

    /// Runs a session command; its refusal as MPD's error.
    func run(_ command: Command) throws(Ack) {
        do { try session.run(command) } catch { throw Ack(error) }
    }

    // MARK: Queue lookups

    var queue: Queue { session.queue }

    func entry(at position: Int) throws(Ack) -> QueueEntry {
        let queue = self.queue
        guard queue.entries.indices.contains(position) else { throw Ack.argument("Bad song index") }
        return queue.entries[position]
    }

    func entry(id: UInt64) throws(Ack) -> (QueueEntry, position: Int) {
        let queue = self.queue
        guard let i = queue.index(of: EntryID(id)) else { throw Ack.noExist("No such song") }
        return (queue.entries[i], i)
    }
}

/// A request's arguments, read as MPD's types with MPD's error messages.
struct Arguments {
    let values: [String]
    init(_ values: [String]) { self.values = values }

    var count: Int { values.count }
    subscript(i: Int) -> String? { values.indices.contains(i) ? values[i] : nil }

    func int(_ i: Int) throws(Ack) -> Int {
        guard let value = Int(values[i]) else { throw Ack.argument("Integer expected: \(values[i])") }
        return value
    }

    func unsigned(_ i: Int) throws(Ack) -> Int {
        let value = try int(i)
        guard value >= 0 else { throw Ack.argument("Number is negative: \(values[i])") }
        return value
    }

    func id(_ i: Int) throws(Ack) -> UInt64 {
        guard let value = UInt64(values[i]) else { throw Ack.argument("Integer expected: \(values[i])") }
        return value
    }

    func bool(_ i: Int) throws(Ack) -> Bool {
        switch values[i] {
        case "0": return false
        case "1": return true
        default: throw Ack.argument("Boolean (0/1) expected: \(values[i])")
        }
    }

    /// Seconds, possibly fractional, as µs.
    func seconds(_ i: Int) throws(Ack) -> MediaTime {
        guard let value = Double(values[i]), let micros = MediaTime.fromSeconds(value) else {
            throw Ack.argument("Float expected: \(values[i])")
        }
        return micros
    }

    /// MPD's `START:END` in seconds, either side optional (`:` alone: no range, nil);
    /// an end of 0 is none, and an end must come after the start.
    func timeRange(_ i: Int) throws(Ack) -> PlayRange? {
        let parts = values[i].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        func time(_ text: Substring) -> MediaTime?? {
            if text.isEmpty { return .some(nil) }
            guard let seconds = Double(text), seconds >= 0, let micros = MediaTime.fromSeconds(seconds) else { return nil }
            return .some(micros)
        }
        guard parts.count == 2, let start = time(parts[0]), let end = time(parts[1]) else { throw Ack.argument("Bad range") }
        let last = end == 0 ? nil : end
        if (start ?? 0) == 0 && last == nil { return nil }
        guard let range = PlayRange(start: start ?? 0, end: last) else { throw Ack.argument("Bad range") }
        return range
    }

    /// A place to insert at: 0 through `count`.
    func position(_ i: Int, count: Int) throws(Ack) -> Int {
        let position = try unsigned(i)
        guard position <= count else { throw Ack.argument("Bad song index") }
        return position
    }

    /// `N` (one position) or `START:END` (END excluded; empty: to the end), within `count`.
    func range(_ i: Int, count: Int) throws(Ack) -> Range<Int> {
        let text = values[i]
        guard let colon = text.firstIndex(of: ":") else {
            let position = try unsigned(i)
            guard position < count else { throw Ack.argument("Bad song index") }
            return position..<position + 1
        }
        guard let start = Int(text[..<colon]), start >= 0 else { throw Ack.argument("Integer expected: \(text)") }
        let endText = text[text.index(after: colon)...]
        guard let end = endText.isEmpty ? count : Int(endText), end >= start else {
            throw Ack.argument("Bad range: \(text)")
        }
        guard start <= count else { throw Ack.argument("Bad song index") }
        return start..<min(end, count)
    }
}
