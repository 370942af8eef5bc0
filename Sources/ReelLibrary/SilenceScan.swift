import FoundationEssentials
import ReelCore

/// Finds a media file's silences with ffmpeg's `silencedetect`, for trimming them. It decodes the
/// whole file (a 1-hour MP3 in a few seconds), so it runs on a worker thread, once per file.
public enum SilenceScan {
    /// Quieter than this counts as silent: below speech, above a recording's noise floor.
    static let noise = "-45dB"
    /// Silences shorter than the trimming threshold are not worth reporting.
    static let shortest = Double(Trim.threshold) / 1_000_000

    /// The silences of the file at `path`, in the file's own time as mpv plays it (ffmpeg starts
    /// its clock at the first sample, as mpv does); `length` ends one that runs to the end.
    public static func file(_ path: String, length: MediaTime?, timeout: Double = 600) throws -> Silences {
        let result: Subprocess.Result
        do {
            result = try Subprocess.run("/usr/bin/ffmpeg", ["-nostdin", "-hide_banner", "-nostats", "-v", "info",
                                                           "-i", path, "-vn", "-sn", "-dn",
                                                           "-af", "silencedetect=n=\(noise):d=\(shortest)",
                                                           "-f", "null", "-"], timeout: timeout)
        } catch {
            throw Probe.Failure.unreadable("cannot run ffmpeg: \(error)")
        }
        if result.timedOut { throw Probe.Failure.unreadable("ffmpeg did not finish within \(Int(timeout)) s") }
        let log = String(decoding: result.errors, as: UTF8.self)
        guard result.status == 0 else {
            let reason = log.split(separator: "\n").last.map(String.init) ?? "not a media file"
            throw Probe.Failure.unreadable("cannot scan for silences: " + reason.replacing(path + ": ", with: ""))
        }
        return parse(log, length: length)
    }

    /// silencedetect's lines: `silence_start: 1.5`, then `silence_end: 3.2 | silence_duration: 1.7`;
    /// and the input's `Duration: …, start: 0.025057, …`, where its timestamps start.
    static func parse(_ log: String, length: MediaTime?) -> Silences {
        var silences: [Silence] = []
        var start: MediaTime?
        var origin: MediaTime = 0
        for line in log.split(separator: "\n") {
            if line.contains("Duration: "), let value = number(after: "start: ", in: line) {
                origin = value
                continue
            }
            guard line.contains("silencedetect") else { continue }
            if let value = number(after: "silence_start: ", in: line) {
                start = max(value, 0)
            } else if let value = number(after: "silence_end: ", in: line), let from = start {
                if let silence = Silence(start: from, end: value) { silences.append(silence) }
                start = nil
            }
        }
        if let from = start, let length, let silence = Silence(start: from, end: length) { silences.append(silence) }
        return Silences(silences, origin: origin)
    }

    private static func number(after label: String, in line: Substring) -> MediaTime? {
        guard let range = line.firstRange(of: label) else { return nil }
        let digits: Substring = line[range.upperBound...].prefix { (c: Character) in c.isNumber || c == "." || c == "-" || c == "e" }
        return Double(String(digits)).flatMap(MediaTime.fromSeconds)
    }
}
