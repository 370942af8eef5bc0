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

    public static func file(_ path: String, timeout: Double = 30) throws -> ProbedItem {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-print_format", "json", "-show_entries", "format=duration:format_tags:stream_tags", path]
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
            throw Failure.unreadable("not readable as media: " + reason.replacingOccurrences(of: path + ": ", with: ""))
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
        let dir = (path as NSString).deletingLastPathComponent
        let cover = coverNames.map { dir + "/" + $0 }.first { FileManager.default.isReadableFile(atPath: $0) }
        return ProbedItem(title: tags["title"], artist: tags["artist"] ?? tags["album_artist"], album: tags["album"],
                          duration: seconds.flatMap(MediaTime.fromSeconds), cover: cover, localPath: path)
    }
}
