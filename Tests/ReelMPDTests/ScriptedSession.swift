import ReelCore
@testable import ReelMPD

/// A session over the real engine with no player behind it: backend
/// commands are dropped, and tests feed the backend's events by hand.
final class ScriptedSession: Session {
    var engine = Engine(seed: 7)
    var now: MonotonicTime = 1_000_000
    /// Announcements of the commands run since the last `take`.
    private(set) var announcements: [Announcement] = []
    /// Loads the engine asked for, newest last.
    private(set) var loads: [LoadToken] = []
    /// The entry queued to follow without a gap, as the backend would hold it.
    private(set) var queued: LoadToken?

    var snapshot: Snapshot { engine.snapshot }
    var queue: Queue { engine.queue }

    func run(_ command: Command) throws(SessionError) {
        try engine.handle(command, now: now).map { perform($0) }.mapError(SessionError.init).get()
    }

    func position() -> MediaTime { engine.position(at: now) }
    func sleepLeft() -> MediaTime? { engine.sleepLeft(at: now) }
    func quit() {}

    func validate(_ text: String) throws(SessionError) -> String {
        if text.hasPrefix("/missing") { throw SessionError(.noSuchFile, "no such file: \(text)") }
        return text.hasPrefix("/") ? "file://" + text : text
    }

    func expand(_ text: String) throws(SessionError) -> [String] { [try validate(text)] }
    var libraryError: String? { nil }
    var controlAddresses: [String] { [] }
    var audioOutput: String { "" }
    /// What the player would say it decodes.
    var audio: (format: AudioFormat?, bitrate: Int?) = (nil, nil)
    func audioNow() -> (format: AudioFormat?, bitrate: Int?) { audio }
    /// Covers by URI or path.
    var covers: [String: String] = [:]
    func coverArt(for uri: String) -> String? { covers[uri] }

    /// The backend's answer to the newest load: open, tagged, playing from `position`.
    func loaded(_ metadata: TrackMetadata = TrackMetadata(length: 60_000_000), position: MediaTime = 0) {
        guard let token = loads.last else { return }
        perform(engine.handle(.loaded(token, metadata, seekable: true), now: now))
        perform(engine.handle(.restarted(token, position: position), now: now))
    }

    /// The current load's end, and the backend going on to the queued entry by itself.
    func playIntoQueued() {
        guard let ending = loads.last, let next = queued else { return }
        feed(.endOfFile(ending))
        feed(.started(next))
        loads.append(next)
        queued = nil
        feed(.loaded(next, TrackMetadata(length: 60_000_000), seekable: true))
        feed(.restarted(next, position: 0))
    }

    /// A backend event, as the player would send it.
    func feed(_ event: BackendEvent) {
        perform(engine.handle(event, now: now))
    }

    /// Tags learnt for the entry at `position` (as a probe would find them).
    func learn(_ metadata: TrackMetadata, at position: Int) {
        perform(engine.learn(metadata, for: engine.queue.entries[position].id, now: 0))
    }

    func take() -> [Announcement] {
        defer { announcements = [] }
        return announcements
    }

    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .backend(.load(let token, _, _, _, _, _)): loads.append(token); queued = nil
            case .backend(.queueNext(let token, _, _, _, _)): queued = token
            case .backend(.unqueueNext), .backend(.unload): queued = nil
            case .announce(let announcement): announcements.append(announcement)
            default: break
            }
        }
    }
}

/// One client's conversation, as text.
final class Conversation {
    let session = ScriptedSession()
    let commands: MPDCommands
    let client: ClientProtocol

    let library: ScriptedLibrary

    /// A client of the Unix socket unless `local` is false.
    init(password: String? = nil, authorized: Bool = true, local: Bool = true, musicFolder: String = "/music",
         coverFolder: String? = nil) {
        library = ScriptedLibrary(session: session)
        // A pipe that cannot be made is a broken machine, not a test result.
        commands = try! MPDCommands(session: session, library: library, password: password,
                               musicFolder: musicFolder, coverFolder: coverFolder)
        client = ClientProtocol(commands: commands, authorized: authorized, local: local)
        _ = client.takeOutput()   // the greeting
    }

    /// Sends lines; returns everything the client was answered.
    @discardableResult
    func send(_ lines: String...) -> String { send(lines) }

    @discardableResult
    func send(_ lines: [String]) -> String {
        String(decoding: lines.flatMap(answer), as: UTF8.self)
    }

    /// Sends one line; returns its answer's bytes (a cover's are binary).
    func answer(_ line: String) -> [UInt8] {
        client.receive(Substring(line))
        // As the server does for a client that reads everything at once, and once a cover is read.
        while client.isBusy || client.isWaiting {
            if client.isWaiting {
                commands.covers.finish()
                _ = commands.covers.news.take()
                client.resume()
            }
            client.proceed(outputLimit: .max, deadline: .max)
        }
        return client.takeOutput()
    }

    /// Ends the daemon's loop turn: publishes what changed.
    func endTurn() -> String {
        client.notify(commands.update(session.take()))
        return String(decoding: client.takeOutput(), as: UTF8.self)
    }

