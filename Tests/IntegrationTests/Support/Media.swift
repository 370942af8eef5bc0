import Foundation

/// Test media, generated once per test run with ffmpeg: short tagged tones,
/// an album folder with a cover image, and a file that is not media at all.
struct Media: Sendable {
    let dir: URL
    /// Four tagged 8-second tones: "Tone 1" … "Tone 4" by "Reel Test".
    let tones: [URL]
    /// A tone with cover.jpg beside it.
    let withCover: URL
    let cover: URL
    /// Random bytes named .ogg.
    let broken: URL

    static let shared: Media = {
        do { return try generate() } catch { fatalError("cannot generate test media: \(error)") }
    }()

    private static func generate() throws -> Media {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-media-\(getpid())")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("album"), withIntermediateDirectories: true)
        var tones: [URL] = []
        for i in 1...4 {
            let url = dir.appendingPathComponent("tone\(i).ogg")
            try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(200 + 100 * i):duration=8",
                        "-metadata", "title=Tone \(i)", "-metadata", "artist=Reel Test", "-metadata", "album=Tones",
                        "-metadata", "album_artist=Reel Ensemble", "-metadata", "track=\(i)/4",
                        "-c:a", "libvorbis", url.path])
            tones.append(url)
        }
        let withCover = dir.appendingPathComponent("album/untagged song.ogg")
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=660:duration=8", "-c:a", "libvorbis", withCover.path])
        let cover = dir.appendingPathComponent("album/cover.jpg")
        try ffmpeg(["-f", "lavfi", "-i", "color=c=blue:s=64x64", "-frames:v", "1", cover.path])
        let broken = dir.appendingPathComponent("broken.ogg")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: broken)
        return Media(dir: dir, tones: tones, withCover: withCover, cover: cover, broken: broken)
    }

    private static func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-loglevel", "error", "-y"] + args
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TestFailure("ffmpeg \(args) failed") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
