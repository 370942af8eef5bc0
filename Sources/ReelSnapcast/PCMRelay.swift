import CLinux
import Glibc
import ReelCore
import ReelSystem

/// Passes the PCM that mpv writes into reel's own FIFO on to snapserver, on
/// a thread of its own, and says how long what it holds takes to be heard.
///
/// Why a relay rather than mpv writing into snapserver's pipe itself: opening
/// a FIFO nobody reads blocks, writing to one whose reader left kills, and a
/// TCP source is no file at all. The relay finds snapserver gone, reports it,
/// keeps trying, and takes up again when it is back.
///
/// snapserver closes its pipe at every end of file and opens it again 100 ms
/// later, so a writer could rarely open it alone: like MPD's fifo output, the
/// relay holds a reader of its own on it, and tells a live snapserver by its
/// reading (a pipe left full, or a probe of silence left unread, means gone).
///
/// The pipes are kept small (reel's FIFO a page, 21 ms; snapserver's two,
/// 43 ms), so that a pause or a seek reaches snapserver within tens of ms:
/// while snapserver reads, the FIFOs are full and their writers wait, which
/// is what paces mpv. snapserver's pipe needs two pages: it takes 3840 bytes
/// every 20 ms, and a pipe of one page takes no write until its page is read
/// to the end, so half of each chunk it read was silence.
public final class PCMRelay: @unchecked Sendable {
    // @unchecked: `output`, `holder`, `carried`, `waiting`, `measures`, `lastSound` and `gathering` are under `lock`; `paced` is the relay thread's alone; the rest is immutable, and onChange is set before start().
    public static let bytesPerSecond = AudioFormat.sink.bytesPerSecond
    static let fifoSize: Int32 = 4096
    static let pipeSize: Int32 = 8192
    /// What is passed on at once: 5 ms.
    static let chunk = 960
    /// How long a reader may leave a full pipe unread before it counts as gone
    /// (snapserver reads every 20 ms).
    static let stuckAfter: Int32 = 500
    /// How long a probe may wait to be read when connecting (snapserver opens
    /// its pipe again 100 ms after it found no writer).
    static let probeWait: MonotonicTime = 400_000

    public let fifoPath: String
    public let target: SnapcastTarget
    /// snapserver's buffer: how long after it reads audio the rooms play it.
    public let serverBuffer: MediaTime
    public var onChange: (@Sendable (String?) -> Void)?

    private let readFD: Int32
    /// A writer of our own, so that the reader never sees end-of-file while mpv reopens its output.
    private let keepFD: Int32
    private let lock = Lock()
    private var output: Int32 = -1
    /// Pipe only: the relay's own reader of snapserver's pipe, which lets it open.
    private var holder: Int32 = -1
    /// Bytes read from the FIFO and not yet passed on.
    private var carried = 0
    /// The average of what waits in the pipes, bytes (nil: none measured since connecting), of `measures`.
    private var waiting: Double?
    private var measures = 0
    /// When the relay last passed on a chunk that was not all silence.
    private var lastSound: MonotonicTime = 0
    /// After a drop: what comes next is gathered up to one read of snapserver's, then written at once.
    private var gathering = false
    /// TCP only, the relay thread's: when the count of bytes sent began, and how many since.
    private var paced: (start: MonotonicTime, bytes: Int)?