    /// Ends a turn and forgets what it changed (a client that saw it all already).
    func settle() {
        _ = endTurn()
        client.receive("idle")
        client.receive("noidle")
        _ = client.takeOutput()
    }

    /// The `key: value` pairs of a reply.
    func pairs(_ line: String) -> [String: String] {
        var out: [String: String] = [:]
        for row in send(line).split(separator: "\n") {
            guard let colon = row.firstIndex(of: ":") else { continue }
            out[String(row[..<colon])] = String(row[row.index(colon, offsetBy: 2)...])
        }
        return out
    }
}

/// A library in memory: items and playlists, as the real one answers.
final class ScriptedLibrary: LibrarySession {
    var items: [LibraryItem] = [] { didSet { libraryRevision += 1; catalogueRevision += 1 } }
    var libraryRevision: Int64 = 0
    var catalogueRevision = 0
    var playlistRevision = 0
    var stored: [(info: PlaylistInfo, items: [Int64])] = []
    weak var session: ScriptedSession?
    var imports: [[String]] = []

    init(session: ScriptedSession) { self.session = session }

    @discardableResult
    func add(_ path: String, title: String? = nil, artist: String? = nil, album: String? = nil, seconds: Int64 = 60,
             genre: String? = nil) -> LibraryItem {
        var info = ProbedItem(title: title, artist: artist, album: album, duration: seconds * 1_000_000)
        info.genre = genre
        if path.hasPrefix("http") { info.remoteURL = path } else { info.localPath = path }
        let item = LibraryItem(id: Int64(items.count + 1), info: info)
        items.append(item)
        return item
    }

    func libraryItems(matching query: String, offset: Int, limit: Int) throws(SessionError) -> [LibraryItem] { items }
    func libraryItem(_ id: Int64) throws(SessionError) -> LibraryItem? { items.first { $0.id == id } }
    func removeLibraryItem(_ id: Int64) throws(SessionError) -> Bool { false }
    func forgetPosition(_ id: Int64) throws(SessionError) -> Bool { false }
    func playLibraryItems(_ items: [LibraryItem]) -> Int { 0 }

    func queueLibraryItems(_ items: [LibraryItem], after: EntryID?, atStart: Bool) throws(SessionError) {
        let entries = items.map { NewEntry(uri: $0.localPath.map { "file://" + $0 } ?? $0.remoteURL!, itemID: $0.id, metadata: $0.metadata) }
        try session!.run(.add(entries: entries, after: after, atStart: atStart, play: false))
    }

    func importItems(_ inputs: [String], rescan: Bool, progress: @escaping (Int, Int) -> Void,
                     done: @escaping (ImportSummary) -> Void) throws(SessionError) {
        imports.append(inputs)
        rescans.append(rescan)
        finishImports.append(done)
    }
    var rescans: [Bool] = []
    /// The imports' ends, in the order they were asked for (the real library runs them so).
    var finishImports: [(ImportSummary) -> Void] = []
    var scanning: Bool { !finishImports.isEmpty }
    func finishNextImport(_ summary: ImportSummary = ImportSummary()) { finishImports.removeFirst()(summary) }
    func scanProblems() throws(SessionError) -> [(path: String, reason: String)] { [] }
    var watchStatus: String { "off" }

    func savePlaylist(_ name: String) throws(SessionError) -> Int {
        let ids = session!.queue.entries.compactMap(\.itemID)
        stored.removeAll { $0.info.name == name }
        stored.append((PlaylistInfo(id: Int64(stored.count + 100), name: name, count: ids.count, createdAt: 1_767_225_600), ids))
        playlistRevision += 1
        return ids.count
    }

    func writePlaylist(_ name: String, items ids: [Int64]) throws(SessionError) {
        let id = stored.first { $0.info.name == name }?.info.id ?? Int64(stored.count + 100)
        stored.removeAll { $0.info.name == name }
        stored.append((PlaylistInfo(id: id, name: name, count: ids.count, createdAt: 1_767_225_600), ids))
        playlistRevision += 1
    }

    func loadPlaylist(id: Int64) throws(SessionError) -> Int? { nil }
    func playlists() throws(SessionError) -> [PlaylistInfo] { stored.map(\.info).sorted { $0.name < $1.name } }
    func playlistItems(id: Int64) throws(SessionError) -> [LibraryItem] {
        (stored.first { $0.info.id == id }?.items ?? []).compactMap { id in items.first { $0.id == id } }
    }
    func removePlaylist(id: Int64) throws(SessionError) -> Bool {
        let before = stored.count
        stored.removeAll { $0.info.id == id }
        return stored.count < before
    }
    func renamePlaylist(id: Int64, to name: String) throws(SessionError) {
        if let i = stored.firstIndex(where: { $0.info.id == id }) { stored[i].info.name = name }
    }
    var activePlaylist: PlaylistInfo? { nil }
    func feeds() throws(SessionError) -> [FeedSummary] { [] }
    func timeSavedInAll() throws(SessionError) -> MediaTime { 0 }
    func changeFeed(named name: String, _ change: (inout EpisodeSettings) -> Void) throws(SessionError) -> FeedSummary {
        throw SessionError(.noSuchItem, "no feed \(name)")
    }
}
