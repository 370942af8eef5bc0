import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS
import ReelSystem

/// What is heard, on a private sound server recorded from its monitor:
/// reeld against mpv playing the same files as its own playlist.
struct SoundBench {
    /// Four 3 s FLAC tones of one format at these frequencies, then a 60 s one.
    static let frequencies = [300.0, 500.0, 700.0, 900.0]
    let tracks: [URL]
    let long: URL
    /// 30 s of `Beeps`.
    let beeps: URL

    struct Figures {
        /// Silence at each of the three transitions, µs.
        var gaps: [Double] = []
        /// Metadata signal minus the audible start of the new track, µs (negative: early).
        var metadataLag: [Double] = []
        /// PlayPause (from a paused first load) to the first sound, µs.
        var firstStart = Double.nan
        /// PlayPause (resuming) to the first sound, µs, five times.
        var resume: [Double] = []
        /// Seeked signals in 30 s of steady playback.
        var steadySeeked = 0
        /// Position minus the file time of each beep heard after a change to rate 1.5, from 0.4 s
        /// after it, µs: mpv first plays out the audio it handed over at rate 1 (reeld restarts
        /// the sound at the change), and both are measured alike.
        var rateErrors: [Double] = []
    }

    typealias Start = (_ files: [URL], _ bus: PrivateBus, _ ao: String, _ env: [String: String], _ paused: Bool) throws -> Subject

    static func media(in dir: URL) throws -> SoundBench {
        let tracks = try frequencies.enumerated().map { i, hz -> URL in
            let url = dir.appendingPathComponent("transition\(i + 1).flac")
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(Int(hz)):duration=3:sample_rate=48000", "-ac", "2",
                              "-metadata", "title=Transition \(i + 1)", url.path])
            return url
        }
        let long = dir.appendingPathComponent("steady.flac")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=600:duration=60:sample_rate=48000", "-ac", "2", long.path])
        let beeps = dir.appendingPathComponent("beeps.flac")
        try Beeps.make(beeps, title: "Beeps", seconds: 30)
        return SoundBench(tracks: tracks, long: long, beeps: beeps)
    }

    func run(on server: SoundServer, _ start: Start) throws -> Figures {
        var figures = Figures()
        try transitions(on: server, start, into: &figures)
        try playPause(on: server, start, into: &figures)
        try steady(on: server, start, into: &figures)
        try rate(on: server, start, into: &figures)
        return figures
    }

    /// The four tracks played through: the silence at each transition, and
    /// when the new Metadata came relative to the new track being heard.
    private func transitions(on server: SoundServer, _ start: Start, into figures: inout Figures) throws {
        let recording = try server.record()
        try recording.waitUntilRunning()
        var titles: [(String, Int64)] = []
        try playing(tracks, on: server, start) { probe in
            probe.listen(Double(tracks.count) * 3 + 2.5) { message, at in
                if let title = message.changed["Metadata"]?.dictionary?["xesam:title"]?.string { titles.append((title, at)) }
            }
            recording.stop()
        }
        guard var cursor = recording.sounds().first?.start else { throw HarnessError("nothing was heard") }
        for (i, hz) in Self.frequencies.enumerated().dropFirst() {
            guard let onset = recording.onset(of: hz, after: cursor + 1_000_000) else { continue }
            figures.gaps.append(Double(recording.gaps(from: onset - 200_000, to: onset + 200_000).first?.length ?? 0))
            if let (_, at) = titles.last(where: { $0.0 == "Transition \(i + 1)" }) {
                figures.metadataLag.append(Double(at - onset))
            }
            cursor = onset
        }
    }

    /// From a paused first load: PlayPause to the first sound; then five
    /// pauses and resumes, PlayPause to the sound coming back.
    private func playPause(on server: SoundServer, _ start: Start, into figures: inout Figures) throws {
        let recording = try server.record()
        try recording.waitUntilRunning()
        let sent = try playing([long], on: server, paused: true, start) { probe in
            probe.listen(1) { _, _ in }
            var sent: [Int64] = [try probe.send(MPRIS.player, "PlayPause")]
            probe.listen(2.5) { _, _ in }
            for _ in 0..<5 {
                _ = try probe.send(MPRIS.player, "PlayPause")
                probe.listen(0.6) { _, _ in }
                sent.append(try probe.send(MPRIS.player, "PlayPause"))
                probe.listen(0.8) { _, _ in }
            }
            recording.stop()
            return sent
        }
        let latencies = sent.map { at in recording.firstSound(after: at).map { Double($0 - at) } ?? .nan }
        figures.firstStart = latencies[0]
        figures.resume = Array(latencies.dropFirst())
    }

    /// Seeked signals in 30 s of playback, from 2 s after the start.
    private func steady(on server: SoundServer, _ start: Start, into figures: inout Figures) throws {
        try playing([long], on: server, start) { probe in
            probe.listen(2) { _, _ in }
            probe.listen(30) { message, _ in if message.member == "Seeked" { figures.steadySeeked += 1 } }
        }
    }

    /// Two seconds in, the rate goes to 1.5; Position is read every 30 ms for 3 s and held against
    /// the beeps heard (PipeWire's recorder places them by the graph's clock).
    private func rate(on server: SoundServer, _ start: Start, into figures: inout Figures) throws {
        let recording = try server.record(graphClock: server.kind == .pipewire)
        try recording.waitUntilRunning()
        var readings: [(at: MonotonicTime, position: MediaTime)] = []
        let changed = try playing([beeps], on: server, start) { probe in
            probe.listen(2) { _, _ in }
            let changed = monotonicNow()
            try probe.set("Rate", .double(1.5))
            while monotonicNow() < changed + 3_000_000 {
                let asked = monotonicNow()
                let position = try probe.get("Position").int64 ?? 0
                readings.append(((asked + monotonicNow()) / 2, position))
                probe.listen(0.03) { _, _ in }
            }
            recording.stop()
            return changed
        }
        figures.rateErrors = Beeps.errors(heard: recording.sounds().map(\.start), readings: readings,
                                          phases: [("rate 1.5", changed, 1.5)])
            .filter { $0.after >= 400_000 }.map { Double($0.error) }
    }

    /// Starts the player on `files` on a bus of its own and runs `body` with a probe on it; the
    /// player stops after.
    private func playing<T>(_ files: [URL], on server: SoundServer, paused: Bool = false, _ start: Start,
                            _ body: (SignalClock) throws -> T) throws -> T {
        let bus = try PrivateBus()
        let subject = try start(files, bus, server.kind.audioOutput, server.environment, paused)
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        return try body(probe)
    }
}
