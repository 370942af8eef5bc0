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
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        registry.lock.lock()
        guard !registry.closed else {
            registry.lock.unlock()
            for fd in outPipe + errPipe { close(fd) }
            throw Failure(description: "shutting down")
        }
        var pid: pid_t = 0
        let rc = withCStrings([path] + args) { argv in posix_spawn(&pid, path, &actions, &attributes, argv, environ) }
        if rc == 0 { registry.groups.insert(pid) }
        registry.lock.unlock()
        close(outPipe[1])
        close(errPipe[1])
        defer { close(outPipe[0]); close(errPipe[0]) }
        guard rc == 0 else { throw Failure(description: "cannot run \(path): \(String(cString: strerror(rc)))") }

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
