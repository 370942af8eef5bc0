import Foundation
import ReelCore

/// A file that beeps (1 kHz) for 30 ms every half second of its own time: each beep heard is a
/// moment whose file time is known, so Position read around it can be held to what is heard.
public enum Beeps {
    /// A stretch of play that began at `from` (monotonic µs) and runs at `rate`.
    public typealias Phase = (name: String, from: MonotonicTime, rate: Double)

    /// Writes `seconds` of beeps to `file` (FLAC, 48 kHz stereo) with `title`.
    public static func make(_ file: URL, title: String, seconds: Double) throws {
        try Tones.ffmpeg(["-f", "lavfi", "-i", "aevalsrc=if(lt(mod(t\\,0.5)\\,0.03)\\,0.3*sin(2*PI*1000*t)\\,0):s=48000:d=\(seconds)",
                          "-ac", "2", "-metadata", "title=\(title)", file.path])
    }

    /// How far Position was from each beep heard (`heard`: when each sound started): the Position
    /// read around it (two readings at most 100 ms apart, between which Position moved as the
    /// clock did at the phase's rate: no seek, pause or change of file between them) against the
    /// nearest half second of file time. Positive: Position ahead of what is heard.
    public static func errors(heard: [MonotonicTime], readings: [(at: MonotonicTime, position: MediaTime)],
                              phases: [Phase]) -> [(phase: String, after: MonotonicTime, error: MediaTime)] {
        heard.compactMap { beep in
            guard let phase = phases.last(where: { $0.from <= beep }),
                  let i = readings.lastIndex(where: { $0.at <= beep }), i + 1 < readings.count else { return nil }
            let (a, b) = (readings[i], readings[i + 1])
            let moved = Double(b.position - a.position), elapsed = Double(b.at - a.at)
            guard b.at - a.at <= 100_000, abs(moved - phase.rate * elapsed) <= 5_000 else { return nil }
            let position = a.position + MediaTime(Double(beep - a.at) * phase.rate)
            return (phase.name, beep - phase.from, position - (position + 250_000) / 500_000 * 500_000)
        }
    }
}
