import Foundation
import ReelSystem

/// A server process started with posix_spawn rather than Foundation's
/// Process. Servers such as PulseAudio and Xvfb close every descriptor they
/// inherit; Foundation watches its children through one and, seeing it
/// close, blocks in waitpid, stalling every other Process in the program.
public final class SpawnedProcess: @unchecked Sendable {
    public let pid: pid_t
    public let path: String

    /// Starts `path`; its output goes to `stdout` (a descriptor to hand to it) or nowhere.
    public init(_ path: String, _ args: [String], environment: [String: String], stdout: Int32? = nil) throws {
        self.path = path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let rc = withCStrings([path] + args) { argv in
            withCStrings(environment.map { "\($0)=\($1)" }) { envp in posix_spawn(&pid, path, &actions, nil, argv, envp) }
        }
        guard rc == 0 else { throw HarnessError("cannot start \(path) (is it installed?): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    deinit { stop() }

    private var exited = false

    public var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) != 0 { exited = true }
        return !exited
    }

    /// SIGTERM, then SIGKILL after 5 s; reaps it.
    public func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<250 where isRunning { usleep(20_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exited = true
        }
    }
}
