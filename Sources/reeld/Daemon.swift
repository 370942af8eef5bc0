import FoundationEssentials
import ReelSystem
import Glibc
import ReelCache
import ReelCore
import ReelDBus
import ReelLibrary
import ReelMPD
import ReelMPRIS
import ReelMPV
import ReelSettings

/// Wires the engine to its adapters and runs the single-threaded loop.
/// All engine state is touched on this thread only.
final class Daemon: Session {
    /// The engine and the backend, and what passes between them.
    let player: Player
    var engine: Engine { player.engine }
    var backend: MPVBackend { player.backend }
    /// The library and the cache for the buses; the cache's is nil with cache-size 0.
    let libraryService: LibraryService
    let cacheService: CacheService?
    private let connection: Connection
    private(set) var mpris: MPRISService?
    /// The MPD protocol's listeners, a sibling of `mpris` over the same session.
    private(set) var mpd: MPDServer?
    private(set) var controlAddresses: [String] = []
    private(set) var audioOutput = ""
    private var quitting = false
    /// The player's revision the buses were last told of.
    private var publishedRevision: UInt64?
    private let art: CoverArt
    /// Wakes the loop at the engine's deadline (a queued entry becoming audible).
    private let timer = DeadlineTimer()
    private lazy var prober: TagProber = {
        let prober = TagProber(results: tasks)
        prober.probesRemote = !backend.readsThroughCache
        return prober
    }()
    let library: LibraryBridge
    /// Results of work done off the loop (imports, cover art, probes, library writes).
    let tasks: Mailbox<LoopResult>

    /// `settings` are applied before clients can see anything, so that they
    /// read as the start-up state rather than as changes.
    init(connection: Connection, backend: MPVBackend, cache: Cache?, introspectionXML: String, cacheDir: URL,
         library: LibraryBridge, tasks: Mailbox<LoopResult>, settings: [Command], resume: ResumePolicy,
         sleepFade: MediaTime) {
        self.connection = connection
        var engine = Engine(seed: UInt64(truncatingIfNeeded: monotonicNow()))
        engine.resumePolicy = resume
        engine.sleepFade = sleepFade
        self.tasks = tasks
        self.library = library
        art = CoverArt(cacheDir: cacheDir.appendingPathComponent("art"), results: tasks)
        let player = Player(engine: engine, backend: backend, library: library, art: art,
                            cachedCopy: { cache?.completePath($0) })
        self.player = player
        let scanner = SilenceScanner(results: tasks)
        let cacheService = cache.map { CacheService(cache: $0, player: player, library: library, scanner: scanner, tasks: tasks) }
        self.cacheService = cacheService
        libraryService = LibraryService(player: player, library: library, downloads: cacheService, scanner: scanner, tasks: tasks)
        player.onTrackAdded = { [unowned self] entry in
            prober.probeIfUnknown(entry)
            libraryService.scanSilences(CollectionOfOne(entry))
        }
        for command in settings { try? run(command) }
        mpris = MPRISService(connection: connection, host: self, library: library.library == nil ? nil : libraryService,
                             cache: cacheService, introspectionXML: introspectionXML, version: reelVersion)
    }

    /// Opens the MPD protocol's listeners.
    func openMPD(socketPath: String?, tcp: ListenAddress?, password: String?, timeout: MediaTime,
                 musicFolder: String) throws(SystemError) {
        let commands = try MPDCommands(session: self, library: library.library == nil ? nil : libraryService, password: password,
                                   musicFolder: musicFolder, coverFolder: art.cacheDir.path, extractCover: art.extractNow)
        mpd = try MPDServer(commands: commands, socketPath: socketPath, tcp: tcp, timeout: timeout)
        mpd?.log = { log("MPD: " + $0) }
        controlAddresses = [socketPath, mpd?.tcpAddress?.description].compactMap { $0.map { "mpd:" + $0 } }
    }

    // MARK: Session

    var snapshot: Snapshot { player.snapshot }
    var queue: Queue { engine.queue }

    func run(_ command: Command) throws(SessionError) {
        var command = command
        if case .add(let entries, let after, let atStart, let play) = command {
            command = .add(entries: library.enrich(entries), after: after, atStart: atStart, play: play)
        }
        try player.run(command).mapError(SessionError.init).get()
    }

