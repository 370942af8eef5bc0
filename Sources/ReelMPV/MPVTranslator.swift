import ReelCore

/// What the backend knows of mpv's playlist and of the file it plays, and the
/// translation of mpv's events (read into plain values at the edge) into the
/// engine's. Pure: no handle, no clock, no threads; `MPVBackend` performs what
/// it returns, in order.
struct MPVTranslator: Sendable {
    /// What mpv must be told or the engine hears, in order.
    enum Action: Equatable, Sendable {
        case event(BackendEvent)
        /// Take the entries with ids `first ..< first + count` out of mpv's playlist.
        case removeEntries(first: Int64, count: Int32)
        /// Hold mpv paused (true) or let it play as asked.
        case holdPaused(Bool)
        /// Seek mpv to a position of the file (sent through `MPVBackend.seek`).
        case seek(MediaTime)
    }

    /// Our entries in mpv's playlist, by mpv's entry id.
    private(set) var entries: [Int64: MPVEntry] = [:]
    /// What loads not yet sent asked for (a trim, the voice boost), by load.
    private var asked: [LoadToken: FileOptions] = [:]
    /// The entry between START_FILE and END_FILE; events without an id belong to it.
    private(set) var playing: PlayingFile?
    /// Whether the engine last asked for a pause.
    private(set) var paused = false
    /// After a seek while paused, mpv's time-pos reads short by its audio
    /// buffer (about 150 ms) until playback resumes; yet playback resumes at
    /// the exact target. Until then the target is the real position.
    private(set) var pausedSeekTarget: MediaTime?
    /// Seeks sent that mpv has not yet run. mpv runs commands and reports
    /// restarts in one order, so a restart while one is unanswered lands an
    /// earlier seek that a later one replaces: it is not where playback goes.
    private var seeksUnanswered = 0
    private var failure: PendingFailure?
    /// How long a network read may wait, in seconds (mpv's `network-timeout`).
    let networkTimeout: Int

    /// Behind a sink only: while it passes nothing on, mpv is held paused, and
    /// playback then goes on from the position last heard (the rest never
    /// reached a room). A sink starts so, until it first connects: before that,
    /// what mpv played into it would count as played and never be heard.
    private(set) var sinkLoss: SinkLoss?
    /// The last position heard, of the load it belongs to.
    private var lastHeard: Heard?
    /// Behind a sink, samples jitter by ±10 ms: they are laid onto a line.
    private var smoother = SampleSmoother()
    /// The rate last set (for the smoother's line), and how far it puts mpv's samples ahead.
    private var tempo = TempoLead()

    init(networkTimeout: Int, sinkProblem: String? = nil) {
        self.networkTimeout = networkTimeout
        sinkLoss = sinkProblem.map { SinkLoss(problem: $0, heard: nil, stalled: false) }
    }

    /// The load mpv plays now.
    var currentToken: LoadToken? { playing.flatMap { entries[$0.entry]?.token } }
    /// The entry mpv plays now.
    var current: MPVEntry? { playing.flatMap { entries[$0.entry] } }
    /// Whether mpv is to be paused: asked for, or held while a sink passes nothing on.
    var holdsPaused: Bool { paused || sinkLoss != nil }

    /// A time of mpv's (on a trimmed file's timeline) as the file's own.
    func fileTime(_ time: MediaTime) -> MediaTime { current?.options.trim?.file(time) ?? time }
    /// A time of the file's on mpv's timeline.
    func timeline(_ time: MediaTime) -> MediaTime { current?.options.trim?.timeline(time) ?? time }

    // MARK: What the engine asks

    mutating func ask(_ token: LoadToken, trim: Trim) { asked[token, default: FileOptions()].trim = trim }
    mutating func ask(_ token: LoadToken, voiceBoost on: Bool) {
        asked[token, default: FileOptions()].voiceBoost = on
        for (id, entry) in entries where entry.token == token { entries[id]?.options.voiceBoost = on }
    }

    /// The options asked for `token`, taken for its load; the ones of other loads lapse.
    mutating func takeOptions(for token: LoadToken) -> FileOptions {
        defer { asked = [:] }
        return asked[token] ?? FileOptions()
    }

    /// A load that replaces mpv's playlist is about to be sent.
    mutating func loading(paused: Bool) {
        self.paused = paused
        pausedSeekTarget = nil
        lastHeard = nil
    }

    /// mpv's playlist was replaced by this entry (`loadfile replace`): events of every other entry are stale.
    mutating func replaced(by entry: MPVEntry, id: Int64) {
        entries = [id: entry]
        replacedID = id
        appendedSinceClear = 0
    }

    /// The entry the last `loadfile replace` put in mpv's playlist.
    private var replacedID: Int64?

