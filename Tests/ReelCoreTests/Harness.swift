import ReelCore

/// A fake backend: it remembers what the engine asked for, as mpv's
/// two-entry playlist (the playing load and the queued one).
struct FakeBackend {
    var token: LoadToken?
    var uri: String?
    var queued: (token: LoadToken, uri: String, start: MediaTime, rate: Double)?
    var paused = false
    var rate = 1.0
    var volume = 1.0
    var seeks: [MediaTime] = []
    /// How many times the engine asked where playback is.
    var positionReports = 0

    mutating func apply(_ effect: Effect) {
        guard case .backend(let command) = effect else { return }
        switch command {
        case .load(let t, let u, _, _, let p, let r): token = t; uri = u; paused = p; rate = r; queued = nil
        case .queueNext(let t, let u, let s, _, let r): queued = (t, u, s, r)
        case .unqueueNext: queued = nil
        case .unload: token = nil; uri = nil; queued = nil
        case .setPaused(let p): paused = p
        case .seek(let target): seeks.append(target)
        case .setRate(let r): rate = r
        case .setVolume(let v): volume = v
        case .reportPosition: positionReports += 1
        case .setReplayGain, .setVideo, .setVoiceBoost, .setTrim: break
        }
    }
}

/// Drives an engine with a fake backend and a fake clock, recording effects.
struct Harness {
    /// How long after a (re)start the fake backend's samples show the audio
    /// running: two samples, 20 ms apart.
    static let heardAfter: MonotonicTime = 40_000
    var engine = Engine(seed: 42)
    var backend = FakeBackend()
    /// The fake monotonic clock, in µs.
    var now: MonotonicTime = 1_000_000_000
    /// Effects of the last input.
    var effects: [Effect] = []

    init(uris: [String] = [], play: Bool = false) {
        if !uris.isEmpty { command(.add(uris: uris, after: nil, atStart: false, play: play)) }
    }

    @discardableResult
    mutating func command(_ command: Command) -> CommandError? {
        switch engine.handle(command, now: now) {
        case .success(let e):
            record(e)
            return nil
        case .failure(let error):
            effects = []
            return error
        }
    }

    mutating func event(_ event: BackendEvent) {
        record(engine.handle(event, now: now))
    }

    mutating func record(_ e: [Effect]) {
        effects = e
        e.forEach { backend.apply($0) }
    }

    mutating func advance(ms: Int64) { now += ms * 1000 }

    /// Lets time pass and delivers what is due at the end of it.
    mutating func tick(ms: Int64) {
        advance(ms: ms)
        record(engine.tick(now: now))
    }

    /// The backend finishes loading the current entry and starts it; its
    /// samples then show the audio running (`heardAfter` later).
    mutating func finishLoad(length: MediaTime = 10_000_000, title: String? = nil, seekable: Bool = true,
                             at position: MediaTime = 0) {
        let token = backend.token!
        event(.loaded(token, TrackMetadata(title: title, length: length), seekable: seekable))
        event(.restarted(token, position: position))
        hear(from: position)
    }

    /// Samples of a position that runs from `position` since the restart
    /// (`heardAfter` ago, when this returns).
    mutating func hear(from position: MediaTime) {
        for step in 1...2 {
            advance(ms: 20)
            event(.position(token, position + MediaTime(step) * 20_000))
        }
    }

    /// The backend reaches the end of the current entry and goes on to the
    /// queued one by itself, with `tail` of the old one still buffered.
    mutating func playIntoQueued(tail: MediaTime = 300_000, length: MediaTime = 10_000_000, title: String? = nil) {
        let ended = backend.token!
        guard let queued = backend.queued else { return event(.endOfFile(ended)) }
        event(.endOfFile(ended))
        backend.token = queued.token
        backend.uri = queued.uri
        backend.rate = queued.rate   // mpv's per-file speed
        backend.queued = nil
        event(.started(queued.token))
        event(.loaded(queued.token, TrackMetadata(title: title, length: length), seekable: true))
        event(.restarted(queued.token, position: queued.start - tail))
    }

    var token: LoadToken { backend.token! }
    /// The load among the last effects, if any.
    var load: (token: LoadToken, uri: String, start: MediaTime, paused: Bool)? {
        for case .backend(.load(let t, let u, let s, _, let p, _)) in effects { return (t, u, s, p) }
        return nil
    }
    /// The last effects without the persistence ones and the queueing, for tests about playback.
    var playbackEffects: [Effect] {
        effects.filter {
            switch $0 {
            case .store, .backend(.queueNext), .backend(.unqueueNext): false
            default: true
            }
        }
    }
    var status: String { engine.snapshot.status.rawValue }
    var currentID: EntryID? { engine.queue.currentID }
    var position: MediaTime { engine.position(at: now) }
    var seekedPositions: [MediaTime] {
        effects.compactMap {
            switch $0 {
            case .announce(.seeked(let p)), .announce(.settled(let p)): p
            default: nil
            }
        }
    }
    func id(_ n: Int) -> EntryID { engine.queue.entries[n - 1].id }
}

/// A state's phase and token, without the rest of what its load carries.
enum Phase: Equatable {
    case stopped
    case loading(LoadToken, play: Bool)
    case playing(LoadToken)
    case paused(LoadToken)
    case buffering(LoadToken)
}

extension PlaybackState {
    var phase: Phase {
        switch self {
        case .stopped: .stopped
        case .loading(let load, let play): .loading(load.token, play: play)
        case .playing(let load): .playing(load.token)
        case .paused(let load): .paused(load.token)
        case .buffering(let load): .buffering(load.token)
        }
    }
}