    /// Makes (or reuses) the FIFO at `fifoPath`, mode 0600, and opens it.
    public init(target: SnapcastTarget, fifoPath: String, serverBuffer: MediaTime) throws(OutputProblem) {
        self.target = target
        self.fifoPath = fifoPath
        self.serverBuffer = serverBuffer
        var info = stat()
        if lstat(fifoPath, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFIFO, info.st_uid == getuid() else {
                throw OutputProblem("\(fifoPath) exists and is not reel's FIFO")
            }
        } else if mkfifo(fifoPath, 0o600) != 0 {
            throw OutputProblem("cannot make the FIFO \(fifoPath): \(String(cString: strerror(errno)))")
        }
        readFD = open(fifoPath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard readFD >= 0 else { throw OutputProblem("cannot open \(fifoPath): \(String(cString: strerror(errno)))") }
        keepFD = open(fifoPath, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard keepFD >= 0 else {
            close(readFD)
            throw OutputProblem("cannot open \(fifoPath): \(String(cString: strerror(errno)))")
        }
        _ = reel_set_pipe_size(readFD, Self.fifoSize)
    }

    /// Starts passing audio on.
    public func start() {
        Threads.start(name: "reel-snapcast") { [self] in run() }
    }

    /// How long after mpv handed audio over it is heard: what waits in the
    /// FIFO, in the relay and in snapserver's pipe or socket, then snapserver's buffer.
    ///
    /// What waits is averaged over the last calls (each sample of mpv's
    /// position makes one, some 50 ms apart): it rises and falls by up to
    /// 40 ms as snapserver takes 20 ms at a time and mpv hands over 10.7 ms at
    /// a time, out of step with mpv's own count of what it handed over; taken
    /// one at a time, samples strayed by ±10 ms, and the tracker found the
    /// start of the audio after a seek up to 230 ms late.
    public func delay() -> MediaTime {
        let bytes = lock.withLock {
            var bytes = Int(max(reel_bytes_queued(readFD), 0)) + carried
            if output >= 0 {
                switch target {
                case .pipe: bytes += Int(max(reel_bytes_queued(output), 0))
                case .tcp: bytes += Int(max(reel_bytes_unsent(output), 0)) + Int(Self.tcpLead * Int64(Self.bytesPerSecond) / 1_000_000)
                }
            }
            measures += 1
            let average = waiting.map { $0 + SampleSmoother.weight(ofMeasure: measures) * (Double(bytes) - $0) } ?? Double(bytes)
            waiting = average
            return average
        }
        return serverBuffer + MediaTime((bytes * 1_000_000 / Double(Self.bytesPerSecond)).rounded())
    }

    /// The delay with the pipes as full as they run while playing: reel's FIFO,
    /// half a chunk in the relay, and snapserver's pipe or (TCP) the lead sent ahead.
    public var nominalDelay: MediaTime {
        let ahead = switch target {
        case .pipe: MediaTime(Self.pipeSize) * 1_000_000 / MediaTime(Self.bytesPerSecond)
        case .tcp: Self.tcpLead
        }
        let bytes = Int(Self.fifoSize) + Self.chunk / 2
        return serverBuffer + ahead + MediaTime(bytes) * 1_000_000 / MediaTime(Self.bytesPerSecond)
    }

    /// How long only silence must have passed before `dropSilence` drops any: longer
    /// than the pipes take to play out, so that what waits in them is silence.
    static let quietBeforeDrop: MonotonicTime = 250_000
    /// What snapserver reads at a time (20 ms). After a drop, the resume's first
    /// bytes go into its pipe in one write of this size (a pipe writes up to 4 KiB
    /// at once): a read that came between its bytes would hear them, then a gap.
    static let serverRead = Int(AudioFormat.sink.bytesPerSecond / 50)

    /// Before a resume (mpv still paused): drops the silence that the pause left
    /// waiting in the pipes, so that the resumed sound is not queued behind it
    /// (some 60 ms; MPD's fifo output writes nothing while paused). Only after
    /// `quietBeforeDrop` of silence, so that nothing not yet heard is lost. A TCP
    /// source's sent bytes cannot be recalled: there, only reel's FIFO is emptied.
    public func dropSilence() {
        lock.withLock {
            guard output >= 0, monotonicNow() - lastSound >= Self.quietBeforeDrop else { return }
            Self.drain(readFD)
            if holder >= 0 {
                Self.drain(holder)
                gathering = true
            }
        }
    }

    /// Reads a pipe's `fd` (non-blocking) until it is empty.
    private static func drain(_ fd: Int32) {
        var sink = [UInt8](repeating: 0, count: Int(pipeSize))
        while sink.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    // MARK: The relay's thread

    private func run() {
        // A reader that leaves makes write fail with EPIPE, not a signal that ends the process.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        var reported: String?? = .none
        // Room for a chunk, and for a resume's first read gathered whole.
        var buffer = [UInt8](repeating: 0, count: max(Self.chunk, Self.serverRead))
        while true {
            if lock.withLock({ output }) < 0 {
                switch connect() {
                case .success(let (fd, reader)):
                    lock.withLock {
                        output = fd
                        holder = reader
                        waiting = nil
                        measures = 0
                    }
                    paced = nil
                    // The first connection is told too: until then, mpv is held (nothing is heard).
                    if reported != .some(nil) { onChange?(nil) }
                    reported = .some(nil)
                case .failure(let problem):
                    if reported != .some(problem.description) { onChange?(problem.description) }
                    reported = .some(problem.description)
                    discard(forMilliseconds: 250)
                    continue
                }
            }
            var ready = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 500) > 0 else { continue }
            // A chunk at a time; after a drop, what is gathered so far stays at the front.
            let gathered = lock.withLock { gathering ? carried : nil }
            let offset = gathered ?? 0
            let count = buffer.withUnsafeMutableBytes {
                read(readFD, $0.baseAddress! + offset, gathered.map { Self.serverRead - $0 } ?? Self.chunk)
            }
            guard count > 0 else { continue }
            let sound = buffer[offset..<offset + count].contains { $0 != 0 }
            let whole = offset + count
            let gathers = lock.withLock {
                carried = whole
                if sound { lastSound = monotonicNow() }
                if whole == Self.serverRead { gathering = false }
                return gathering
            }
            if gathers { continue }
            if let problem = pass(buffer, count: whole) {
                disconnect()
                onChange?(problem)
                reported = .some(problem)
            }
        }
    }

    private func disconnect() {
        lock.withLock {
            close(output)
            if holder >= 0 { close(holder) }
            output = -1
            holder = -1
            carried = 0
            gathering = false
        }
    }

    /// Hands `count` bytes to snapserver; the reason when it is gone.
    private func pass(_ buffer: [UInt8], count: Int) -> String? {
        let fd = lock.withLock { output }
        if case .tcp = target { waitForPace(adding: count) }
        var sent = 0
        while sent < count {
            let n = buffer.withUnsafeBytes { bytes in
                switch target {
                case .pipe: write(fd, bytes.baseAddress! + sent, count - sent)
                case .tcp: send(fd, bytes.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
            }
            if n > 0 {
                sent += n
                lock.withLock { carried -= n }
                continue
            }
            guard n < 0, errno == EAGAIN || errno == EINTR else { return gone(n == 0 ? 0 : errno) }
            var writable = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&writable, 1, Self.stuckAfter)
            if ready == 0 { return "snapserver stopped reading \(place)" }
            if writable.revents & Int16(POLLERR | POLLHUP) != 0 { return gone(EPIPE) }
        }
        return nil
    }

    /// snapserver reads a TCP source as it comes and buffers what is early; sent
    /// in real time (a little ahead), it holds no more than for a pipe.
    static let tcpLead: MediaTime = 40_000

    private func waitForPace(adding count: Int) {
        let now = monotonicNow()
        let (start, bytes) = paced ?? (now, 0)
        paced = (start, bytes + count)
        let due = start + MonotonicTime(bytes) * 1_000_000 / MonotonicTime(Self.bytesPerSecond) - Self.tcpLead
        if due > now + 100_000 || now - due > 200_000 {
            // Far ahead of the clock (it jumped) or far behind it (nothing came for a while: mpv
            // closed its output between files): the count starts again from now.
            paced = (now, count)
        } else if due > now {
            Threads.sleep(seconds: Double(due - now) / 1e6)
        }
    }

    private func gone(_ error: Int32) -> String {
        error == EPIPE || error == ECONNRESET || error == 0
            ? "snapserver closed \(place)" : "cannot write to \(place): \(String(cString: strerror(error)))"
    }

    private var place: String {
        switch target {
        case .pipe(let path): path
        case .tcp(let address): "tcp://\(address)"
        }
    }

    /// While snapserver is away, mpv is held paused and writes silence; it is
    /// dropped, at the pace it would be played (mpv's output never waits of itself).
    private func discard(forMilliseconds ms: Int32) {
        let end = monotonicNow() + MonotonicTime(ms) * 1000
        var sink = [UInt8](repeating: 0, count: Self.bytesPerSecond / 100)
        while monotonicNow() < end {
            _ = sink.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            Threads.sleep(seconds: 0.01)
        }
    }

    /// The descriptor to write to, and for a pipe the relay's own reader of it.
    private func connect() -> Result<(Int32, Int32), OutputProblem> {
        switch target {
        case .pipe(let path): Self.openPipe(path)
        case .tcp(let address): Self.connectTCP(address).map { ($0, -1) }
        }
    }

    private static func openPipe(_ path: String) -> Result<(Int32, Int32), OutputProblem> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(OutputProblem("\(path) does not exist: is snapserver running, with source = pipe://\(path)?"))
        }
        guard info.st_mode & S_IFMT == S_IFIFO else { return .failure(OutputProblem("\(path) is not a FIFO")) }
        let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let fd = reader < 0 ? -1 : open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let problem = OutputProblem("cannot open \(path): \(String(cString: strerror(errno)))")
            if reader >= 0 { close(reader) }
            return .failure(problem)
        }
        // Replaced between the look and the open: still only a FIFO is written to.
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else {
            close(fd)
            close(reader)
            return .failure(OutputProblem("\(path) is not a FIFO"))
        }
        _ = reel_set_pipe_size(fd, pipeSize)
        guard probe(fd) else {
            close(fd)
            close(reader)   // and what the probe left in the pipe goes with it
            return .failure(OutputProblem("snapserver is not reading \(path)"))
        }
        return .success((fd, reader))
    }

