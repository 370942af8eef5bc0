import CMediaScan
import Glibc
import ReelCore
import ReelScan
import ReelSystem

/// Reads one file: the identity of its bytes, then what libavformat finds in it.
enum MediaFile {
    /// How long libavformat may read one file before it gives up (reeld's own deadline,
    /// which kills this process, comes later).
    static let readTimeoutMs: Int32 = 8_000

    static func scan(_ path: String) -> ScannedFile {
        var file = ScannedFile(path: path, size: 0, modified: 0, identity: 0, outcome: .unreadable(""))
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            file.outcome = .unreadable("cannot open it: \(String(cString: strerror(errno)))")
            return file
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            file.outcome = .unreadable("cannot read it: \(String(cString: strerror(errno)))")
            close(fd)
            return file
        }
        file.size = Int64(info.st_size)
        file.modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            file.outcome = .unreadable("not a regular file")
            return file
        }
        switch identity(fd, size: file.size) {
        case .success(let hash): file.identity = hash
        case .failure(let error):
            close(fd)
            file.outcome = .unreadable("cannot read it: \(error)")
            return file
        }
        close(fd)
        guard file.size > 0 else {
            file.outcome = .unreadable("an empty file")
            return file
        }
        file.outcome = media(path, size: file.size)
        return file
    }

    private static func identity(_ fd: Int32, size: Int64) -> Result<UInt64, ReadError> {
        let ranges = FileIdentity.ranges(size: size)
        var buffers = ranges.map { [UInt8](repeating: 0, count: $0.count) }
        for (i, range) in ranges.enumerated() {
            var done = 0
            while done < range.count {
                let n = buffers[i].withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, range.count - done, off_t(range.offset) + off_t(done)) }
                if n < 0, errno == EINTR { continue }
                guard n >= 0 else { return .failure(ReadError(String(cString: strerror(errno)))) }
                guard n > 0 else { return .failure(ReadError("it is shorter than it says (it changed while read?)")) }
                done += n
            }
        }
        return .success(buffers[0].withUnsafeBytes { first in
            buffers.count == 1 ? FileIdentity.hash(size: size, [first])
                : buffers[1].withUnsafeBytes { last in FileIdentity.hash(size: size, [first, last]) }
        })
    }

    struct ReadError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func media(_ path: String, size: Int64) -> ScannedFile.Outcome {
        var reason = [CChar](repeating: 0, count: 256)
        guard let media = reel_media_open(path, readTimeoutMs, &reason, Int32(reason.count)) else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .unreadable("not readable as media: " + why)
        }
        defer { reel_media_close(media) }
        var raw = reel_media_facts()
        reel_media_get_facts(media, &raw)
        var facts = MediaFacts()
        facts.duration = raw.duration_us
        facts.start = raw.start_us
        (facts.audio, facts.video, facts.picture) = (raw.audio != 0, raw.video != 0, raw.picture != 0)
        (facts.sampleRate, facts.channels, facts.bits) = (Int(raw.sample_rate), Int(raw.channels), Int(raw.bits))
        facts.bitRate = raw.bit_rate
        facts.probeScore = Int(raw.probe_score)
        for layer in 0..<raw.layers {
            var tags: [String: String] = [:]
            var cursor: UnsafeRawPointer?
            var key: UnsafePointer<CChar>?
            var value: UnsafePointer<CChar>?
            while reel_media_tag(media, layer, &cursor, &key, &value) != 0, let key, let value {
                tags[String(cString: key)] = String(cString: value)
            }
            facts.tagLayers.append(tags)
        }
        for i in 0..<raw.chapters {
            var start: Int64 = 0
            var title: UnsafePointer<CChar>?
            reel_media_chapter(media, i, &start, &title)
            facts.chapters.append((start, title.map { String(cString: $0) }))
        }
        return facts.outcome(size: size, namedAsMedia: MediaExtension.all.contains(Paths.fileExtension(path)))
    }
}
