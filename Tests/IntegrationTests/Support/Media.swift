import Foundation
import ReelHarness

/// Test media, generated once per test run: short tagged tones, an album
/// folder with a cover image, and a file that is not media at all.
struct Media: Sendable {
    let dir: URL
    /// Four tagged 8-second tones: "Tone 1" … "Tone 4" by "Reel Test".
    let tones: [URL]
    /// A tone with cover.jpg beside it.
    let withCover: URL
    let cover: URL
    /// Random bytes named .ogg.
    let broken: URL
    /// An MP3 with its cover embedded (ID3 APIC).
    let embeddedArt: URL
    /// Two 60-second tones, long enough for resume (which ignores the last 10 s).
    let long: [URL]
    /// Per format ("flac", "ogg"): three 1.5 s tones of one format (48 kHz
    /// stereo) at 300, 600 and 900 Hz, titled "Gapless 1" … "Gapless 3".
    let gapless: [String: [URL]]
    static let gaplessFrequencies = [300.0, 600.0, 900.0]
    /// FLAC tones of one raw level whose ReplayGain tags say -6 dB (440 Hz)
    /// and 0 dB (880 Hz); both say -3 dB for the album.
    let quieter: URL
    let louder: URL
    /// The quieter tone, 5 s long: long enough to change the level while it plays.
    let quieterLong: URL
    /// A 6 s video (a test pattern) with a 500 Hz tone.
    let video: URL
    /// A 1.5 s FLAC at 44.1 kHz, to follow one at 48 kHz.
    let otherRate: URL
    /// 20 s of steps: second k (0...19) sounds at `stepFrequency(k)`, so that
    /// what is heard says where in the file it is (at each step's onset).
    let steps: URL
    static func stepFrequency(_ second: Int) -> Double { Double(300 + 100 * second) }

    /// Where the media are made: the music folder every test's reeld gets (`--music-dir`).
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reel-media-\(getpid())")

    static let shared: Media = {
        do { return try generate() } catch { fatalError("cannot generate test media: \(error)") }
    }()

    private static func generate() throws -> Media {
        let dir = folder
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("album"), withIntermediateDirectories: true)
        let tones = try (1...4).map { i -> URL in
            let url = dir.appendingPathComponent("tone\(i).ogg")
            try Tones.make(url, frequency: 200 + 100 * i, seconds: 8,
                           tags: ["title": "Tone \(i)", "artist": "Reel Test", "album": "Tones",
                                  "album_artist": "Reel Ensemble", "track": "\(i)/4"])
            return url
        }
        let withCover = dir.appendingPathComponent("album/untagged song.ogg")
        try Tones.make(withCover, frequency: 660, seconds: 8)
        let cover = dir.appendingPathComponent("album/cover.jpg")
        try Tones.image(cover)
        let broken = dir.appendingPathComponent("broken.ogg")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: broken)
        let embeddedArt = dir.appendingPathComponent("embedded.mp3")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=500:duration=8", "-i", cover.path,
                          "-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame", "-c:v", "copy", "-id3v2_version", "3",
                          "-disposition:v", "attached_pic", "-metadata", "title=Embedded", embeddedArt.path])
        let long = try (1...2).map { i -> URL in
            let url = dir.appendingPathComponent("long\(i).ogg")
            try Tones.make(url, frequency: 700 + 100 * i, seconds: 60, tags: ["title": "Long \(i)", "artist": "Reel Test"])
            return url
        }
        var gapless: [String: [URL]] = [:]
        for format in ["flac", "ogg"] {
            gapless[format] = try gaplessFrequencies.enumerated().map { i, hz in
                let url = dir.appendingPathComponent("gapless\(i + 1).\(format)")
                try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(Int(hz)):duration=1.5:sample_rate=48000",
                                  "-ac", "2", "-metadata", "title=Gapless \(i + 1)"]
                                 + (format == "ogg" ? ["-c:a", "libvorbis"] : []) + [url.path])
                return url
            }
        }
        func tagged(_ name: String, hz: Int, gain: String, seconds: Double = 1.5) throws -> URL {
            let url = dir.appendingPathComponent(name)
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(hz):duration=\(seconds):sample_rate=48000", "-ac", "2",
                              "-metadata", "title=\(name)",
                              "-metadata", "REPLAYGAIN_TRACK_GAIN=\(gain) dB", "-metadata", "REPLAYGAIN_TRACK_PEAK=0.125",
                              "-metadata", "REPLAYGAIN_ALBUM_GAIN=-3.00 dB", "-metadata", "REPLAYGAIN_ALBUM_PEAK=0.125",
                              url.path])
            return url
        }
        let video = dir.appendingPathComponent("pattern.mp4")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=6", "-f", "lavfi",
                          "-i", "sine=frequency=500:duration=6:sample_rate=48000", "-c:v", "libx264", "-preset", "ultrafast",
                          "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-metadata", "title=Pattern", video.path])
        let otherRate = dir.appendingPathComponent("rate44100.flac")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=700:duration=1.5:sample_rate=44100", "-ac", "2",
                          "-metadata", "title=At 44.1 kHz", otherRate.path])
        let steps = dir.appendingPathComponent("steps.flac")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=0.2*sin(2*PI*(300+100*floor(t))*t):s=48000:d=20", "-ac", "2",
                          "-metadata", "title=Steps", steps.path])
        return Media(dir: dir, tones: tones, withCover: withCover, cover: cover, broken: broken,
                     embeddedArt: embeddedArt, long: long, gapless: gapless,
                     quieter: try tagged("quieter.flac", hz: 440, gain: "-6.00"),
                     louder: try tagged("louder.flac", hz: 880, gain: "0.00"),
                     quieterLong: try tagged("quieter-long.flac", hz: 440, gain: "-6.00", seconds: 5), video: video, otherRate: otherRate,
                     steps: steps)
    }
}

typealias TestFailure = HarnessError
