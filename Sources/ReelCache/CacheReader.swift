import FoundationEssentials
import ReelSystem
import Glibc

/// One reader of a cached resource (one mpv stream): its own position.
public final class CacheReader: @unchecked Sendable {
    // @unchecked: position and the flags are under `lock`; onStall is set once, before mpv reads.
    private let resource: Resource
    private let lock = Lock()
    private var position: Int64 = 0
    private var cancelled = false
    private var closed = false
    /// Told when a read waits long enough to stall playback (true), and when it gets its bytes.
    public var onStall: (@Sendable (Bool) -> Void)?

    private let number: Int

    init(_ resource: Resource, number: Int) {
        self.resource = resource
        self.number = number
    }

    public var url: String { resource.url }

    /// Blocks until bytes are present; 0 only at the true end, -1 on a failure or cancel.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        let at = lock.withLock { position }
        let n = resource.read(into: buffer, count: count, at: at, cancelled: { lock.withLock { cancelled } },
                              stalled: { onStall?($0) })
        if n > 0 { lock.withLock { position = at + Int64(n) } }
        return n
    }

    /// Moves the read position; cheap, fetches nothing. -1 when the server
    /// cannot get there (it ignores Range and the byte is far ahead).
    public func seek(to offset: Int64) -> Int64 {
        guard offset != lock.withLock({ position }) else { return offset }
        guard offset >= 0, resource.canSeek(to: offset) else { return -1 }
        lock.withLock { position = offset }
        return offset
    }

    /// A live stream: no length, no seeking, no end.
    public var isLive: Bool { resource.isLive }

    /// The length, from the index when known.
    public var size: Int64? { resource.snapshot.length }

    /// Why reading failed, if it did.
    public var failure: String? { resource.lastFailure }

    /// Unblocks a pending read at once; later reads fail.
    public func cancel() {
        lock.withLock { cancelled = true }
        resource.wakeReaders()
    }

    public func close() {
        let first = lock.withLock { () -> Bool in
            defer { closed = true }
            return !closed
        }
        if first { resource.closeReader(number) }
    }
}