    func validate(_ text: String) throws(SessionError) -> String { try PlayableURI.validate(text).mapError(SessionError.init).get() }
    func expand(_ text: String) throws(SessionError) -> [String] { try PlayableURI.expand(text).mapError(SessionError.init).get() }

    /// Puts back the queue stored by the last run, paused at its position.
    func restoreQueue() -> Int {
        guard let (stored, settings) = library.storedQueue() else { return 0 }
        player.apply { $0.restore(stored, settings: settings, now: monotonicNow()) }
        libraryService.applyEpisodeSettings()
        engine.queue.entries.forEach(prober.probeIfUnknown)
        libraryService.scanSilences(engine.queue.entries)
        return stored.count
    }

    var libraryError: String? { library.problem }

    private func handle(_ task: LoopResult) {
        switch task {
        case .downloadProgress(let url, let present, let length): mpris?.downloadProgress(url, present: present, length: length)
        case .downloadDone(let url, let result):
            cacheService?.downloadEnded(url, result)
            switch result {
            case .success(let path): mpris?.downloadFinished(url, path: path, error: nil)
            case .failure(let error): mpris?.downloadFinished(url, path: nil, error: "\(error)")
            }
        case .syncDone(let job, let result):
            libraryService.catalogueChanged()
            library.reloadEpisodeSettings()
            cacheService?.syncEnded(job: job, result)
        case .importProgress(let job, let done, let total): libraryService.importProgress(job: job, done: done, total: total)
        case .importDone(let job, let summary): libraryService.importDone(job: job, summary)
        case .watch(let event): libraryService.watched(event)
        case .libraryWrite(let outcome):
            let attached = library.take(outcome)
            player.apply { $0.attach(items: attached) }
        case .coverArt(let entry, let url): player.apply { $0.learn(TrackMetadata(artURL: url), for: entry, now: monotonicNow()) }
        case .tags(let uri, let metadata):
            for entry in prober.finished(uri) {
                if let metadata { player.apply { $0.learn(metadata, for: entry, now: monotonicNow()) } }
            }
        case .silences(let uri, let silences, let problem):
            if let problem {
                log("cannot trim the silences of \(uri): \(problem)")
                break
            }
            log("silences of \(uri): \(silences.spans.count), \(ClockText.format(Trim(silences: silences)?.saved ?? 0)) to trim")
            // Also none found: the library then knows it was looked at, and does not look again.
            for entry in engine.queue.entries where entry.uri == uri {
                player.apply { $0.learn(TrackMetadata(silences: silences), for: entry.id, now: monotonicNow()) }
            }
        }
    }

    /// The engine's estimate of what is heard, extrapolated to now. mpv's
    /// audio-pts is only a sample taken at its last audio chunk (up to ~100 ms
    /// old), so reading it directly would lag; every sample feeds the estimate instead.
    func position() -> MediaTime {
        engine.position(at: monotonicNow())
    }

    func sleepLeft() -> MediaTime? {
        engine.sleepLeft(at: monotonicNow())
    }

    func quit() { quitting = true }

    /// The sound goes to `output` (snapserver), which plays it this much after mpv hands it over.
    func useOutput(_ output: String, delay: MediaTime) {
        audioOutput = output
        player.apply { engine in
            engine.outputDelay = delay
            return []
        }
    }

    func coverArt(for text: String) -> String? {
        let uri = text.hasPrefix("/") ? URL(fileURLWithPath: text).absoluteString : text
        if let entry = engine.queue.entries.first(where: { $0.uri == uri }), let art = entry.metadata.artURL { return art }
        if let item = try? library.library?.knownItems(forURIs: [uri]).first ?? nil, let art = item.metadata.artURL { return art }
        return CoverArt.beside(uri)
    }

    func audioNow() -> (format: AudioFormat?, bitrate: Int?) {
        engine.state.token == nil ? (nil, nil) : backend.audioNow()
    }

    // MARK: The loop

