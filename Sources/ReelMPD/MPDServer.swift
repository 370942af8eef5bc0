import Glibc
import ReelCore
import ReelSystem

/// The MPD protocol's listeners and connections, driven by the daemon's
/// poll loop: `descriptors` says what to wait for, `service` does what
/// poll found ready, `publish` wakes the clients that wait in `idle`.
public final class MPDServer {
    private struct Listener {
        let fd: Int32
        /// TCP clients must give the password first, when there is one.
        let needsPassword: Bool
    }
    private final class Client {
        let fd: Int32
        let conversation: ClientProtocol
        var input: [UInt8] = []
        var output: [UInt8] = []
        var sent = 0
        /// When it last sent a request or took a reply.
        var active = monotonicNow()
        init(fd: Int32, conversation: ClientProtocol) {
            self.fd = fd
            self.conversation = conversation
        }
        var unsent: Int { output.count - sent }
    }

    /// A line longer than this, or unsent replies past `outputLimit`, drops the client
    /// (a 100,000-entry `playlistinfo` is about 15 MB).
    static let lineLimit = 64 << 10
    static let outputLimit = 32 << 20
    /// Past this much unsent, a client's further requests wait until it reads:
    /// one that never reads holds up no one but itself.
    static let highWater = 1 << 20
    /// More clients than this at once: a new one is hung up on at once, as MPD does.
    public static let maxClients = 100
    /// A client silent this long (and not in `idle`) is hung up on; MPD's default too.
    public let timeout: MediaTime

    public let commands: MPDCommands
    private var listeners: [Listener] = []
    private var clients: [Int32: Client] = [:]
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
                listeners.append(Listener(fd: try Sockets.listenUnix(socketPath), needsPassword: false))
            }
            if var tcp {
                let fd = try Sockets.listenTCP(tcp)
                listeners.append(Listener(fd: fd, needsPassword: commands.password != nil))
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

    /// What poll should watch: listeners and clients for reading, clients
    /// with unsent replies for writing too.
    public var descriptors: [pollfd] {
        listeners.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            + clients.values.map { client in
                let events = (client.unsent > 0 ? POLLOUT : 0) | (client.unsent <= Self.highWater ? POLLIN : 0)
                return pollfd(fd: client.fd, events: Int16(events), revents: 0)
            }
    }

    /// Accepts, reads and writes where poll found it possible.
    public func service(_ ready: [pollfd]) {
        for item in ready where item.revents != 0 {
            if let listener = listeners.first(where: { $0.fd == item.fd }) {
                accept(listener)
            } else if let client = clients[item.fd] {
                if item.revents & Int16(POLLOUT) != 0 { flush(client) }
                if item.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { read(client) }
            }
        }
    }

    /// When the next silent client is to be hung up on; nil when none can be.
    public var deadline: MonotonicTime? {
        clients.values.filter { !$0.conversation.isIdle }.map { $0.active + timeout }.min()
    }

    /// Hangs up on the clients silent past the timeout.
    public func expire(now: MonotonicTime) {
        for client in Array(clients.values) where !client.conversation.isIdle && now - client.active >= timeout {
            drop(client)
        }
    }

    /// Tells every client what changed in this loop turn.
    public func publish(_ announcements: [Announcement]) {
        let changed = commands.update(announcements)
        guard !changed.isEmpty else { return }
        for client in Array(clients.values) {
            client.conversation.notify(changed)
            send(client)
        }
    }

    private func accept(_ listener: Listener) {
        while true {
            let fd = Glibc.accept(listener.fd, nil, nil)
            guard fd >= 0 else { return }   // EAGAIN: no more waiting; other errors: the client is gone
            guard clients.count < Self.maxClients else { close(fd); continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
            let client = Client(fd: fd, conversation: ClientProtocol(commands: commands, authorized: !listener.needsPassword))
            clients[fd] = client
            send(client)
        }
    }

    private func read(_ client: Client) {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while client.unsent <= Self.highWater {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(client.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                client.active = monotonicNow()
                client.input += buffer[..<count]
                handleLines(client)
                if clients[client.fd] == nil { return }
                if count < buffer.count { break }
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                break
            } else {
                drop(client)   // end of file or an error: the client is gone
                return
            }
        }
        send(client)
    }

    /// Runs the complete lines while the client takes its replies; a line past the limit drops it.
    private func handleLines(_ client: Client) {
        var start = 0
        while client.unsent <= Self.highWater, let newline = client.input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = client.input[start..<newline]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            client.conversation.receive(Substring(String(decoding: line, as: UTF8.self)))
            client.output += client.conversation.takeOutput()
            start = newline + 1
            if client.conversation.closing { break }
        }
        client.input.removeFirst(start)
        if client.input.count > Self.lineLimit {
            client.input.removeAll()
            drop(client)
        }
    }

    /// Queues what the conversation has to say and writes what the socket takes.
    private func send(_ client: Client) {
        client.output += client.conversation.takeOutput()
        flush(client)
    }

    private func flush(_ client: Client) {
        while client.unsent > 0 {
            let written = client.output[client.sent...].withUnsafeBytes { Glibc.send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                client.sent += written
                client.active = monotonicNow()
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && errno == EAGAIN {
                break
            } else {
                return drop(client)
            }
        }
        if client.unsent == 0 {
            client.output.removeAll(keepingCapacity: client.output.count < 1 << 20)
            client.sent = 0
            if client.conversation.closing { return drop(client) }
        } else if client.unsent > Self.outputLimit {
            return drop(client)   // one reply too large for a client that does not read
        }
        // Requests held back while it was not reading go on once it does.
        if client.unsent <= Self.highWater, client.input.contains(UInt8(ascii: "\n")), !client.conversation.closing {
            handleLines(client)
            if clients[client.fd] != nil { send(client) }
        }
    }

    private func drop(_ client: Client) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        close(client.fd)
    }
}
