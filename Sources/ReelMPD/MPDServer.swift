import Glibc
import ReelCore
import ReelSystem

/// The MPD protocol's listeners and connections, driven by the daemon's
/// poll loop: `descriptors` says what to wait for, `service` does what
/// poll found ready, `publish` wakes the clients that wait in `idle`.
///
/// What one client can cost is bounded (docs/mpd.md, Limits): its unread
/// replies, its unread requests, and the loop's time in one turn.
public final class MPDServer {
    private struct Listener {
        let fd: Int32
        /// TCP clients must give the password first, when there is one.
        let needsPassword: Bool
        /// The Unix socket: its owner's, who may name any of their files.
        let local: Bool
    }
    private final class Client {
        let fd: Int32
        let listener: Int32
        /// Where a TCP client that must give the password comes from; nil for the others.
        let address: String?
        let conversation: ClientProtocol
        var input: [UInt8] = []
        /// Where the requests not yet handled start in `input`.
        var inputStart = 0
        var output = ByteQueue()
        let connected = monotonicNow()
        /// When it last sent a request or took a reply.
        var active = monotonicNow()
        /// Until when its answers and requests wait (a wrong password).
        var heldUntil: MonotonicTime?
        init(fd: Int32, listener: Int32, address: String?, conversation: ClientProtocol) {
            self.fd = fd
            self.listener = listener
            self.address = address
            self.conversation = conversation
        }
        var unsent: Int { output.count }
        /// Past this much unsent, its further requests wait until it reads: one that never reads holds up no one but itself.
        var highWater: Int { conversation.isAuthorized ? MPDServer.highWater : MPDServer.openHighWater }
        var hasLine: Bool { input[inputStart...].contains(UInt8(ascii: "\n")) }
        var hasWork: Bool { conversation.isBusy || (hasLine && !conversation.isWaiting) }
        var canRead: Bool { heldUntil == nil && unsent <= highWater && input.count - inputStart <= MPDServer.inputLimit }
    }

    /// A line longer than this drops the client.
    static let lineLimit = 64 << 10
    /// One reply larger than this, unread, drops the client (a 100,000-entry `playlistinfo` is about 15 MB).
    static let outputLimit = 32 << 20
    static let highWater = 1 << 20
    /// The high water of a client that has not given the password: all it may ask is small.
    static let openHighWater = 64 << 10
    /// Requests read and not yet handled, past which a client is not read from.
    static let inputLimit = 128 << 10
    /// More clients than this on one listener at once: a new one is hung up on at once, as MPD does.
    /// Each listener has its own places, so TCP clients can never lock the owner's Unix socket out.
    public static let maxClients = 100
    /// A TCP client that has not given the password within this (or the
    /// silence timeout, if shorter) is hung up on.
    public static let loginLimit: MediaTime = 10_000_000
    var loginTimeout: MediaTime { min(Self.loginLimit, timeout) }
    /// The loop's time for one client in one turn, and for all of them: past it, the rest waits for the next turn.
    static let slice: MediaTime = 5_000
    static let turnBudget: MediaTime = 20_000
    /// A client silent this long (and not in `idle`) is hung up on; MPD's default too.
    public let timeout: MediaTime

    public let commands: MPDCommands
    private var listeners: [Listener] = []
    private var clients: [Int32: Client] = [:]
    /// Where the next turn starts among the ready clients, so that each gets its turn first in time.
    private var rotation = 0
    /// Where a client's bytes are read into, kept: a fresh 64 KiB, zeroed for every read, showed in a profile of `pause`.
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    /// Password guessing over TCP, counted by address and overall.
    private var guesses = PasswordGuard()
    /// Where the server says what it did about an attack (the daemon's log).
    public var log: (String) -> Void = { _ in }
    public let socketPath: String?
    /// Where TCP listens; its port is the one bound (useful with port 0).
    public private(set) var tcpAddress: ListenAddress?

