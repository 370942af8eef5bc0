import ReelCore
import ReelMPD

/// A session over the real engine with no player behind it: backend
/// commands are dropped, and tests feed the backend's events by hand.
final class ScriptedSession: Session {
    var engine = Engine(seed: 7)
    var now: MonotonicTime = 1_000_000
    /// Announcements of the commands run since the last `take`.
    private(set) var announcements: [Announcement] = []
    /// Loads the engine asked for, newest last.
    private(set) var loads: [LoadToken] = []

    var snapshot: Snapshot { engine.snapshot }
    var queue: Queue { engine.queue }

    func run(_ command: Command) -> Result<Void, CommandError> {
        engine.handle(command, now: now).map { perform($0) }
    }

    func position() -> MediaTime { engine.position(at: now) }
    func quit() {}

    func validate(_ text: String) -> Result<String, URIProblem> {
        if text.hasPrefix("/missing") { return .failure(.noSuchFile("no such file: \(text)")) }
        return .success(text.hasPrefix("/") ? "file://" + text : text)
    }

    func expand(_ text: String) -> Result<[String], URIProblem> { validate(text).map { [$0] } }
    var libraryError: String? { nil }

    /// The backend's answer to the newest load: open, tagged, playing from `position`.
    func loaded(_ metadata: TrackMetadata = TrackMetadata(length: 60_000_000), position: MediaTime = 0) {
        guard let token = loads.last else { return }
        perform(engine.handle(.loaded(token, metadata, seekable: true), now: now))
        perform(engine.handle(.restarted(token, position: position), now: now))
    }

    /// Tags learnt for the entry at `position` (as a probe would find them).
    func learn(_ metadata: TrackMetadata, at position: Int) {
        perform(engine.learn(metadata, for: engine.queue.entries[position].id))
    }

    func take() -> [Announcement] {
        defer { announcements = [] }
        return announcements
    }

    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .backend(.load(let token, _, _, _)): loads.append(token)
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

    init(password: String? = nil, authorized: Bool = true) {
        commands = MPDCommands(session: session, library: nil, password: password)
        client = ClientProtocol(commands: commands, authorized: authorized)
        _ = client.takeOutput()   // the greeting
    }

    /// Sends lines; returns everything the client was answered.
    @discardableResult
    func send(_ lines: String...) -> String {
        for line in lines { client.receive(Substring(line)) }
        return String(decoding: client.takeOutput(), as: UTF8.self)
    }

    /// Ends the daemon's loop turn: publishes what changed.
    func endTurn() -> String {
        client.notify(commands.update(session.take()))
        return String(decoding: client.takeOutput(), as: UTF8.self)
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
