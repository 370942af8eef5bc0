import Dispatch
import FoundationEssentials
import Glibc
import ReelSystem
import ReelCore
import ReelLibrary

/// Cover art for local files: an image beside the file, or the picture
/// embedded in it, extracted once into the cache directory.
final class CoverArt: Sendable {
    let cacheDir: URL
    private let results: Mailbox<LoopResult>
    private let queue = DispatchQueue(label: "reel.cover-art", qos: .utility)

    init(cacheDir: URL, results: Mailbox<LoopResult>) {
        self.cacheDir = cacheDir
        self.results = results
    }

    /// An image beside a local file: one of a handful of names that is an image by its first
    /// bytes (a cover.jpg may be anything), so it is cheap on the loop.
    static func beside(_ uri: String) -> String? {
        guard let url = URL(string: uri), url.isFileURL else { return nil }
        let dir = url.deletingLastPathComponent()
        for name in Probe.coverNames {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isReadableFile(atPath: candidate.path), ImageSniff.type(ofFile: candidate.path) != nil {
                return candidate.absoluteString
            }
        }
        return nil
    }

    /// Whether a cover art URI still names something: a local file that is there, or any remote URL.
    static func exists(_ art: String) -> Bool {
        guard let url = URL(string: art), url.isFileURL else { return true }
        return FileManager.default.isReadableFile(atPath: url.path)
    }

    /// Extracts the embedded picture of a local file on a worker thread and
    /// posts its file:// URI to the loop. A file already extracted is reused.
    func extract(from uri: String, for entry: EntryID) {
        guard let url = URL(string: uri), url.isFileURL else { return }
        queue.async { [self] in
            guard let target = extractNow(from: url.path) else { return }
            results.post(.coverArt(entry, URL(fileURLWithPath: target).absoluteString))
        }
    }

    /// The embedded picture of a local file, extracted now (or before) into the
    /// cache; its path, or nil when it has none. Blocks: any thread but the loop's.
    @Sendable func extractNow(from path: String) -> String? {
        let target = cacheDir.appendingPathComponent(Self.cacheName(for: URL(fileURLWithPath: path)))
        if FileManager.default.fileExists(atPath: target.path) { return target.path }
        return Self.runFFmpeg(input: path, output: target) ? target.path : nil
    }

    /// Names the cached image after the file's path, size and modification time,
    /// so a changed file gets its art extracted again.
    static func cacheName(for url: URL) -> String {
        var info = stat()
        let known = stat(url.path, &info) == 0
        let size = known ? Int64(info.st_size) : 0
        let mtime = known ? Int64(info.st_mtim.tv_sec) : 0
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325   // FNV-1a
        for byte in "\(url.path)|\(size)|\(mtime)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16) + ".jpg"
    }

    private static func runFFmpeg(input: String, output: URL) -> Bool {
        try? FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = output.deletingPathExtension().appendingPathExtension("part.jpg")
        let result: Subprocess.Result
        do {
            result = try Subprocess.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", Probe.ffmpegInput(input),
                                                            "-an", "-map", "0:v:0", "-frames:v", "1",
                                                            Probe.ffmpegInput(partial.path)], timeout: 30)
        } catch {
            log("cannot extract cover art (is ffmpeg installed?): \(error)")
            return false
        }
        guard result.status == 0, !result.timedOut else { try? FileManager.default.removeItem(at: partial); return false }
        // Renamed into place only once complete, so a reader never sees half a file.
        return (try? FileManager.default.moveItem(at: partial, to: output)) != nil
    }
}