    /// Opens the listeners. A Unix socket that cannot be made is an error
    /// as much as a TCP address that cannot be bound.
    public init(commands: MPDCommands, socketPath: String?, tcp: ListenAddress?,
                timeout: MediaTime = 60_000_000) throws(SystemError) {
        self.commands = commands
        self.timeout = timeout
        self.socketPath = socketPath
        do {
            if let socketPath {
                listeners.append(Listener(fd: try Sockets.listenUnix(socketPath), needsPassword: false, local: true))
            }
            if var tcp {
                let fd = try Sockets.listenTCP(tcp)
                listeners.append(Listener(fd: fd, needsPassword: commands.password != nil, local: false))
                if tcp.port == 0, let port = Sockets.boundPort(fd) { tcp.port = port }
                tcpAddress = tcp
            }
        } catch {
            for listener in listeners { close(listener.fd) }
            throw SystemError(error.description)
        }
    }

    deinit {
        for listener in listeners { close(listener.fd) }
        for fd in clients.keys { close(fd) }
        if let socketPath { unlink(socketPath) }
    }

    public var clientCount: Int { clients.count }

    /// What poll should watch: listeners; clients for reading while they may
    /// ask, for writing while they have replies or requests waiting.
    public var descriptors: [pollfd] {
        [pollfd(fd: commands.coverNews, events: Int16(POLLIN), revents: 0)]
            + listeners.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            + clients.values.map { client in
                var events: Int32 = 0
                if client.heldUntil == nil {
                    if client.unsent > 0 || client.hasWork { events |= Int32(POLLOUT) }
                    if client.canRead { events |= Int32(POLLIN) }
                }
                return pollfd(fd: client.fd, events: Int16(events), revents: 0)
            }
    }