    /// Whether someone else reads the pipe: a little silence, read within `probeWait`.
    private static func probe(_ fd: Int32) -> Bool {
        let silence = [UInt8](repeating: 0, count: chunk)
        guard reel_bytes_queued(fd) == 0, write(fd, silence, silence.count) == silence.count else { return false }
        let end = monotonicNow() + probeWait
        while monotonicNow() < end {
            if reel_bytes_queued(fd) < Int32(silence.count) { return true }
            Threads.sleep(seconds: 0.005)
        }
        return false
    }

    private static func connectTCP(_ address: ListenAddress) -> Result<Int32, OutputProblem> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(OutputProblem("cannot resolve \(address.host): \(String(cString: gai_strerror(status)))"))
        }
        defer { freeaddrinfo(list) }
        let info = first.pointee
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(OutputProblem("cannot make a socket: \(String(cString: strerror(errno)))")) }
        var size: Int32 = 8192
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else {
                let problem = OutputProblem("snapserver does not listen on tcp://\(address): \(String(cString: strerror(errno)))")
                close(fd)
                return .failure(problem)
            }
            var writable = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if poll(&writable, 1, 2_000) <= 0 { error = ETIMEDOUT } else { getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) }
            guard error == 0 else {
                close(fd)
                return .failure(OutputProblem("snapserver does not listen on tcp://\(address): \(String(cString: strerror(error)))"))
            }
        }
        return .success(fd)
    }
}
