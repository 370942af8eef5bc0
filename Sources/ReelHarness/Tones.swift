import Foundation

/// Generates short test media with ffmpeg.
public enum Tones {
    /// A Vorbis sine tone with the given tags.
    public static func make(_ url: URL, frequency: Int, seconds: Int, tags: [String: String] = [:]) throws {
        var args = ["-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds)"]
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) { args += ["-metadata", "\(key)=\(value)"] }
        try ffmpeg(args + ["-c:a", "libvorbis", url.path])
    }

    /// A single-colour JPEG, as cover art.
    public static func image(_ url: URL, colour: String = "blue") throws {
        try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=64x64", "-frames:v", "1", url.path])
    }

    public static func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-nostdin", "-loglevel", "error", "-y"] + args
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw HarnessError("ffmpeg \(args.joined(separator: " ")) failed") }
    }
}

public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
