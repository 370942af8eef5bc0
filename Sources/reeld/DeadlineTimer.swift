import CLinux
import FoundationEssentials
import Glibc
import ReelCore
import ReelSystem

/// A timerfd that becomes readable at the engine's deadline, for the run loop to poll.
final class DeadlineTimer {
    let fd: Int32
    private var armed: MonotonicTime?

    init() {
        fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
    }

    deinit { close(fd) }

    /// Arms the timer for `deadline` (a monotonicNow() reading), or disarms it for nil.
    func set(_ deadline: MonotonicTime?) {
        guard deadline != armed else { return }
        armed = deadline
        // An absolute time of zero would disarm it: a due deadline is 1 µs after boot.
        let at = deadline.map { max($0, 1) } ?? 0
        var spec = itimerspec(it_interval: timespec(tv_sec: 0, tv_nsec: 0),
                              it_value: timespec(tv_sec: Int(at / 1_000_000), tv_nsec: Int(at % 1_000_000) * 1000))
        _ = timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Consumes an expiry so that the fd stops being readable.
    func acknowledge() {
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, 8)
        armed = nil
    }
}
