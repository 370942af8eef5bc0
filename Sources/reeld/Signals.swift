import Glibc
import ReelSystem
import Synchronization

/// SIGTERM, SIGINT and SIGHUP become a byte on a pipe the run loop polls.
enum StopSignals {
    /// The pipe's write end, for the handlers: an atomic, read without a lock in a signal handler.
    private static let writeFD = Atomic<Int32>(-1)

    /// Installs the handlers; the caller keeps the pipe and polls its read end.
    static func install() throws(SystemError) -> WakeupPipe {
        let pipe = try WakeupPipe()
        writeFD.store(pipe.writeFD, ordering: .relaxed)
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig) { _ in WakeupPipe.wake(StopSignals.writeFD.load(ordering: .relaxed)) }
        }
        signal(SIGPIPE, SIG_IGN)
        return pipe
    }
}
