import Foundation
import ReelCore
import ReelSystem

/// A generated talk: spoken phrases (espeak-ng) with silences of known lengths between them, as
/// MP3 (`talk.mp3` in its folder). What trimming must do to it is known from how it was made, not
/// from reel's own arithmetic.
public struct Talk {
    /// Where each phrase's sound starts and ends in the file, by the rule a recording's sounds are
    /// found by (a 1 ms window is sound when its peak passes `Recording.threshold`).
    public private(set) var phrases: [(start: MediaTime, end: MediaTime)] = []
    /// The silences made between the phrases.
    public let silences: [MediaTime]
    public let url: URL
    /// The file's length.
    public private(set) var length: MediaTime = 0

    public static let sentences = [
        "the quick brown fox jumps over the lazy dog", "seven silent sailors sang softly",
        "a podcast about nothing in particular", "thank you for listening to this show",
        "today we talk about the weather", "it rained for most of the week", "then the sun came out again",
        "our guest grows tomatoes on a balcony", "she says the secret is patience", "that is all for now",
    ]

    /// How much trimming should take out: what is over the kept length of each long silence.
    public var cuttable: MediaTime { silences.filter { $0 >= Trim.threshold }.reduce(0) { $0 + $1 - Trim.kept } }

    /// A phrase before each silence and one after the last (at most `sentences.count` phrases).
    public init(in folder: URL, silences: [MediaTime]) throws {
        precondition(silences.count < Self.sentences.count)
        self.silences = silences
        url = folder.appendingPathComponent("talk.mp3")
        var inputs: [String] = []
        var at: MediaTime = 0
        for (n, text) in Self.sentences.prefix(silences.count + 1).enumerated() {
            let raw = folder.appendingPathComponent("raw\(n).wav"), phrase = folder.appendingPathComponent("phrase\(n).pcm")
            let espeak = Process()
            espeak.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
            espeak.arguments = ["-w", raw.path, text]
            try espeak.run()
            espeak.waitUntilExit()
            guard espeak.terminationStatus == 0 else { throw HarnessError("espeak-ng failed") }
            // Without espeak's own silence before and after, as 48 kHz stereo 16-bit samples.
            let strip = "silenceremove=start_periods=1:start_threshold=-50dB"
            try Tones.ffmpeg(["-i", raw.path, "-af", "\(strip),areverse,\(strip),areverse", "-ar", "48000", "-ac", "2",
                              "-f", "s16le", phrase.path])
            let data = try Data(contentsOf: phrase)
            let left = data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.enumerated()
                .filter { $0.offset % 2 == 0 }.map(\.element)
            let windows = stride(from: 0, to: left.count - 48, by: 48).filter { w in
                left[w..<w + 48].contains { $0 > Recording.threshold || $0 < -Recording.threshold }
            }
            guard let first = windows.first, let last = windows.last else { throw HarnessError("espeak-ng said nothing") }
            phrases.append((at + MediaTime(first) * 1_000_000 / 48_000, at + MediaTime(last + 48) * 1_000_000 / 48_000))
            inputs += ["-f", "s16le", "-ar", "48000", "-ac", "2", "-i", phrase.path]
            at += MediaTime(left.count) * 1_000_000 / 48_000
            if n < silences.count {
                inputs += ["-f", "lavfi", "-t", "\(Double(silences[n]) / 1e6)", "-i", "anullsrc=r=48000:cl=stereo"]
                at += silences[n]
            }
        }
        length = at
        let count = inputs.filter { $0 == "-i" }.count
        try Tones.ffmpeg(inputs + ["-filter_complex", "concat=n=\(count):v=0:a=1", "-c:a", "libmp3lame", "-b:a", "128k",
                                   "-metadata", "title=Talk", url.path])
    }

    /// A reading of Position, stamped with the middle of its round trip; nil when the round trip
    /// took over 2 ms (the daemon answered busy, or the reader was descheduled), which leaves the
    /// moment it was taken too uncertain to hold it to a few ms.
    public static func read(_ position: () throws -> MediaTime) rethrows -> (at: MonotonicTime, position: MediaTime)? {
        let sent = monotonicNow()
        let value = try position()
        let answered = monotonicNow()
        return answered - sent <= 2_000 ? ((sent + answered) / 2, value) : nil
    }

    /// How far each Position reading (taken at a clock time) was from the file's time of what was
    /// heard then: from where the phrase heard starts in the file, and how far into it the recording
    /// was. Only readings inside a phrase count (in a shortened silence either side of a cut is
    /// true), and none in the first quarter second: at a start Position holds until two samples
    /// agree that the sound runs (40-90 ms behind on PulseAudio, trimmed or not).
    public func errors(of readings: [(at: MonotonicTime, position: MediaTime)], heardIn recording: Recording) -> [MediaTime] {
        let heard = recording.phrases()
        guard heard.count == phrases.count, let first = heard.first else { return [] }
        return readings.filter { $0.at > first.start + 250_000 }.compactMap { reading in
            guard let k = heard.lastIndex(where: { $0.start + 50_000 <= reading.at && reading.at <= $0.end - 50_000 }),
                  let into = recording.heard(by: reading.at),
                  // (1 ms in: at the first sound's own moment the recording may not have begun yet)
                  let start = recording.heard(by: heard[k].start + 1_000).map({ $0 - 1_000 }) else { return nil }
            return reading.position - (phrases[k].start + (into - start))
        }
    }
}
