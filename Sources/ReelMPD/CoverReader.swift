import Dispatch
import Glibc
import ReelCore
import ReelSystem

/// Reads cover images for `albumart` and `readpicture` off the loop, on a
/// thread of its own: a cover on a hung network mount (or anything else
/// that blocks in open, realpath or read) holds up that thread, never the
/// loop. A command that finds its chunk not read yet waits, and runs again
/// once it is (ClientProtocol's waiting mode); what was read is kept a
/// moment for it, and for the client next in line for the same chunk.
final class CoverReader: @unchecked Sendable {
    // @unchecked: `done`, `doneBytes` and `asked` are under `lock`; the rest is immutable.
    struct Request: Hashable, Sendable {
        /// The image, or with `embedded` the song whose picture it is.
        let path: String
        var embedded = false
        let offset: Int
        let count: Int
        /// Where the image must lie, links resolved: the music folder and reel's covers, and for the
        /// Unix socket's owner also the folder the image is named in (no link out of it is followed).
        let folders: [String]
    }

    enum Outcome: Equatable, Sendable {
        case chunk(size: Int, type: String, bytes: ArraySlice<UInt8>)
        /// No regular image file there (by its bytes), or one outside the folders.
        case missing
        case offsetTooLarge
        case unreadable
    }

    /// Wakes the loop when a read is done.
    let news: Mailbox<Void>
    private let queue = DispatchQueue(label: "reel.mpd.covers", qos: .userInitiated)
    private let lock = Lock()
    private var done: [Request: (outcome: Outcome, at: MonotonicTime)] = [:]
    private var doneBytes = 0
    private var asked = Set<Request>()
    /// How long a chunk read is kept for the command that asked for it.
    static let kept: MonotonicTime = 2_000_000
    /// The most kept at once; the oldest go first.
    static let keptBytes = 32 << 20

    private let reading: @Sendable (Request) -> Outcome

    /// `extract`: a song's embedded picture, extracted (the daemon's cover cache).
    /// `read`: how a chunk is read (tests stand in a disk that hangs).
    init(extract: (@Sendable (String) -> String?)? = nil,
         read: (@Sendable (Request) -> Outcome)? = nil) throws(SystemError) {
        news = try Mailbox()
        reading = read ?? { request in
            guard request.embedded else { return CoverReader.read(request) }
            // The song's picture, served at once, not only once the song has played.
            guard let image = extract?(request.path) else { return .missing }
            return CoverReader.read(Request(path: image, offset: request.offset, count: request.count, folders: request.folders))
        }
    }

    /// What was read for `request`; nil when it is being read (`news` says when it is).
    func outcome(_ request: Request) -> Outcome? {
        let now = monotonicNow()
        return lock.withLock {
            for (key, value) in done where now - value.at >= Self.kept { forget(key) }
            if let found = done[request] { return found.outcome }
            guard asked.insert(request).inserted else { return nil }
            queue.async { [self] in
                let outcome = reading(request)
                lock.withLock {
                    asked.remove(request)
                    keep(outcome, for: request)
                }
                news.post(())
            }
            return nil
        }
    }

    /// Waits until every read asked for is done (tests).
    func finish() { queue.sync {} }

    private func keep(_ outcome: Outcome, for request: Request) {
        done[request] = (outcome, monotonicNow())
        if case .chunk(_, _, let bytes) = outcome { doneBytes += bytes.count }
        while doneBytes > Self.keptBytes, let oldest = done.min(by: { $0.value.at < $1.value.at })?.key { forget(oldest) }
    }

    private func forget(_ request: Request) {
        guard let gone = done.removeValue(forKey: request) else { return }
        if case .chunk(_, _, let bytes) = gone.outcome { doneBytes -= bytes.count }
    }

    static func read(_ request: Request) -> Outcome {
        guard Paths.resolves(request.path, into: request.folders), let image = CoverFile(path: request.path) else { return .missing }
        guard request.offset <= image.size else { return .offsetTooLarge }
        guard let chunk = image.read(offset: request.offset, count: request.count) else { return .unreadable }
        return .chunk(size: image.size, type: image.type, bytes: chunk)
    }
}

/// A cover image opened for reading: a regular file that is an image by its bytes, opened
/// without waiting (a FIFO named cover.jpg would otherwise hold the thread in open(2) forever).
struct CoverFile: ~Copyable {
    private let fd: Int32
    let size: Int
    let type: String

    init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, let type = ImageSniff.type(ofOpen: fd) else {
            close(fd)
            return nil
        }
        self.fd = fd
        self.type = type
        size = Int(info.st_size)
    }

    deinit { close(fd) }

    func read(offset: Int, count: Int) -> ArraySlice<UInt8>? {
        var chunk = [UInt8](repeating: 0, count: max(0, min(count, size - offset)))
        let got = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
        return got >= 0 ? chunk[..<got] : nil
    }
}
