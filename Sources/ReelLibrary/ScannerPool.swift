import CLinux
import Glibc
import ReelScan
import ReelSystem

/// Reads files through scanner processes (`reel-scan`), one a core, each fed a few paths
/// ahead on a pipe. A scanner that dies or takes longer than the deadline over one file is
/// replaced; that file is reported unreadable with the reason, the others it held are sent
/// again, and the scan goes on. Used from one thread at a time.
public final class ScannerPool {
    public struct Settings: Sendable {
        public var executable: String
        public var processes: Int
        /// How long one file may take (µs) before its scanner is stopped.
        public var deadline: Int64 = 15_000_000
        /// Paths each scanner holds ahead, so that it never waits for the next.
        public var depth = 4

        public init(executable: String, processes: Int = ScannerPool.cores) {
            self.executable = executable
            self.processes = max(1, processes)
        }
    }

    /// What the scanner could not be started for.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The cores this process may run on.
    public static var cores: Int {
        var set = cpu_set_t()
        guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0 else { return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
        return withUnsafeBytes(of: &set) { $0.reduce(0) { $0 + $1.nonzeroBitCount } }
    }

    /// `reel-scan` beside the running program (a build, or `bin/` when installed), else where
    /// `make install` puts it (`lib/reel/` beside `bin/`).
    public static func defaultExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let dir = Paths.directory(of: String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return [dir + "/reel-scan", dir + "/../lib/reel/reel-scan"].first { access($0, X_OK) == 0 }
    }

    private let settings: Settings
    private var workers: [Worker] = []
    /// Scanners started in all, and how many were replaced.
    public private(set) var restarts = 0

    public init(_ settings: Settings) throws(Unavailable) {
        guard access(settings.executable, X_OK) == 0 else {
            throw Unavailable(description: "cannot run the scanner \(settings.executable): \(String(cString: strerror(errno)))")
        }
        self.settings = settings
    }

    deinit { close() }

    /// Ends the scanners (each ends when its input does).
    public func close() {
        for worker in workers { worker.stop(kill: false) }
        workers = []
    }

    /// Reads every path; `deliver` is given each one's result on this thread, in the order
    /// they come (not the order asked). Returns when every path has one, or as soon as
    /// `deliver` returns false (the scanners are stopped).
    public func scan(_ paths: [String], deliver: (ScannedFile) -> Bool) {
        // A scanner that has gone makes a write fail with EPIPE, not a signal that ends the process.
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var zero = timespec()
                sigtimedwait(&blocked, nil, &zero)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        var next = 0
        var again: [Int] = []
        var left = paths.count
        while left > 0 {
            // Each scanner gets paths until it holds `depth`.
            for w in 0..<settings.processes {
                if w >= workers.count || workers[w].isStopped {
                    if w < workers.count { workers[w].stop(kill: true) }
                    guard let started = start() else {
                        // The scanner cannot run at all: nothing more can be read.
                        let reason = "cannot run the scanner: \(startFailure ?? "?")"
                        for i in again + Array(next..<paths.count) + workers.flatMap(\.inFlight) {
                            guard deliver(Self.failed(paths[i], reason)) else { break }
                        }
                        close()
                        return
                    }
                    if w < workers.count { workers[w] = started } else { workers.append(started) }
                }
                let worker = workers[w]
                while worker.inFlight.count < settings.depth {
                    let i: Int
                    if let retry = again.popLast() { i = retry } else if next < paths.count { i = next; next += 1 } else { break }
                    if !worker.send(i, paths[i]) {
                        again.append(i)
                        break
                    }
                }
            }
            let now = monotonicNow()
            var fds = workers.map { pollfd(fd: $0.output, events: Int16(POLLIN), revents: 0) }
            let wait = workers.filter { !$0.inFlight.isEmpty }.map { $0.busySince + settings.deadline - now }.min() ?? 1_000_000
            let rc = poll(&fds, nfds_t(fds.count), Int32(clamping: max(0, wait) / 1_000 + 1))
            guard rc >= 0 || errno == EINTR else { continue }
            for (w, worker) in workers.enumerated() {
                var gone = false
                if fds[w].revents != 0 {
                    let (replies, death) = worker.read()
                    for (i, file) in replies {
                        left -= 1
                        var file = file
                        file.path = paths[i]
                        guard deliver(file) else { return cancel() }
                    }
                    if let death {
                        gone = true
                        worker.stop(kill: true)
                        if let i = worker.inFlight.first {
                            worker.inFlight.removeFirst()
                            left -= 1
                            guard deliver(Self.failed(paths[i], death)) else { return cancel() }
                        }
                    }
                }
                if !gone, let head = worker.inFlight.first, monotonicNow() - worker.busySince > settings.deadline {
                    gone = true
                    worker.stop(kill: true)
                    worker.inFlight.removeFirst()
                    left -= 1
                    guard deliver(Self.failed(paths[head], "reading it took longer than \(settings.deadline / 1_000_000) s, so it was given up")) else {
                        return cancel()
                    }
                }
                if gone {
                    // What it held besides the file it died on is read again by its replacement.
                    again += worker.inFlight.reversed()
                    worker.inFlight = []
                    restarts += 1
                }
            }
        }
    }

    /// Stops the scanners, with what they hold (an ended scan's answers would be read as the next's).
    private func cancel() {
        for worker in workers { worker.stop(kill: true) }
        workers = []
    }

    /// A file the scanner died on or gave up: with its size and time, so that an unchanged
    /// file is not tried again by the next scan.
    static func failed(_ path: String, _ reason: String) -> ScannedFile {
        var info = stat()
        let known = stat(path, &info) == 0
        return ScannedFile(path: path, size: known ? Int64(info.st_size) : 0,
                           modified: known ? Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec) : 0,
                           identity: 0, outcome: .unreadable(reason))
    }

