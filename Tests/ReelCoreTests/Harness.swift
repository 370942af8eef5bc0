import ReelCore

/// A fake backend: it remembers what the engine asked for, and produces the
/// events a real backend would, for the load it is playing.
struct FakeBackend {
    var token: LoadToken?
    var uri: String?
    var paused = false
    var rate = 1.0
    var volume = 1.0
    var seeks: [MediaTime] = []

    mutating func apply(_ effect: Effect) {
        switch effect {
        case .load(let t, let u, _, let p): token = t; uri = u; paused = p
        case .unload: token = nil; uri = nil
        case .setPaused(let p): paused = p
        case .seek(let target): seeks.append(target)
        case .setRate(let r): rate = r
        case .setVolume(let v): volume = v
        default: break
        }
    }
}

/// Drives an engine with a fake backend and a fake clock, recording effects.
struct Harness {
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

    private mutating func record(_ e: [Effect]) {
        effects = e
        e.forEach { backend.apply($0) }
    }

    mutating func advance(ms: Int64) { now += ms * 1000 }

    /// The backend finishes loading the current entry and starts it.
    mutating func finishLoad(length: MediaTime = 10_000_000, title: String? = nil, seekable: Bool = true,
                             at position: MediaTime = 0) {
        let token = backend.token!
        event(.loaded(token, TrackMetadata(title: title, length: length), seekable: seekable))
        event(.restarted(token, position: position))
    }

    var token: LoadToken { backend.token! }
    /// The load among the last effects, if any.
    var load: (token: LoadToken, uri: String, start: MediaTime, paused: Bool)? {
        for case .load(let t, let u, let s, let p) in effects { return (t, u, s, p) }
        return nil
    }
    /// The last effects without the persistence ones, for tests about playback.
    var playbackEffects: [Effect] {
        effects.filter { if case .savePosition = $0 { false } else if case .finished = $0 { false } else { true } }
    }
    var status: String { engine.snapshot.status }
    var currentID: EntryID? { engine.queue.currentID }
    var position: MediaTime { engine.anchor.position(at: now) }
    var seekedPositions: [MediaTime] {
        effects.compactMap { if case .seeked(let p) = $0 { p } else { nil } }
    }
    func id(_ n: Int) -> EntryID { engine.queue.entries[n - 1].id }
}
