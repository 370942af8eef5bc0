import FoundationEssentials
import Glibc
import ReelSystem
import ReelCore
import ReelMPD
import ReelSnapcast

/// `$XDG_CONFIG_HOME/reel/reeld.conf`: defaults for reeld's options, one
/// `key = value` a line, `#` starts a comment. The command line wins.
///
///     ao = pipewire
///     video = false
///     replaygain = track
enum ConfigFile {
    static func path(environment: [String: String]) -> String {
        Paths.base(.config, environment: environment) + "/reel/reeld.conf"
    }

    /// Applies the file's settings to `options`; returns one warning per line it could not use.
    static func apply(_ text: String, to options: inout Options, file: String) -> [String] {
        var warnings: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmed() }
            let at = "\(file):\(number + 1)"
            guard parts.count == 2, !parts[0].isEmpty else { warnings.append("\(at): expected key = value"); continue }
            switch (parts[0], parts[1].lowercased()) {
            case ("ao", let value) where !value.isEmpty: options.audioOutput = parts[1]
            case ("vo", let value) where !value.isEmpty: options.videoOutput = parts[1]
            case ("video", "true"), ("video", "yes"): options.video = true
            case ("video", "false"), ("video", "no"): options.video = false
            case ("network-timeout", let value) where Int(value).map({ (1...3600).contains($0) }) == true:
                options.networkTimeout = Int(value)!
            case ("cache-size", let value) where ByteSize.parse(value) != nil:
                options.cacheSize = ByteSize.parse(value)!
            case ("readahead", let value) where (ByteSize.parse(value) ?? 0) >= 64 << 10:
                options.readahead = ByteSize.parse(value)!
            case ("replaygain", let value) where ReplayGain(rawValue: value) != nil:
                options.replayGain = ReplayGain(rawValue: value)!
            case ("resume", let value) where Options.ResumeMode(rawValue: value) != nil:
                options.resume = Options.ResumeMode(rawValue: value)!
            case ("resume-min-length", let value) where Int64(value).map({ (0...86_400).contains($0) }) == true:
                options.resumeMinLength = Int64(value)! * 1_000_000
            case ("mpd-listen", _) where ListenAddress.parse(parts[1]) != nil:
                options.mpdListen = ListenAddress.parse(parts[1])
            case ("mpd-password", let value) where !value.isEmpty:
                options.mpdPassword = parts[1]
            case ("mpd-timeout", let value) where Int64(value).map({ (1...86_400).contains($0) }) == true:
                options.mpdTimeout = Int64(value)!
            case ("music-dir", _) where Paths.expandingHome(parts[1]) != nil:
                options.musicDir = Paths.expandingHome(parts[1])
            case ("output", _):
                switch Options.output(parts[1]) {
                case .success(let target): options.snapcast = target
                case .failure(let problem): warnings.append("\(at): bad value for output: \(problem)")
                }
            case ("snapcast-buffer", let value) where Int64(value).map({ (0...60_000).contains($0) }) == true:
                options.snapcastBuffer = Int64(value)!
            case ("snapcast-buffer", _), ("ao", _), ("vo", _), ("video", _), ("replaygain", _), ("network-timeout", _), ("cache-size", _), ("readahead", _),
                 ("resume", _), ("resume-min-length", _), ("mpd-listen", _), ("mpd-password", _), ("mpd-timeout", _), ("music-dir", _):
                warnings.append("\(at): bad value for \(parts[0]): \(parts[1])")
            default:
                warnings.append("\(at): unknown setting \(parts[0]) (known: ao, vo, video, replaygain, network-timeout, "
                                + "cache-size, readahead, resume, resume-min-length, mpd-listen, mpd-password, mpd-timeout, "
                                + "music-dir, output, snapcast-buffer)")
            }
        }
        return warnings
    }
}
