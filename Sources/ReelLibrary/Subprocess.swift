import FoundationEssentials
import ReelSystem
import Glibc

/// Runs a helper (ffprobe, ffmpeg) to completion with a deadline. Each runs
/// in a process group of its own, so that a timeout or the daemon's exit
/// kills it with everything it started; `terminateAll` does the latter.
public enum Subprocess {
    public struct Result: Sendable {
        public var status: Int32
        public var output: Data
        public var errors: Data
        public var timedOut: Bool
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private final class Registry: @unchecked Sendable {
        // @unchecked: `groups` and `closed` are only touched under `lock`.
        let lock = Lock()
        var groups = Set<pid_t>()
        var closed = false
    }
    private static let registry = Registry()

    /// Blocks until the helper exits or `timeout` seconds pass (then it is killed).
    public static func run(_ path: String, _ args: [String], timeout: Double) throws -> Result {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            throw Failure(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }

        registry.lock.lock()
        guard !registry.closed else {
            registry.lock.unlock()
            for fd in outPipe + errPipe { close(fd) }
            throw Failure(description: "shutting down")
        }
        let started = Swift.Result { () throws(SystemError) in
            try Spawn.start(path, args, stdout: outPipe[1], stderr: errPipe[1], closing: outPipe + errPipe, newProcessGroup: true)
        }
        if case .success(let pid) = started { registry.groups.insert(pid) }
        registry.lock.unlock()
        close(outPipe[1])
        close(errPipe[1])
        defer { close(outPipe[0]); close(errPipe[0]) }
        let pid: pid_t
        switch started {
        case .success(let started): pid = started
        case .failure(let error): throw Failure(description: error.description)
        }

        let deadline = Date().addingTimeInterval(timeout)
        var output = Data(), errors = Data()
        var open = [outPipe[0], errPipe[0]]
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { timedOut = true; break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), Int32(min(left, 1) * 1000) + 1) >= 0 || errno == EINTR else { break }
            for entry in fds where entry.revents != 0 {
                let n = read(entry.fd, &buffer, buffer.count)
                if n > 0 {
                    if entry.fd == outPipe[0] { output.append(buffer, count: n) } else { errors.append(buffer, count: n) }
                } else {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if timedOut { killpg(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        registry.lock.lock()
        registry.groups.remove(pid)
        registry.lock.unlock()
        let exited = (status & 0x7f) == 0
        return Result(status: exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output: output, errors: errors,
                      timedOut: timedOut)
    }

    /// Kills every helper still running, with its process group, and refuses
    /// new ones: called as the daemon exits.
    public static func terminateAll() {
        registry.lock.lock()
        registry.closed = true
        let groups = registry.groups
        registry.lock.unlock()
        for group in groups { killpg(group, SIGKILL) }
    }
}
