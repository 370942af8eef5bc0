import ReelCore
import ReelSystem

/// One client's side of the protocol, without its socket: request lines
/// in, reply bytes out. Handles what MPD handles per connection: the
/// greeting, command lists, `idle`/`noidle`, `close` and the password.
///
/// A command list runs in steps (`proceed`), so that the server can stop
/// it while the client does not read and let the loop serve others: no
/// list costs more than one command's reply past the server's high water,
/// nor holds the loop for more than one command.
public final class ClientProtocol {
    public static let greeting = "OK MPD 0.23.5\n"
    /// A command list longer than this closes the connection, as in MPD.
    static let listLimit = 4 << 20
    /// Before the password, a list can hold nothing worth more than this
    /// (`ping`, `password`, `commands` and `notcommands` are all it may run).
    static let openListLimit = 16 << 10
    /// Wrong passwords a connection may send; the next one closes it.
    static let passwordTries = 3
    /// How long the answer to the first wrong password is held; each next one doubles it.
    static let firstPasswordDelay: MediaTime = 250_000

    private enum Mode {
        /// Between requests.
        case ready
        /// Inside `command_list_begin`: lines are kept until `command_list_end`.
        case collecting(ok: Bool, lines: [Substring], bytes: Int)
        /// A complete list being run; `next` is the first line not yet run.
        case running(ok: Bool, lines: [Substring], next: Int)
        /// A list (or one command, as a list of one) whose line `next` waits for a
        /// read off the loop (a cover), and runs again on `resume`.
        case waiting(ok: Bool, lines: [Substring], next: Int)
        /// A list (or one command, as a list of one) whose line `next` writes a long listing,
        /// a step at a time, before the list goes on.
        case streaming(ok: Bool, lines: [Substring], next: Int, listing: QueueListing)
        /// In `idle`, waiting for one of these subsystems to change.
        case idle(Set<Subsystem>)
    }

    private let commands: MPDCommands
    private var state: ClientState
    private var mode = Mode.ready
    /// Changes since the last `idle` answered; `idle` answers at once when it has some.
    private var pending = Set<Subsystem>()
    private var output = Array(greeting.utf8)
    private var wrongPasswords = 0
    /// Set when the client said `close` or broke the protocol: send what is left, then hang up.
    public private(set) var closing = false
    /// How long the server holds this client's answers and requests (a wrong password); taken with `takeDelay`.
    private var delay: MediaTime = 0

    /// The connection's number (see ClientState.id).
    public var clientID: Int { state.id }

    public init(commands: MPDCommands, authorized: Bool, local: Bool = false) {
        self.commands = commands
        state = ClientState(authorized: authorized, local: local, id: commands.newClientID())
    }

    /// The bytes to send, which the caller now owns.
    public func takeOutput() -> [UInt8] {
        // Handed over whole, buffer and all. Emptied keeping its capacity, the buffer the caller
        // now shares was copied into a new one as large: after one `playlistinfo` of 10,000 songs,
        // every later answer, and every look for one, allocated and freed 1.4 MB, which moved the
        // heap's top (two brk calls and a page fault) and made a `pause`'s idle wake-up slower than MPD's.
        var taken: [UInt8] = []
        swap(&taken, &output)
        return taken
    }

    /// Bytes answered and not yet taken.
    public var outputCount: Int { output.count }

    /// The hold a wrong password earned, once.
    public func takeDelay() -> MediaTime {
        defer { delay = 0 }
        return delay
    }

    public var isIdle: Bool { if case .idle = mode { true } else { false } }
    public var isAuthorized: Bool { state.authorized }
    /// A command list is running: give it no lines, call `proceed` until this is false.
    public var isBusy: Bool {
        switch mode {
        case .running, .streaming: true
        default: false
        }
    }
    /// A command waits for a read off the loop: give it no lines; `resume` once something was read.
    public var isWaiting: Bool { if case .waiting = mode { true } else { false } }

