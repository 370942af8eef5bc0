import Foundation
import ReelCore

/// Reads a file's duration and tags with ffprobe. A separate process keeps a
/// crashing or hanging demuxer away from the daemon, lets several files be
/// probed at once on worker threads, and never touches the playback handle.
public enum Probe {
    public static let coverNames = ["cover.jpg", "cover.png", "folder.jpg", "folder.png", "Cover.jpg", "Folder.jpg", "front.jpg"]

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        public var description: String {
            switch self { case .unreadable(let why): why }
        }
    }

    /// A name as ffmpeg and ffprobe must be given it: through the file
    /// protocol, so that no name is read as an option ("-report") or as
    /// another protocol ("concat:…").
    public static func ffmpegInput(_ path: String) -> String {
        "file:" + (path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path)
    }

    /// Reads a local file.
    public static func file(_ path: String, timeout: Double = 30) throws -> ProbedItem {
        var item = try probe(ffmpegInput(path), timeout: timeout)
        item.localPath = path
        let dir = (path as NSString).deletingLastPathComponent
        item.cover = coverNames.map { dir + "/" + $0 }.first { FileManager.default.isReadableFile(atPath: $0) }
        return item
    }

    /// Reads the start of a remote file (ffprobe fetches only what it needs).
    public static func remote(_ url: String, timeout: Double = 15) throws -> ProbedItem {
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw Failure.unreadable("not an http(s) URL") }
        var item = try probe(url, options: ["-rw_timeout", "\(Int(timeout * 1_000_000))"], timeout: timeout)
        item.remoteURL = url
        return item
    }

    private static func probe(_ input: String, options: [String] = [], timeout: Double) throws -> ProbedItem {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error"] + options
            + ["-print_format", "json", "-show_entries", "format=duration:format_tags:stream_tags", input]
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { throw Failure.unreadable("cannot run ffprobe: \(error)") }
        let watchdog = DispatchWorkItem { if p.isRunning { p.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        watchdog.cancel()
        guard p.terminationStatus == 0,
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let format = json["format"] as? [String: Any] else {
            let reason = errors.split(separator: "\n").last.map(String.init) ?? "not a media file"
            throw Failure.unreadable("not readable as media: " + reason.replacingOccurrences(of: input + ": ", with: ""))
        }
        // Containers keep tags on the format (MP3, MP4) or on the stream (Ogg); the format's win.
        var tags: [String: String] = [:]
        let streams = (json["streams"] as? [[String: Any]]) ?? []
        for source in streams.compactMap({ $0["tags"] as? [String: Any] }) + [(format["tags"] as? [String: Any]) ?? [:]] {
            for (key, value) in source {
                if let text = value as? String, !text.isEmpty { tags[key.lowercased()] = text }
            }
        }
        let seconds = (format["duration"] as? String).flatMap(Double.init)
        return ProbedItem(title: tags["title"], artist: tags["artist"] ?? tags["album_artist"], album: tags["album"],
                          duration: seconds.flatMap(MediaTime.fromSeconds))
    }
}
