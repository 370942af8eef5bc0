import Glibc

/// Starts programs with posix_spawn (not fork, and not Foundation's Process,
/// which watches its children through a descriptor that servers such as
/// PulseAudio close, and then blocks in waitpid).
public enum Spawn {
    /// Starts `path` with `args`: input, output and errors from and to the
    /// descriptors given or /dev/null, `closing` closed in the child; in a
    /// process group of its own when asked. The caller reaps it.
    public static func start(_ path: String, _ args: [String], environment: [String: String]? = nil,
                             stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil, closing: [Int32] = [],
                             newProcessGroup: Bool = false) throws(SystemError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        for (target, source) in [(Int32(1), stdout), (Int32(2), stderr)] {
            if let source { posix_spawn_file_actions_adddup2(&actions, source, target) } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        for fd in closing { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if newProcessGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var pid: pid_t = 0
        let rc = withCStrings([path] + args) { argv in
            guard let environment else { return posix_spawn(&pid, path, &actions, &attributes, argv, environ) }
            return withCStrings(environment.map { "\($0)=\($1)" }) { envp in
                posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            }
        }
        guard rc == 0 else { throw SystemError("cannot run \(path): \(String(cString: strerror(rc)))") }
        return pid
    }
}
