import FoundationEssentials
import ReelSystem
import Glibc

/// Lets worker threads hand results to the run loop: a locked queue and a
/// pipe whose read end the loop polls.
final class Mailbox<Item: Sendable>: @unchecked Sendable {
    let fd: Int32
    private let writeFD: Int32
    private let lock = Lock()
    private var items: [Item] = []

    init() {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for f in fds { _ = fcntl(f, F_SETFL, O_NONBLOCK); _ = fcntl(f, F_SETFD, FD_CLOEXEC) }
        fd = fds[0]
        writeFD = fds[1]
    }

    deinit {
        close(fd)
        close(writeFD)
    }

    /// Called from any thread.
    func post(_ item: Item) {
        lock.lock()
        items.append(item)
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Called on the loop: everything posted so far.
    func take() -> [Item] {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(fd, &sink, sink.count) > 0 {}
        lock.lock()
        defer { lock.unlock() }
        let taken = items
        items.removeAll()
        return taken
    }
}
