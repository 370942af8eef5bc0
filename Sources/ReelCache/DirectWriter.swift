import CLinux
import Glibc
import ReelSystem

/// Writes a download's bytes, which arrive in order, around the page cache
/// (O_DIRECT), in large aligned blocks on a thread of its own, so that the
/// transfer goes on while the disk writes. The pieces that are not whole
/// blocks (up to the first block boundary, the last partial block) go through
/// the page cache. Writing back buffered pages cost this machine's kernel more
/// CPU than the transfer itself (512 MiB: 0.2 s to write, 1–2 s more to sync),
/// while a direct write is on the device when it returns, so the syncs that
/// make a download durable find almost nothing left to do (docs/benchmark.md).
final class DirectWriter: @unchecked Sendable {
    // @unchecked: the queue, the free buffers and `failure` are under `cond`; the
    // filling buffer's fields are the fetch thread's alone, the descriptor the writer's.

    /// The alignment O_DIRECT asks of offsets, sizes and memory (4 KiB sectors at most).
    static let alignment = 4096
    static let capacity = 2 << 20
    static let buffers = 4
    /// How long bytes may wait in a buffer before its whole blocks are written
    /// anyway: a slow download shows its progress, and its bytes are there to read.
    static let longestHold = 0.1

    /// Bytes to write: `buffer`'s first byte is at `base` (aligned), its bytes in use at `from..<to`.
    private struct Job {
        var buffer: UnsafeMutableRawPointer
        var base: Int64
        var from: Int64
        var to: Int64
    }

    private let file: DataFile
    private let onWritten: (Range<Int64>) -> Void
    private var fd: Int32
    private let cond = Condition()
    private var free: [UnsafeMutableRawPointer] = []
    private var queue: [Job] = []
    private var closing = false
    private var writerDone = false
    private var failure: Error?
    private var allocated: [UnsafeMutableRawPointer] = []

    /// The buffer being filled, on the fetch thread.
    private var filling: Job?
    private var lastHandOff = monotonicSeconds()

    /// Whether it takes bytes: until `close`.
    private(set) var isOpen = true

    /// Nil when the file system does not write around its cache. `onWritten` is told
    /// every range once it is in the file, on the writer's thread, in order. `open`:
    /// how the direct descriptor is opened (tests hand one that refuses writes).
    init?(file: DataFile, open: (String) -> Int32 = { reel_open_direct($0) },
          onWritten: @escaping (Range<Int64>) -> Void) {
        let fd = open(file.path)
        guard fd >= 0 else { return nil }
        for _ in 0..<Self.buffers {
            // Mapped (page-aligned), not from malloc: unmapped when done, the memory goes back at once.
            guard let memory = mmap(nil, Self.capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                  memory != MAP_FAILED else { break }
            allocated.append(memory)
        }
        guard !allocated.isEmpty else {
            Glibc.close(fd)
            return nil
        }
        self.file = file
        self.fd = fd
        self.onWritten = onWritten
        free = allocated
        Threads.start(name: "reel-write") { [self] in writeLoop() }
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
        allocated.forEach { munmap($0, Self.capacity) }
    }

    /// Takes the bytes at `offset`, which follow the ones taken before; throws
    /// what the disk refused.
    func append(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        if let job = filling, job.to != offset { try handOff(last: true) }
        var rest = bytes
        var at = offset
        while !rest.isEmpty {
            if filling == nil { try startBuffer(at: at) }
            let used = Int(filling!.to - filling!.base)
            let n = min(rest.count, Self.capacity - used)
            (filling!.buffer + used).copyMemory(from: rest.baseAddress!, byteCount: n)
            filling!.to += Int64(n)
            at += Int64(n)
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(n))
            if used + n == Self.capacity { try handOff(last: false) }
        }
        if filling != nil, monotonicSeconds() - lastHandOff >= Self.longestHold { try handOff(last: false) }
    }

    /// Writes everything taken and waits for it; takes no more.
    func close() throws {
        guard isOpen else { return }
        isOpen = false
        if filling != nil { try? handOff(last: true) }
        try cond.withLock {
            closing = true
            cond.broadcast()
            while !writerDone { cond.wait() }
            if let failure { throw failure }
        }
    }

    /// A free buffer for the bytes from `offset` on; waits for the writer to free one.
    private func startBuffer(at offset: Int64) throws {
        let buffer = try cond.withLock { () throws -> UnsafeMutableRawPointer in
            while free.isEmpty, failure == nil { cond.wait() }
            if let failure { throw failure }
            return free.removeLast()
        }
        let base = offset / Int64(Self.alignment) * Int64(Self.alignment)
        filling = Job(buffer: buffer, base: base, from: offset, to: offset)
    }

    /// Gives the filling buffer's bytes to the writer: all of them if `last`, else its whole
    /// blocks, the partial one carried over into the next buffer (or kept in this one).
    private func handOff(last: Bool) throws {
        guard var job = filling else { return }
        filling = nil
        lastHandOff = monotonicSeconds()
        let cut = last ? job.to : max(job.from, job.to / Int64(Self.alignment) * Int64(Self.alignment))
        let carried = UnsafeRawBufferPointer(start: job.buffer + Int(cut - job.base), count: Int(job.to - cut))
        if cut > job.from {
            job.to = cut
            try cond.withLock {
                if let failure { throw failure }
                queue.append(job)
                cond.broadcast()
            }
        }
        if carried.isEmpty {
            if cut == job.from { cond.withLock { free.append(job.buffer) } }
            return
        }
        if cut == job.from {
            // Nothing whole yet: the buffer stays the filling one.
            job.to = cut + Int64(carried.count)
            filling = job
            return
        }
        try startBuffer(at: cut)
        filling!.buffer.copyMemory(from: carried.baseAddress!, byteCount: carried.count)
        filling!.to += Int64(carried.count)
    }

    private func writeLoop() {
        while true {
            let job = cond.withLock { () -> Job? in
                while queue.isEmpty, !closing { cond.wait() }
                return queue.isEmpty ? nil : queue.removeFirst()
            }
            guard let job else { break }
            let failed = cond.withLock { failure != nil }
            if !failed {
                do {
                    try write(job)
                    onWritten(job.from..<job.to)
                } catch {
                    cond.withLock { failure = error }
                }
            }
            cond.withLock {
                free.append(job.buffer)
                cond.broadcast()
            }
        }
        cond.withLock {
            writerDone = true
            cond.broadcast()
        }
    }

    /// Writes a job: its whole blocks around the page cache, the rest through it.
    private func write(_ job: Job) throws {
        let align = Int64(Self.alignment)
        let blocksFrom = min((job.from + align - 1) / align * align, job.to)
        let blocksTo = max(blocksFrom, job.to / align * align)
        let bytes = { (from: Int64, to: Int64) in
            UnsafeRawBufferPointer(start: job.buffer + Int(from - job.base), count: Int(to - from))
        }
        if blocksFrom > job.from { try file.write(bytes(job.from, blocksFrom), at: job.from) }
        var at = blocksFrom
        while at < blocksTo, fd >= 0 {
            let n = pwrite(fd, bytes(at, blocksTo).baseAddress, Int(blocksTo - at), off_t(at))
            if n < 0 && errno == EINTR { continue }
            if n > 0 && Int64(n) % align == 0 { at += Int64(n); continue }
            // Refused (or short, as when the disk fills): the rest goes through the page
            // cache, which says why in words if it fails too.
            if n > 0 { at += Int64(n) }
            Glibc.close(fd)
            fd = -1
        }
        if at < job.to { try file.write(bytes(at, job.to), at: at) }
    }
}
