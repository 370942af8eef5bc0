import FoundationEssentials
import Glibc
import ReelSystem
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
        var item = try probe(ffmpegInput(path), timeout: timeout, needsDuration: true)
        item.localPath = path
        var info = stat()
        if stat(path, &info) == 0 { item.modified = Int64(info.st_mtim.tv_sec) }
        let dir = Paths.directory(of: path)
        item.cover = coverNames.map { dir + "/" + $0 }.first { FileManager.default.isReadableFile(atPath: $0) }
        return item
    }

    /// Reads the start of a remote file (ffprobe fetches only what it needs).
    public static func remote(_ url: String, timeout: Double = 15) throws -> ProbedItem {
        guard URLParts.isRemote(url) else { throw Failure.unreadable("not an http(s) URL") }
        var item = try probe(url, options: ["-rw_timeout", "\(Int(timeout * 1_000_000))"], timeout: timeout,
                             needsDuration: false)
        item.remoteURL = url
        return item
    }

    /// A file counts as media when ffprobe finds an audio or video stream and,
    /// for a file, a duration: it takes random bytes named .mp3 for an MP3
    /// stream, but can then say nothing of its length.
    private static func probe(_ input: String, options: [String] = [], timeout: Double,
                              needsDuration: Bool) throws -> ProbedItem {
        let result: Subprocess.Result
        do {
            result = try Subprocess.run("/usr/bin/ffprobe", ["-v", "error"] + options
                                        + ["-print_format", "json", "-show_chapters", "-show_entries",
                                           "format=duration,start_time:format_tags:stream=codec_type,sample_rate,channels,"
                                           + "sample_fmt,bits_per_raw_sample:stream_tags", input],
                                        timeout: timeout)
        } catch {
            throw Failure.unreadable("cannot run ffprobe: \(error)")
        }
        if result.timedOut { throw Failure.unreadable("ffprobe gave no answer within \(Int(timeout)) s") }
        let errors = String(decoding: result.errors, as: UTF8.self)
        guard result.status == 0, let json = try? JSONDecoder().decode(ProbeOutput.self, from: result.output),
              let format = json.format else {
            let reason = errors.split(separator: "\n").last.map(String.init) ?? "not a media file"
            throw Failure.unreadable("not readable as media: " + reason.replacing(input + ": ", with: ""))
        }
        let streams = json.streams ?? []
        let seconds = format.duration.flatMap(Double.init)
        guard streams.contains(where: { ["audio", "video"].contains($0.codec_type) }),
              !needsDuration || (seconds ?? 0) > 0 else {
            throw Failure.unreadable("not a media file (ffprobe finds no playable audio or video in it)")
        }
        // Containers keep tags on the format (MP3, MP4) or on the stream (Ogg); the format's win.
        let tags = ContainerTags(layers: streams.compactMap(\.tags?.values) + [format.tags?.values].compactMap { $0 })
        var item = ProbedItem(title: tags.title, artist: tags.artist, album: tags.album,
                              duration: seconds.flatMap(MediaTime.fromSeconds), genre: tags.genre)
        (item.albumArtist, item.track, item.disc, item.date) = (tags.albumArtist, tags.trackNumber, tags.disc, tags.date)
        item.format = streams.first { $0.codec_type == "audio" }.flatMap(Self.format)
        // mpv times chapters from the file's first timestamp (an MP3's encoder delay, 25 ms): so must the library.
        let origin = format.start_time.flatMap(Double.init).map { max($0, 0) } ?? 0
        item.chapters = Chapter.normalized((json.chapters ?? []).compactMap { chapter in
            guard let start = chapter.start_time.flatMap(Double.init).flatMap({ MediaTime.fromSeconds($0 - origin) }) else { return nil }
            return Chapter(start: start, title: chapter.tags?.values["title"] ?? "")
        })
        return item
    }

    /// An audio stream's format as MPD writes it: rate, bits (f for floating point), channels.
    private static func format(_ stream: ProbeOutput.Stream) -> String? {
        guard let rate = stream.sample_rate.flatMap(Int.init), let channels = stream.channels else { return nil }
        let kind = stream.sample_fmt ?? ""
        let bits: String
        if kind.hasPrefix("flt") || kind.hasPrefix("dbl") {
            bits = "f"
        } else if let raw = stream.bits_per_raw_sample.flatMap(Int.init), raw > 0 {
            bits = String(raw)
        } else if let size = Int(kind.drop { !$0.isNumber }.prefix { $0.isNumber }) {
            bits = String(size)   // s16, s32p
        } else {
            bits = kind == "u8" ? "8" : "f"
        }
        return "\(rate):\(bits):\(channels)"
    }
}

/// What `ffprobe -print_format json` says, as far as reel reads it.
private struct ProbeOutput: Decodable {
    struct Format: Decodable {
        var duration: String?
        var start_time: String?
        var tags: Tags?
    }
    struct Stream: Decodable {
        var codec_type: String?
        var sample_rate: String?
        var channels: Int?
        var sample_fmt: String?
        var bits_per_raw_sample: String?
        var tags: Tags?
    }
    /// Tag values that are text; a number or anything else is skipped, not an error.
    struct Tags: Decodable {
        var values: [String: String] = [:]
        init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys {
                if let text = try? container.decode(String.self, forKey: key) { values[key.stringValue] = text }
            }
        }
    }
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    struct Chapter: Decodable {
        var start_time: String?
        var tags: Tags?
    }
    var format: Format?
    var streams: [Stream]?
    var chapters: [Chapter]?
}
