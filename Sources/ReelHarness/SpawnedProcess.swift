import Foundation
import ReelSystem

/// A server process started with posix_spawn rather than Foundation's
/// Process. Servers such as PulseAudio and Xvfb close every descriptor they
/// inherit; Foundation watches its children through one and, seeing it
/// close, blocks in waitpid, stalling every other Process in the program.
public final class SpawnedProcess: @unchecked Sendable {
    // @unchecked: used from the test thread that started it (and its deinit); `exited` is never shared.
    public let pid: pid_t
    public let path: String

    /// Starts `path`; its output goes to `stdout` (a descriptor to hand to it) or nowhere.
    public init(_ path: String, _ args: [String], environment: [String: String], stdout: Int32? = nil) throws {
        self.path = path
        do {
            pid = try Spawn.start(path, args, environment: environment, stdout: stdout)
        } catch {
            throw HarnessError("\(error) (is it installed?)")
        }
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