    private var startFailure: String?

    private func start() -> Worker? {
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard reel_pipe_cloexec(&toChild) == 0 else { startFailure = String(cString: strerror(errno)); return nil }
        guard reel_pipe_cloexec(&fromChild) == 0 else {
            startFailure = String(cString: strerror(errno))
            Glibc.close(toChild[0]); Glibc.close(toChild[1])
            return nil
        }
        defer { Glibc.close(toChild[0]); Glibc.close(fromChild[1]) }
        do {
            let pid = try Spawn.start(settings.executable, [], stdin: toChild[0], stdout: fromChild[1], stderr: 2)
            _ = fcntl(fromChild[0], F_SETFL, fcntl(fromChild[0], F_GETFL) | O_NONBLOCK)
            return Worker(pid: pid, input: toChild[1], output: fromChild[0])
        } catch {
            startFailure = error.description
            Glibc.close(toChild[1]); Glibc.close(fromChild[0])
            return nil
        }
    }

    /// One scanner process and what it holds.
    private final class Worker {
        let pid: pid_t
        let input: Int32
        let output: Int32
        /// The paths sent and not answered, oldest first: the first is the one being read.
        var inFlight: [Int] = []
        /// When the scanner began on the oldest path held (µs, monotonic).
        var busySince: Int64 = 0
        private(set) var exited = false
        private var closed = false
        var isStopped: Bool { closed || exited }
        private var buffer: [UInt8] = []
        private var start = 0

        init(pid: pid_t, input: Int32, output: Int32) {
            self.pid = pid
            self.input = input
            self.output = output
        }

        func send(_ index: Int, _ path: String) -> Bool {
            let frame = ScanWire.frame(Array(path.utf8))
            var done = 0
            while done < frame.count {
                let n = frame.withUnsafeBytes { write(input, $0.baseAddress! + done, frame.count - done) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            if inFlight.isEmpty { busySince = monotonicNow() }
            inFlight.append(index)
            return true
        }

        /// Reads what has come: the answered paths with their results, and why the scanner is
        /// gone if it is.
        func read() -> (replies: [(Int, ScannedFile)], death: String?) {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            var replies: [(Int, ScannedFile)] = []
            var death: String?
            while true {
                let n = chunk.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n < 0, errno == EAGAIN { break }
                guard n > 0 else {
                    death = reap()
                    break
                }
                buffer += chunk[0..<n]
            }
            do {
                while let (payload, next) = try ScanWire.nextFrame(in: buffer, from: start) {
                    start = next
                    guard let i = inFlight.first else { return (replies, "the scanner answered what was not asked") }
                    replies.append((i, try ScanWire.decode(payload)))
                    inFlight.removeFirst()
                    busySince = monotonicNow()
                }
            } catch {
                return (replies, "the scanner's answer is garbled (\(error))")
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            return (replies, death)
        }

        /// Why the scanner ended, once it has.
        private func reap() -> String {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exited = true
            let signal = status & 0x7f
            if signal != 0 {
                let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
                return "it crashed the scanner (\(name)); the file may be damaged, or made to crash players"
            }
            return "the scanner ended while reading it (status \((status >> 8) & 0xff))"
        }

        /// Closes its pipes; with `kill`, stops it at once rather than when its input ends.
        func stop(kill: Bool) {
            guard !closed else { return }
            closed = true
            Glibc.close(input)
            if !exited {
                if kill { Glibc.kill(pid, SIGKILL) }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                exited = true
            }
            Glibc.close(output)
        }
    }
}