    /// Accepts, reads and writes where poll found it possible, within the turn's budget.
    public func service(_ ready: [pollfd]) {
        let turnEnd = monotonicNow() + Self.turnBudget
        let ready = ready.filter { $0.revents != 0 }
        guard !ready.isEmpty else { return }
        rotation = (rotation + 1) % ready.count
        for item in ready[rotation...] + ready[..<rotation] {
            if item.fd == commands.coverNews {
                coversRead(until: turnEnd)
                continue
            }
            if let listener = listeners.first(where: { $0.fd == item.fd }) {
                accept(listener)
                continue
            }
            guard let client = clients[item.fd] else { continue }
            if item.revents & Int16(POLLHUP | POLLERR) != 0, client.heldUntil != nil { drop(client); continue }
            let now = monotonicNow()
            guard now < turnEnd else { continue }   // poll reports it again next turn
            let deadline = min(turnEnd, now + Self.slice)
            if item.revents & Int16(POLLOUT) != 0 { flush(client) }
            if clients[client.fd] != nil, item.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(client, until: deadline) }
            if clients[client.fd] != nil { work(client, until: deadline) }
        }
    }

    /// A cover was read off the loop: the commands that wait for one run again.
    private func coversRead(until turnEnd: MonotonicTime) {
        _ = commands.covers.news.take()
        for client in Array(clients.values) where client.conversation.isWaiting {
            client.conversation.resume()
            work(client, until: min(turnEnd, monotonicNow() + Self.slice))
        }
    }

    /// When the next client is to be hung up on or let go on; nil when none is.
    public var deadline: MonotonicTime? {
        clients.values.compactMap(wakeTime).min()
    }

    private func wakeTime(_ client: Client) -> MonotonicTime? {
        if let held = client.heldUntil { return held }
        if !client.conversation.isAuthorized { return min(client.connected + loginTimeout, client.active + timeout) }
        return client.conversation.isIdle ? nil : client.active + timeout
    }

    /// Hangs up on the clients silent past the timeout, not logged in in time or locked out,
    /// and goes on with those whose hold has ended.
    public func expire(now: MonotonicTime) {
        for client in Array(clients.values) {
            // Locked out: hung up on, a held wrong password's answer with it.
            if lockedOut(client, now: now) {
                drop(client)
            } else if let held = client.heldUntil {
                guard now >= held else { continue }
                client.heldUntil = nil
                work(client, until: now + Self.slice)
            } else if let end = wakeTime(client), now >= end {
                drop(client)
            }
        }
    }

    /// Tells every client what changed in this loop turn.
    public func publish(_ announcements: [Announcement], sessionChanged: Bool = true) {
        let changed = commands.update(announcements, sessionChanged: sessionChanged)
        let messaged = commands.takeMessageNews()
        guard !changed.isEmpty || !messaged.isEmpty else { return }
        for client in Array(clients.values) {
            client.conversation.notify(messaged.contains(client.conversation.clientID) ? changed.union([.message]) : changed)
            take(client)
            flush(client)
        }
    }

    private func accept(_ listener: Listener) {
        while true {
            let fd = Glibc.accept(listener.fd, nil, nil)
            guard fd >= 0 else { return }   // EAGAIN: no more waiting; other errors: the client is gone
            guard clients.values.count(where: { $0.listener == listener.fd }) < Self.maxClients else { close(fd); continue }
            // A TCP client that must give the password, from an address locked out: hung up on at once.
            let address = listener.needsPassword ? Sockets.peerAddress(fd) ?? "an unknown address" : nil
            if let address, guesses.refusal(for: address, now: monotonicNow()) != nil { close(fd); continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
            let conversation = ClientProtocol(commands: commands, authorized: !listener.needsPassword, local: listener.local)
            let client = Client(fd: fd, listener: listener.fd, address: address, conversation: conversation)
            clients[fd] = client
            take(client)
            flush(client)
        }
    }

    private func read(_ client: Client, until deadline: MonotonicTime) {
        while client.canRead, monotonicNow() < deadline {
            let count = readBuffer.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                client.active = monotonicNow()
                client.input += readBuffer[..<count]
                work(client, until: deadline)
                if clients[client.fd] == nil { return }
                if count < readBuffer.count { break }
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                break
            } else {
                drop(client)   // end of file or an error: the client is gone
                return
            }
        }
    }

    /// Runs the client's requests (or its running command list) while it
    /// takes its replies and the time lasts, then sends what it can.
    private func work(_ client: Client, until deadline: MonotonicTime) {
        // No step starts past the deadline; one that starts may run over it (one command is not cut).
        while client.heldUntil == nil, client.unsent <= client.highWater, !client.conversation.closing, monotonicNow() < deadline {
            if client.conversation.isBusy {
                client.conversation.proceed(outputLimit: client.highWater - client.unsent, deadline: deadline)
            } else if client.conversation.isWaiting {
                break   // a cover being read: `coversRead` goes on with it
            } else if let line = nextLine(client) {
                client.conversation.receive(line)
            } else {
                break
            }
            take(client)
        }
        compactInput(client)
        let partial = client.input.count - client.inputStart
        if partial > Self.lineLimit, !client.hasLine { return drop(client) }
        flush(client)
    }

    private func nextLine(_ client: Client) -> Substring? {
        guard let newline = client.input[client.inputStart...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var line = client.input[client.inputStart..<newline]
        client.inputStart = newline + 1
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        return Substring(String(decoding: line, as: UTF8.self))
    }

    private func compactInput(_ client: Client) {
        if client.inputStart == client.input.count {
            client.input.removeAll(keepingCapacity: client.input.count <= 1 << 16)
            client.inputStart = 0
        } else if client.inputStart > 1 << 16 {
            client.input.removeFirst(client.inputStart)
            client.inputStart = 0
        }
    }

    /// Moves the conversation's answers to the send queue; a wrong password's hold starts now.
    private func take(_ client: Client) {
        client.output.append(client.conversation.takeOutput())
        let delay = client.conversation.takeDelay()
        guard delay > 0 else { return }
        client.heldUntil = monotonicNow() + delay
        if let address = client.address { guessed(from: address) }
    }

    /// A wrong password over TCP; when it begins a lockout, the log says so (`expire` then hangs
    /// up on the connections it covers).
    private func guessed(from address: String) {
        guard let said = guesses.failed(from: address, now: monotonicNow()) else { return }
        log(said)
    }

    /// A TCP client that has not logged in, from where logins are locked out.
    private func lockedOut(_ client: Client, now: MonotonicTime) -> Bool {
        guard let address = client.address, !client.conversation.isAuthorized else { return false }
        return guesses.refusal(for: address, now: now) != nil
    }

    private func flush(_ client: Client) {
        guard client.heldUntil == nil else { return }
        while client.unsent > 0 {
            let written = client.output.send { Glibc.send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                client.active = monotonicNow()
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && errno == EAGAIN {
                break
            } else {
                return drop(client)
            }
        }
        if client.unsent == 0, client.conversation.closing {
            drop(client)
        } else if client.unsent > Self.outputLimit {
            drop(client)   // one reply too large for a client that does not read
        }
    }

    private func drop(_ client: Client) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        close(client.fd)
        commands.clientLeft(client.conversation.clientID)
    }
}
