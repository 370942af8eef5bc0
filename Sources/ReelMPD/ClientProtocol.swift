/// One client's side of the protocol, without its socket: request lines
/// in, reply bytes out. Handles what MPD handles per connection: the
/// greeting, command lists, `idle`/`noidle` and `close`.
public final class ClientProtocol {
    public static let greeting = "OK MPD 0.23.5\n"
    /// A command list longer than this closes the connection, as in MPD.
    static let listLimit = 4 << 20

    private enum Mode {
        case ready
        case list(ok: Bool, lines: [Substring], bytes: Int)
        case idle(Set<Subsystem>)
    }

    private let commands: MPDCommands
    private var state: ClientState
    private var mode = Mode.ready
    /// Changes since the last `idle` answered; `idle` answers at once when it has some.
    private var pending = Set<Subsystem>()
    private var output = Array(greeting.utf8)
    /// Set when the client said `close` or broke the protocol: send what is left, then hang up.
    public private(set) var closing = false

    public init(commands: MPDCommands, authorized: Bool) {
        self.commands = commands
        state = ClientState(authorized: authorized)
    }

    /// The bytes to send, which the caller now owns.
    public func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    public var isIdle: Bool { if case .idle = mode { true } else { false } }

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
        case .list(let ok, var lines, let bytes):
            mode = .ready   // the case's copy goes: appending does not copy the whole list each line
            if line == "command_list_end" {
                runList(lines, ok: ok)
            } else if bytes + line.utf8.count > Self.listLimit {
                closing = true
            } else {
                lines.append(line)
                mode = .list(ok: ok, lines: lines, bytes: bytes + line.utf8.count)
            }
        case .ready:
            switch line {
            case "command_list_begin": mode = .list(ok: false, lines: [], bytes: 0)
            case "command_list_ok_begin": mode = .list(ok: true, lines: [], bytes: 0)
            case "noidle": break   // not idle: nothing to end, and MPD answers nothing
            case "close": closing = true
            default: runOne(line)
            }
        }
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
        do {
            output += try commands.execute(request, &state).bytes
            output += Array("OK\n".utf8)
        } catch {
            output += Array(error.line(command: Self.name(request, error), index: 0).utf8)
        }
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

    /// Runs a command list: stops at the first error, which names its place in the list.
    private func runList(_ lines: [Substring], ok: Bool) {
        for (index, line) in lines.enumerated() {
            let request: RequestLine
            do { request = try RequestLine.parse(line) } catch {
                output += Array(error.line(command: "", index: index).utf8)
                return
            }
            if request.name == "close" { closing = true; return }
            if ["idle", "noidle", "command_list_begin", "command_list_ok_begin", "command_list_end"].contains(request.name) {
                let refusal = Ack(.argument, "\(request.name) is not allowed in a command list")
                output += Array(refusal.line(command: request.name, index: index).utf8)
                return
            }
            do {
                output += try commands.execute(request, &state).bytes
                if ok { output += Array("list_OK\n".utf8) }
            } catch {
                output += Array(error.line(command: Self.name(request, error), index: index).utf8)
                return
            }
        }
        output += Array("OK\n".utf8)
    }
}
