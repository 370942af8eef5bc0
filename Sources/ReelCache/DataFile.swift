import CLinux
import FoundationEssentials
import Glibc
import ReelCore

/// A sparse file holding a resource's bytes at their own offsets.
final class DataFile: @unchecked Sendable {
    // @unchecked: an immutable descriptor; pread and pwrite at explicit offsets need no lock.
    let path: String
    private let fd: Int32

    /// Opens (creating, 0600) the file at `path`.
    init(path: String) throws {
        self.path = path
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CacheError.io("cannot open \(path): \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw CacheError.io(DiskError.describe(n < 0 ? errno : ENOSPC, writing: "the cache")) }
            done += n
        }
    }

    /// Reads up to `count` bytes at `offset` into `buffer`; the number read.
    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int {
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        return done
    }

    /// Makes what was written durable, before the index may claim it.
    func sync() throws {
        guard fdatasync(fd) == 0 else { throw CacheError.io(DiskError.describe(errno, writing: "the cache")) }
    }

    /// Asks the kernel to start writing out these bytes, without waiting for them.
    func startWriteback(from: Int64, to: Int64) {
        _ = reel_start_writeback(fd, from, to - from)
    }

    /// Drops every byte (a resource that changed on the server).
    func truncate() {
        _ = ftruncate(fd, 0)
    }

    /// Bytes the file takes on disk (sparse holes cost nothing).
    var allocated: Int64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_blocks) * 512 : 0
    }
}

/// What went wrong in the cache, in words for the user.
public enum CacheError: Error, Equatable, CustomStringConvertible {
    case io(String)
    case http(String)
    public var description: String {
        switch self {
        case .io(let text), .http(let text): text
        }
    }
}

/// A name for a URL that no part of the URL reaches: two 64-bit FNV-1a
/// hashes (of the URL, and of the URL reversed), in hex.
func cacheKey(for url: String) -> String {
    func fnv(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
    let bytes = Array(url.utf8)
    let hex = { (v: UInt64) in String(v, radix: 16).zeroPadded(to: 16) }
    return hex(fnv(bytes)) + hex(fnv(bytes.reversed()))
}