    /// Whether mpv's playlist holds none of our entries after the one it plays (or will play,
    /// after a replace); only files played before that one may be in it.
    var nothingQueued: Bool {
        entries.count <= 1 && entries.keys.allSatisfy { $0 == playing?.entry || $0 == replacedID }
    }

    /// The entry was appended to mpv's playlist.
    mutating func queued(_ entry: MPVEntry, id: Int64) {
        entries[id] = entry
        appendedSinceClear += 1
    }

    /// Entries appended since mpv's playlist was last cleared or replaced: the played files it still holds, at most.
    private(set) var appendedSinceClear = 0
    /// How many played files mpv's playlist may hold before they are cleared.
    static let playedKept = 16

    /// mpv's playlist was cleared but for the file it plays.
    mutating func cleared() { appendedSinceClear = 0 }

    /// mpv's playlist holds only these ids now.
    mutating func kept(_ ids: Set<Int64>) { entries = entries.filter { ids.contains($0.key) } }

    mutating func unloaded() { pausedSeekTarget = nil }

    mutating func setPaused(_ paused: Bool) {
        self.paused = paused
        if !paused { pausedSeekTarget = nil }
    }

    mutating func setRate(_ rate: Double) { tempo.setRate(rate) }
    /// The rate mpv plays at (the last set, or the playing file's own).
    var rate: Double { tempo.rate }

    /// A seek to `target` (of the file) is about to be sent.
    mutating func seeking(to target: MediaTime) {
        pausedSeekTarget = paused ? target : nil
        tempo.restart()
    }
    /// mpv took the seek: it answers it once run.
    mutating func seekSent() { seeksUnanswered += 1 }

    /// The real position, given mpv's (on its timeline); nil when nothing plays.
    func position(mpv: MediaTime?) -> MediaTime? { pausedSeekTarget ?? mpv.map { fileTime(heard($0)) } }

    /// What is heard, by mpv's sample of the audio's clock: behind it by the tempo filter's lead.
    private func heard(_ played: MediaTime) -> MediaTime { playing?.audioClock == true ? played - tempo.lead : played }

    // MARK: mpv's events

    mutating func translate(_ event: MPVEvent, at now: MonotonicTime) -> [Action] {
        switch event {
        case .startFile(let id):
            playing = PlayingFile(entry: id, openedAt: now, phase: .opening)
            // A queued file of its own rate: mpv plays it at that rate from here.
            if let rate = entries[id]?.options.rate { tempo.setRate(rate) }
            tempo.restart()
            return currentToken.map { [.event(.started($0))] } ?? []
        case .idle:
            return [.event(.idle)]
        case .windowClosed:
            return [.event(.windowClosed)]
        case .fileLoaded(let file):
            playing?.phase = .open
            guard let token = currentToken else { return [] }
            var metadata = file.metadata
            // A stream of no known size that cannot seek (a station, read by mpv itself): the
            // duration mpv gives it is that of what it has read so far.
            metadata.length = !file.seekable && !file.sizeKnown ? nil : metadata.length.map(fileTime)
            return [.event(.loaded(token, metadata, seekable: file.seekable, embeddedArt: file.embeddedArt))]
        case .seekAnswered:
            seeksUnanswered = max(seeksUnanswered - 1, 0)
            return []
        case .restarted(let mpvPosition):
            guard seeksUnanswered == 0, let token = currentToken, let position = position(mpv: mpvPosition) else { return [] }
            return [.event(.restarted(token, position: position))]
        case .endFile(let id, let reason):
            return ended(id, reason, at: now)
        case .position(let seconds, let clock, let sinkDelay):
            guard let token = currentToken else { return [] }
            switch clock {
            case .audio: playing?.audioClock = seconds != nil
            case .video: guard playing?.audioClock == false else { return [] }
            }
            return seconds.map { [.event(.position(token, sample($0, token, sinkDelay: sinkDelay, at: now)))] } ?? []
        case .tags(let tags):
            guard let token = currentToken, tags["icy-title"] != nil || tags["icy-name"] != nil else { return [] }
            return [.event(.streamTitle(token, title: tags["icy-title"].flatMap { $0.isEmpty ? nil : $0 },
                                        station: tags["icy-name"].flatMap { $0.isEmpty ? nil : $0 }))]
        case .pausedForCache(let stalled):
            return currentToken.map { [.event(.buffering($0, stalled))] } ?? []
        case .log(let text, let video):
            // A video output's complaints never explain why a file failed to open.
            guard !video else { return [] }
            if failure?.detail == .awaitingLog {
                // mpv may already have started the queued file: this line explains the failed one.
                failure?.detail = .known(text)
            } else if playing?.phase == .opening, playing?.firstError == nil {
                playing?.firstError = text
            }
            return []
        }
    }