    /// Something it may wait for was read: its waiting command runs again at the next `proceed`.
    public func resume() {
        guard case .waiting(let ok, let lines, let next) = mode else { return }
        mode = .running(ok: ok, lines: lines, next: next)
    }

    /// One request line, without its newline.
    public func receive(_ line: Substring) {
        guard !closing else { return }
        switch mode {
        case .idle(let subsystems):
            guard line == "noidle" else {
                closing = true   // MPD: nothing but noidle while idle
                return
            }
            answerIdle(pending.intersection(subsystems))
        case .collecting(let ok, var lines, let bytes):
            mode = .ready   // the case's copy goes: appending does not copy the whole list each line
            if line == "command_list_end" {
                mode = .running(ok: ok, lines: lines, next: 0)
            } else if bytes + line.utf8.count > (state.authorized ? Self.listLimit : Self.openListLimit) {
                closing = true
            } else {
                lines.append(line)
                mode = .collecting(ok: ok, lines: lines, bytes: bytes + line.utf8.count)
            }
        case .running, .waiting, .streaming:
            assertionFailure("a line for a client whose list still runs")
        case .ready:
            switch line {
            case "command_list_begin": mode = .collecting(ok: false, lines: [], bytes: 0)
            case "command_list_ok_begin": mode = .collecting(ok: true, lines: [], bytes: 0)
            case "noidle": break   // not idle: nothing to end, and MPD answers nothing
            case "close": closing = true
            default: runOne(line)
            }
        }
    }

    /// Runs the list's next commands while its unread answers stay under
    /// `outputLimit` bytes and the time under `deadline`; at least one runs.
    public func proceed(outputLimit: Int, deadline: MonotonicTime) {
        // A listing begun is written first; one that a command begins is written at once.
        while writeListing(outputLimit: outputLimit, deadline: deadline) {
            guard case .running(let ok, var lines, var next) = mode else { return }
            mode = .ready   // as in `receive`: no second copy of the lines
            repeat {
                guard next < lines.count else {
                    output += Array("OK\n".utf8)
                    return
                }
                switch step(lines[next], index: next, ok: ok) {
                case .next: break
                case .end: return
                case .wait:
                    mode = .waiting(ok: ok, lines: lines, next: next)
                    return
                case .stream(let listing):
                    mode = .streaming(ok: ok, lines: lines, next: next, listing: listing)
                }
                if case .streaming = mode { break }
                lines[next] = ""   // what has run is not kept
                next += 1
            } while output.count <= outputLimit && monotonicNow() < deadline && !closing && delay == 0
            if case .streaming = mode { continue }
            mode = .running(ok: ok, lines: lines, next: next)
            return
        }
    }

    /// Writes more of a listing being written, if one is; false when the step's budget is spent
    /// before it is all written (or just as it is).
    private func writeListing(outputLimit: Int, deadline: MonotonicTime) -> Bool {
        guard case .streaming(let ok, let lines, let next, var listing) = mode else { return true }
        mode = .ready   // no second copy of the listing while it is written to
        var chunk = Reply()
        commands.continueListing(&listing, tags: state.tags, to: &chunk, limit: outputLimit - output.count, deadline: deadline)
        output += chunk.bytes
        guard listing.positions.isEmpty else {
            mode = .streaming(ok: ok, lines: lines, next: next, listing: listing)
            return false
        }
        if ok { output += Array("list_OK\n".utf8) }
        mode = .running(ok: ok, lines: lines, next: next + 1)
        return output.count <= outputLimit && monotonicNow() < deadline
    }

    /// What changed in the session; answers an `idle` that waits for it.
    public func notify(_ changed: Set<Subsystem>) {
        guard !changed.isEmpty else { return }
        pending.formUnion(changed)
        if case .idle(let subsystems) = mode, !pending.isDisjoint(with: subsystems) {
            answerIdle(pending.intersection(subsystems))
        }
    }

