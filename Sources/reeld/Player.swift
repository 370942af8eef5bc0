import FoundationEssentials
import ReelCore
import ReelMPV
import ReelSystem

/// The engine and the backend, and what passes between them: performs each
/// step's effects by their consumers, holds the turn's backend commands until
/// the buses were told, and feeds back what performing gave. Used from the
/// run loop's thread only.
final class Player {
    private(set) var engine: Engine {
        didSet {
            madeSnapshot = nil
            revision &+= 1
        }
    }
    /// Counts the steps that may have changed the engine: the buses need compare nothing while it stands.
    private(set) var revision: UInt64 = 0
    /// The snapshot of the engine as it is, made once for all who ask between two changes (both
    /// buses ask several times a loop turn, and each asking copied the engine).
    private var madeSnapshot: Snapshot?
    let backend: MPVBackend
    private let library: LibraryBridge
    private let art: CoverArt
    /// The complete copy of a remote file in the cache, if there is one.
    private let cachedCopy: (String) -> String?
    /// Told when an entry is queued (to probe its tags, scan its silences); set once, at start-up.
    var onTrackAdded: (QueueEntry) -> Void = { _ in }
    /// REEL_TRACE=1 logs every command, event and announcement.
    let trace = ProcessInfo.processInfo.environment["REEL_TRACE"] != nil

    /// Engine announcements of this loop turn, for the control buses.
    private var announcements: [Announcement] = []
    /// What performing effects gave back for the engine: a backend's
    /// synchronous answer, an entry without a source, a cover found beside
    /// the file. Fed only once every effect of the step that produced it is
    /// performed, so that a stale effect of that step can never act after it.
    private enum FollowUp {
        case event(BackendEvent)
        case art(EntryID, String?, replacing: Bool)
    }
    private var followUps: [FollowUp] = []
    private var settling = false
    /// Backend commands of this turn, sent once the buses have been told (see `Daemon.publish`).
    private var heldForBackend: [BackendCommand] = []

    init(engine: Engine, backend: MPVBackend, library: LibraryBridge, art: CoverArt, cachedCopy: @escaping (String) -> String?) {
        self.engine = engine
        self.backend = backend
        self.library = library
        self.art = art
        self.cachedCopy = cachedCopy
    }

    var snapshot: Snapshot {
        if let madeSnapshot { return madeSnapshot }
        let made = engine.snapshot
        madeSnapshot = made
        return made
    }

    // Read here, on the stored engine: through `Daemon.engine` each loop turn copied all of it.
    var deadline: MonotonicTime? { engine.deadline }
    var queueNeedsSaving: Bool { engine.queueNeedsSaving }

    /// Runs a command; its effects are performed.
    func run(_ command: Command) -> Result<Void, CommandError> {
        if trace { traceLine("command \(command)") }
        return engine.handle(command, now: monotonicNow()).map { perform($0) }
    }

    /// Takes any other step of the engine (a tick, tags learnt, a restored queue) and performs its effects.
    func apply(_ step: (inout Engine) -> [Effect]) {
        perform(step(&engine))
    }

    /// Drains the backend's events into the engine.
    func drainBackend() {
        for event in backend.drainEvents() { feed(event) }
    }

    /// The announcements of the turn so far, handed over once.
    func takeAnnouncements() -> [Announcement] {
        defer { announcements.removeAll() }
        return announcements
    }

    var hasAnnouncements: Bool { !announcements.isEmpty }

    // MARK: Effects

    /// Performs a step's effects in order, each by its consumer; then what they gave back.
    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .backend(let command):
                heldForBackend.append(command)
            case .announce(let announcement):
                if trace { traceLine("announce \(announcement)") }
                announcements.append(announcement)
                if case .trackAdded(let id, _) = announcement, let entry = engine.queue[id] { onTrackAdded(entry) }
            case .store(let change):
                library.record(change, in: engine.queue)
            case .log(let line):
                log(line)
            }
        }
        settle()
    }

    /// Feeds the follow-ups, oldest first, with whatever their own effects give back.
    private func settle() {
        guard !settling else { return }
        settling = true
        defer { settling = false }
        while !followUps.isEmpty {
            switch followUps.removeFirst() {
            case .event(let event): feed(event)
            case .art(let entry, let art, replacing: true): perform(engine.replaceArt(art, for: entry))
            case .art(let entry, let art, replacing: false): perform(engine.learn(TrackMetadata(artURL: art), for: entry, now: monotonicNow()))
            }
        }
    }

    /// Sends the held backend commands in order, and feeds back what they gave.
    func sendHeldCommands() {
        while !heldForBackend.isEmpty {
            let commands = heldForBackend
            heldForBackend.removeAll()
            for command in commands {
                if trace { traceLine("backend \(command)") }
                send(command)
            }
            settle()
        }
    }

    /// Hands a command to the backend; a load gets the entry's source as the library resolves it now.
    private func send(_ command: BackendCommand) {
        var command = command
        switch command {
        case .load(let token, let asked, let start, let end, let paused, let rate):
            guard var uri = playableURI(for: token, start: start) else { return }
            if engine.state.load?.token == token, engine.state.load?.trim != nil, URLParts.isRemote(uri),
               let copy = cachedCopy(uri) {
                // mpv opens the parts of a trimmed file itself, past the cache's hook: from the copy.
                uri = URL(fileURLWithPath: copy).absoluteString
            }
            command = .load(token, uri: uri, start: start, end: end, paused: paused, rate: rate)
            // A remote entry played from its download or complete copy seeks while it opens.
            if URLParts.isRemote(asked) && !URLParts.isRemote(uri) { followUps.append(.event(.opensLocally(token))) }
        case .queueNext(let token, _, let start, let end, let rate):
            guard let uri = playableURI(for: token, start: start) else { return }
            command = .queueNext(token, uri: uri, start: start, end: end, rate: rate)
        default: break
        }
        followUps += backend.perform(command).map(FollowUp.event)
    }

    /// What to give the backend for an entry: its library source (local
    /// first), with its cover art beside it; nil when it failed instead.
    private func playableURI(for token: LoadToken, start: MediaTime) -> String? {
        guard let entry = engine.queue[token.entry] else { return nil }
        switch library.source(for: entry) {
        case .unplayable(let reason):
            followUps.append(.event(.failed(token, reason: reason)))
            return nil
        case .uri(let uri):
            log((token == engine.queuedNext?.token ? "next: " : "playing ") + uri
                + (start > 0 ? " from \(start / 1_000_000) s" : ""))
            if let art = entry.metadata.artURL, !CoverArt.exists(art) {
                // A cover deleted since it was found: widgets would show a broken image.
                followUps.append(.art(token.entry, CoverArt.beside(uri), replacing: true))
            } else if entry.metadata.artURL == nil, let art = CoverArt.beside(uri) {
                followUps.append(.art(token.entry, art, replacing: false))
            }
            return uri
        }
    }

    private func feed(_ event: BackendEvent) {
        if case .loaded(let token, _, _, true) = event, let entry = engine.queue[token.entry],
           entry.metadata.artURL == nil {
            art.extract(from: entry.uri, for: token.entry)
        }
        if trace { traceLine("\(event)") }
        perform(engine.handle(event, now: monotonicNow()))
    }
}

/// A REEL_TRACE line, stamped with the monotonic clock (µs, last 100 s).
func traceLine(_ text: String) {
    log("\(monotonicNow() % 100_000_000) \(text)")
}
