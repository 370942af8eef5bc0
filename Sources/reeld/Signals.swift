import FoundationEssentials
import Glibc

/// SIGTERM, SIGINT and SIGHUP become a byte on a pipe the run loop polls.
enum StopSignals {
    nonisolated(unsafe) private static var writeFD: Int32 = -1

    /// Installs the handlers; returns the pipe's read end.
    static func install() -> Int32 {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return -1 }
        for fd in fds { _ = fcntl(fd, F_SETFL, O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        writeFD = fds[1]
        for sig in [SIGTERM, SIGINT, SIGHUP] {
            signal(sig) { _ in
                var byte: UInt8 = 1
                _ = write(StopSignals.writeFD, &byte, 1)
            }
        }
        signal(SIGPIPE, SIG_IGN)
        return fds[0]
    }
}