    private func answerIdle(_ changed: Set<Subsystem>) {
        for subsystem in Subsystem.allCases where changed.contains(subsystem) {
            output += Array("changed: \(subsystem.rawValue)\n".utf8)
        }
        output += Array("OK\n".utf8)
        pending.removeAll()
        mode = .ready
    }

    private func runOne(_ line: Substring) {
        let request: RequestLine
        do { request = try RequestLine.parse(line) } catch {
            output += Array(error.line(command: "", index: 0).utf8)
            return
        }
        if request.name == "idle" {
            return startIdle(request)
        }
        if request.name == "command_list_end" {
            output += Array(Ack(.notList, "not in command list mode").line(command: request.name, index: 0).utf8)
            return
        }
        switch execute(request, index: 0) {
        case .done: output += Array("OK\n".utf8)
        case .failed: break
        case .waits: mode = .waiting(ok: false, lines: [line], next: 0)   // runs again as a list of one, which answers alike
        case .streams(let listing): mode = .streaming(ok: false, lines: [line], next: 0, listing: listing)   // likewise
        }
    }

    private enum Outcome {
        case done, failed, waits
        /// Done but for a listing, which `proceed` writes.
        case streams(QueueListing)
    }

    /// Runs one command and appends its answer, or its ACK when it failed.
    private func execute(_ request: RequestLine, index: Int) -> Outcome {
        do {
            let reply = try commands.execute(request, &state)
            output += reply.bytes
            return reply.listing.map(Outcome.streams) ?? .done
        } catch where error.code == .wait {
            return .waits
        } catch {
            output += Array(error.line(command: Self.name(request, error), index: index).utf8)
            if error.code == .password { refused() }
            return .failed
        }
    }

    /// A wrong password: the answer is held, longer each time, and after a few the connection ends.
    private func refused() {
        wrongPasswords += 1
        if wrongPasswords >= Self.passwordTries { closing = true }
        delay = Self.firstPasswordDelay << (wrongPasswords - 1)
    }

    /// The command an error names: none for an unknown one, as MPD does.
    private static func name(_ request: RequestLine, _ error: Ack) -> String {
        error.code == .unknown ? "" : request.name
    }

    private func startIdle(_ request: RequestLine) {
        var subsystems = Set<Subsystem>()
        for name in request.arguments {
            guard let subsystem = Subsystem(rawValue: name) else {
                output += Array(Ack.argument("Unrecognized idle event: \(name)").line(command: "idle", index: 0).utf8)
                return
            }
            subsystems.insert(subsystem)
        }
        guard state.authorized else {
            output += Array(Ack(.permission, "you don't have permission for \"idle\"").line(command: "idle", index: 0).utf8)
            return
        }
        let wanted = subsystems.isEmpty ? Set(Subsystem.allCases) : subsystems
        mode = .idle(wanted)
        if !pending.isDisjoint(with: wanted) { answerIdle(pending.intersection(wanted)) }
    }

    private enum Step {
        case next, end, wait
        /// The line's listing is to be written before the list goes on.
        case stream(QueueListing)
    }

    /// One line of a list: on to the next, the end of the list (an error, which names its place, or `close`),
    /// or a wait for a read off the loop.
    private func step(_ line: Substring, index: Int, ok: Bool) -> Step {
        let request: RequestLine
        do { request = try RequestLine.parse(line) } catch {
            output += Array(error.line(command: "", index: index).utf8)
            return .end
        }
        if request.name == "close" { closing = true; return .end }
        if ["idle", "noidle", "command_list_begin", "command_list_ok_begin", "command_list_end"].contains(request.name) {
            let refusal = Ack(.argument, "\(request.name) is not allowed in a command list")
            output += Array(refusal.line(command: request.name, index: index).utf8)
            return .end
        }
        switch execute(request, index: index) {
        case .done:
            if ok { output += Array("list_OK\n".utf8) }
            return .next
        case .failed: return .end
        case .waits: return .wait
        case .streams(let listing): return .stream(listing)
        }
    }
}
