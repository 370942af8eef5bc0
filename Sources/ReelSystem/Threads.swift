import CLinux
import Glibc

/// Threads of the daemon's own (Foundation's Thread without Foundation).
public enum Threads {
    /// Runs `body` on a new detached thread named `name` (at most 15 bytes show in `ps`/`top`).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            reel_name_thread(String(decoding: body.name.utf8.prefix(15), as: UTF8.self))
            body.run()
            return nil
        }, box)
        guard started == 0 else {
            Unmanaged<Body>.fromOpaque(box).release()
            fatalError("cannot start a thread: \(String(cString: strerror(started)))")
        }
        pthread_detach(thread)
    }

    /// Lets the kernel end the calling thread's timed waits no later than asked. By default it
    /// may end them up to 50 µs late, and libmpv's `mpv_wait_event(handle, 0)` ends in a timed
    /// wait whose time has already passed: each drain of mpv's events slept 60–90 µs for it.
    public static func endTimedWaitsOnTime() {
        _ = reel_set_timer_slack(1)
    }

    /// Sleeps the calling thread.
    public static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        var left = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var asked = left
        while nanosleep(&asked, &left) == -1, errno == EINTR { asked = left }
    }

    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}

/// Writes a line to standard error in one write, so that lines from threads do not interleave.
public func writeStandardError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    line.withUTF8 { bytes in
        var done = 0
        while done < bytes.count {
            let n = write(2, bytes.baseAddress! + done, bytes.count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            done += n
        }
    }
}