    private mutating func ended(_ id: Int64, _ reason: MPVEvent.EndReason, at now: MonotonicTime) -> [Action] {
        let file = playing
        if playing?.entry == id { playing = nil }
        guard let entry = entries.removeValue(forKey: id) else { return [] }
        switch reason {
        case .endOfFile:
            return [.event(.endOfFile(entry.token))]
        case .error(let error, let cache):
            if let cache {
                // The cache knows what the server did; mpv saw only a failed read (no detail keeps
                // its "Failed to open reelcache://N" log line out).
                failure = PendingFailure(token: entry.token, reason: cache, detail: .none)
            } else if URLParts.isRemote(entry.uri), let file,
                      now - file.openedAt >= MonotonicTime(networkTimeout) * 900_000 {
                // mpv says only "Failed to open"; the wait says why.
                let host = URLParts.host(of: entry.uri) ?? "the server"
                failure = PendingFailure(token: entry.token, reason: "timed out connecting to \(host)",
                                         detail: .known("no answer in \(networkTimeout) s"))
            } else {
                failure = PendingFailure(token: entry.token, reason: error,
                                         detail: file?.firstError.map(PendingFailure.Detail.known) ?? .awaitingLog)
            }
            return []
        case .redirect(let first, let count):
            // A playlist (by its content, or served over http): mpv put its entries
            // in its own playlist. The queue is the engine's: take them out again.
            failure = PendingFailure(token: entry.token, reason: "is a playlist, not media",
                                     detail: .known("queue it with reel add or OpenUri, which add its entries"))
            return [.removeEntries(first: first, count: count)]
        case .other:
            return []
        }
    }

    /// The position heard for mpv's sample (on its timeline).
    private mutating func sample(_ played: MediaTime, _ token: LoadToken, sinkDelay: MediaTime?, at now: MonotonicTime) -> MediaTime {
        if let pausedSeekTarget { return pausedSeekTarget }
        // mpv counts audio as played once the sink took it; it is heard after the sink's delay.
        guard let sinkDelay else { return fileTime(heard(played)) }
        let position = fileTime(smoother.smooth(heard(played) - sinkDelay, at: now, rate: tempo.rate))
        lastHeard = Heard(token: token, position: position)
        return position
    }

    /// At the end of a drain: the failure held for its explanation.
    mutating func takeFailure() -> BackendEvent? {
        defer { failure = nil }
        return failure?.event
    }

    // MARK: The cache's news

    /// What a read of `url` through the cache ran into.
    func translate(_ news: CacheStream.News, of url: String) -> [BackendEvent] {
        switch news {
        case .stalled(let stalled):
            // A read of the playing file waiting on the network stalls playback, as mpv's own cache would.
            guard let current, current.uri == url, playing?.phase == .open else { return [] }
            return [.buffering(current.token, stalled)]
        case .failed(let reason):
            return tokens(of: url).map { .failed($0, reason: reason) }
        case .title(let title, let station):
            // A live stream relayed by the cache: its ICY title, as mpv would have read it. A
            // station queued next opens ahead of its start, and hears its first title then.
            return tokens(of: url).map { .streamTitle($0, title: title, station: station) }
        }
    }

    private func tokens(of url: String) -> [LoadToken] {
        entries.sorted { $0.key < $1.key }.compactMap { $0.value.uri == url ? $0.value.token : nil }
    }

    // MARK: The sink

    /// The sink stopped passing audio on: mpv holds (the position stays where
    /// it was heard) until it takes audio again.
    mutating func sinkLost(_ problem: String) -> [Action] {
        if let loss = sinkLoss {
            sinkLoss = SinkLoss(problem: problem, heard: loss.heard, stalled: loss.stalled)
            return [.event(.outputProblem(problem))]
        }
        // Paused, the rooms had heard everything up to where they stopped: nothing to play again.
        let stall = paused ? nil : currentToken
        sinkLoss = SinkLoss(problem: problem, heard: paused ? nil : lastHeard, stalled: stall != nil)
        return [.holdPaused(true), .event(.outputProblem(problem))] + (stall.map { [.event(.buffering($0, true))] } ?? [])
    }

    /// The sink takes audio again: playback goes on from where it was heard,
    /// if the file can seek.
    mutating func sinkBack(seekable: Bool) -> [Action] {
        guard let loss = sinkLoss else { return [] }
        sinkLoss = nil
        var actions: [Action] = []
        if let heard = loss.heard, heard.token == currentToken, seekable {
            // What was in the pipes and the server's buffer never reached a room: play it again.
            actions.append(.seek(max(heard.position, 0)))
        }
        actions += [.holdPaused(paused), .event(.outputProblem(nil))]
        if loss.stalled, !paused, let token = currentToken { actions.append(.event(.buffering(token, false))) }
        return actions
    }
}
