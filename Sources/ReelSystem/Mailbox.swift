import Glibc

/// A pipe that wakes a poll loop: any thread, or a signal handler, writes a
/// byte; the loop polls `readFD` and drains it. Non-blocking and close-on-exec
/// at both ends, so a full pipe never blocks a writer and children never inherit it.
public final class WakeupPipe: Sendable {
    public let readFD: Int32
    public let writeFD: Int32

    public init() throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SystemError("cannot create a pipe: \(String(cString: strerror(errno)))") }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// From any thread.
    public func wake() { Self.wake(writeFD) }

    /// Async-signal-safe: one write(2).
    public static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    /// On the loop: empties the pipe, so that the next poll waits for a new wake.
    public func drain() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(readFD, &sink, sink.count) > 0 {}
    }
}

/// Hands items from any thread to a poll loop. Several mailboxes may share
/// one pipe; the mailbox that makes its own pipe also drains it when taken.
public final class Mailbox<Item: Sendable>: @unchecked Sendable {
    // @unchecked: `items` is only touched under `lock`; the rest is immutable.
    public let pipe: WakeupPipe
    private let drainsPipe: Bool
    private let lock = Lock()
    private var items: [Item] = []

    /// A mailbox with a pipe of its own, polled at `fd`.
    public init() throws(SystemError) {
        pipe = try WakeupPipe()
        drainsPipe = true
    }

    /// A mailbox that wakes the loop through `pipe`, which its owner drains.
    public init(waking pipe: WakeupPipe) {
        self.pipe = pipe
        drainsPipe = false
    }

    public var fd: Int32 { pipe.readFD }

    /// From any thread.
    public func post(_ item: Item) {
        lock.withLock { items.append(item) }
        pipe.wake()
    }

    /// On the loop: everything posted so far.
    public func take() -> [Item] {
        if drainsPipe { pipe.drain() }
        return lock.withLock {
            defer { items.removeAll() }
            return items
        }
    }
}
