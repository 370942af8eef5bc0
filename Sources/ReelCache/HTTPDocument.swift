import FoundationEssentials
import Glibc
import ReelCore

/// A document fetched whole (a feed), bypassing the cache: feeds change.
public enum HTTPDocument {
    /// Fetches `url` into a new file in `directory` that is unlinked at once
    /// (nothing is left behind, whatever happens), and returns it open, at
    /// most `limit` bytes long. The caller closes it.
    public static func fetch(_ url: String, timeout: Int, limit: Int, into directory: URL) throws -> Int32 {
        var template = Array(directory.appendingPathComponent("feed-XXXXXX").path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw CacheError.io("cannot make a file in \(directory.path): \(String(cString: strerror(errno)))") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var written = 0
        var tooLarge = false
        var writeError: Int32 = 0
        let outcome = HTTPTransfer().run(HTTPTransfer.Request(url: url, from: 0, to: nil, ifRange: nil, timeout: timeout),
                                         steer: { .go }, onResponse: { _ in true }, onData: { bytes in
            guard written + bytes.count <= limit else { tooLarge = true; return false }
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0, errno == EINTR { continue }
                // A short write sets no errno: the disk is full.
                guard n > 0 else { writeError = n < 0 ? errno : ENOSPC; return false }
                done += n
            }
            written += done
            return true
        })
        let host = HTTPTransfer.serverName(of: url)
        let failure: CacheError? = switch outcome {
        case .completed: nil
        case .stopped where writeError != 0: .io(DiskError.describe(writeError, writing: "the feed"))
        case .stopped: .http(tooLarge ? "the feed is larger than \(ByteCount.text(Int64(limit))), the most reel reads" : "stopped")
        case .status(let code): .http("HTTP \(code) from \(host)")
        case .timedOut(answered: true): .http("no data from \(host) in \(timeout) s")
        case .timedOut: .http("timed out connecting to \(host): no answer in \(timeout) s")
        case .failed(let message): .http("cannot reach \(host): \(message)")
        }
        if let failure {
            close(fd)
            throw failure
        }
        return fd
    }
}

/// Write errors in a person's words.
public enum DiskError {
    public static func describe(_ code: Int32, writing what: String) -> String {
        switch code {
        case ENOSPC, EDQUOT: "cannot write \(what): the disk is full"
        case EROFS: "cannot write \(what): the disk is read-only"
        case EACCES, EPERM: "cannot write \(what): permission denied"
        default: "cannot write \(what): \(String(cString: strerror(code)))"
        }
    }
}
