import FoundationEssentials
import Glibc

/// A mutex (Foundation's NSLock without Foundation, which would load ICU
/// into the daemon). Not recursive.
public final class Lock: @unchecked Sendable {
    // @unchecked: the pthread mutex is the synchronisation; it lives at a fixed address for the object's life.
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A lock with a condition variable on CLOCK_MONOTONIC (NSCondition without Foundation).
public final class Condition: @unchecked Sendable {
    // @unchecked: the pthread mutex guards everything; the objects live at fixed addresses for the object's life.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits (the lock held) until signalled.
    public func wait() { pthread_cond_wait(cond, mutex) }

    /// Waits (the lock held) until signalled or `seconds` pass; false when the time ran out.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let whole = seconds.rounded(.down)
        var deadline = timespec(tv_sec: now.tv_sec + Int(max(0, whole)), tv_nsec: now.tv_nsec + Int(max(0, seconds - whole) * 1e9))
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return pthread_cond_timedwait(cond, mutex, &deadline) == 0
    }

    /// Waits (the lock held) until signalled or `date`; false when the time ran out.
    @discardableResult
    public func wait(until date: Date) -> Bool { wait(seconds: max(0, date.timeIntervalSinceNow)) }

    public func signal() { pthread_cond_signal(cond) }
    public func broadcast() { pthread_cond_broadcast(cond) }
}