    /// Runs until Quit or a stop signal. Returns the exit status.
    func runLoop(stopFD: Int32) -> Int32 {
        var sources = PollSet { source in
            switch source {
            case .bus: connection.fd
            case .backend: backend.wakeupFD
            case .stop: stopFD
            case .tasks: tasks.fd
            case .timer: timer.fd
            }
        }
        // What the start did (the files given on the command line) is announced before any
        // call is answered: a client that reads Tracks must not get TrackAdded for them after.
        publish()
        // Whether the backend's wakeup pipe and the task mailbox had something at the last poll
        // (both at first): draining them costs syscalls and, in libmpv, a timed wait, which made up a
        // fifth of an MPD `status` round trip when done every turn.
        var backendReady = true, tasksReady = true
        while !quitting {
            // libdbus may already hold messages it read while writing: take them first.
            while let message = connection.popMessage() { mpris?.handle(message) }
            if tasksReady { for task in tasks.take() { handle(task) } }
            // What calls and tasks changed is told before mpv's events are drained: libmpv's
            // mpv_wait_event sleeps in a timed wait to find it has no more, which held an MPD
            // client's `idle` for 0.5 ms behind a `pause` in half the runs of the bench.
            publish()
            if backendReady {
                player.drainBackend()
                publish()
            }
            handLibraryTheTurn()
            if quitting { break }

            timer.set(player.deadline)
            // Flushing the signals may have read the next call into libdbus's queue.
            // The MPD bus's silent clients are timed out by poll's own timeout.
            let wait = connection.hasQueuedMessages ? 0 : mpd?.deadline.map { Int32(clamping: max(0, $0 - monotonicNow()) / 1000 + 1) } ?? -1
            let ready = sources.wait(extra: mpd?.descriptors ?? [], timeoutMs: wait)
            if ready < 0 && errno != EINTR { log("poll failed: \(String(cString: strerror(errno)))"); return 1 }
            backendReady = sources.isReady(.backend)
            tasksReady = sources.isReady(.tasks)
            if sources.isReady(.timer) {
                timer.acknowledge()
                player.apply { $0.tick(now: monotonicNow()) }
            }
            if sources.isReady(.bus) {
                guard connection.readWrite(timeoutMs: 0), connection.isConnected else {
                    log("lost the connection to the session bus")
                    return 1
                }
            }
            if sources.isReady(.stop) { quitting = true }
            let clients = sources.extraPolled
            if !clients.isEmpty {
                mpd?.service(clients)
                publish()   // what MPD's commands changed, to both buses at once
            }
            mpd?.expire(now: monotonicNow())
        }
        return 0
    }

    /// Hands this turn's announcements to the MPD bus, whose clients' idle replies are a write
    /// each; then gives the backend the turn's commands; then tells MPRIS, which builds and sends
    /// D-Bus messages. The backend's commands wait for MPD's writes: libmpv takes its core lock
    /// for each, and mpv's core thread, woken by the first, contends for it; done before, that
    /// held an MPD client's `idle` for 0.3–0.5 ms behind a `pause` in some runs of the bench. They
    /// do not wait for MPRIS's: sending its signals wakes dbus-daemon and the widgets, and a busy
    /// machine then ran others first, so that mpv paused 6–13 ms after the position widgets had
    /// been told, and the pause was corrected with a Seeked (3 of 16 runs of a test of short
    /// plays beside a busy loop; 0 of 40 with this order). PropertiesChanged comes 0.03–0.05 ms
    /// later for it.
    private func publish() {
        repeat {
            let announcements = player.takeAnnouncements()
            let changed = player.revision != publishedRevision
            publishedRevision = player.revision
            mpd?.publish(announcements, sessionChanged: changed)
            player.sendHeldCommands()
            mpris?.publish(announcements, sessionChanged: changed)
            // What the commands' answers changed (a load that opens locally) is told in this turn
            // too, also when it announced nothing: the next turn may be a long wait away.
        } while player.hasAnnouncements || player.revision != publishedRevision
    }

    /// However the loop ended: stores where playback was, stops it, and waits
    /// (a few seconds at most) for the library writes to go through.
    func shutDown() {
        player.apply { $0.checkpoint(now: monotonicNow()) }
        _ = player.run(.stop)
        player.sendHeldCommands()
        handLibraryTheTurn()
        connection.flush()
        mpd = nil   // closes its clients and removes its socket
        library.flush()
    }

    /// Hands what this turn changed (positions, play counts, tags, queue rows,
    /// settings) to the library's writer thread.
    private func handLibraryTheTurn() {
        if player.queueNeedsSaving { player.apply { $0.saveQueue() } }
        library.endTurn()
    }
}

/// One line of the log: what came from outside (names, URLs, titles) cannot start another.
func log(_ line: String) {
    writeStandardError("reeld: \(line.escapingControls())\n")
}
