import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelMPRIS

/// Trimmed silence on PulseAudio: a generated talk from a feed, played with trimming off (the
/// anchor) and on, recorded from the sink's monitor. What is heard is measured against how the talk
/// was made: its length, the silences, and Position against the file's time of what is heard.
struct TalkBench {
    /// Silences between ten phrases, from shorter than the threshold to 3 s.
    static let silences: [MediaTime] = [1_200_000, 400_000, 2_500_000, 700_000, 300_000, 1_800_000, 900_000, 3_000_000, 600_000]
    let dir: URL

    struct Run {
        /// From the first sound heard to the last.
        var heard: MediaTime = 0
        /// What reel said it saved (TimeSaved, at its last reading in the play).
        var saved: MediaTime = -1
        /// Each long silence as heard (µs).
        var longSilences: [Double] = []
        /// Position minus the file's time of what was heard, at each reading inside a phrase (µs).
        var errors: [Double] = []
    }

    struct Figures {
        var talk: MediaTime = 0
        var cuttable: MediaTime = 0
        var plain = Run()
        var trimmed = Run()
    }

    func run() throws -> Figures {
        let served = dir.appendingPathComponent("talk")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let talk = try Talk(in: served, silences: Self.silences)
        try "<rss><channel><item><title>Talk</title><enclosure url=\"talk.mp3\"/></item></channel></rss>"
            .write(to: served.appendingPathComponent("talk.xml"), atomically: true, encoding: .utf8)
        let origin = try Origin(serving: served, home: dir)
        defer { origin.stop() }
        let server = try SoundServer(.pulse)
        defer { server.stop() }
        var figures = Figures(talk: talk.length, cuttable: talk.cuttable)
        figures.plain = try play(talk, from: origin, on: server, trim: false)
        figures.trimmed = try play(talk, from: origin, on: server, trim: true)
        return figures
    }

    private func play(_ talk: Talk, from origin: Origin, on server: SoundServer, trim: Bool) throws -> Run {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: [], bus: bus, ao: server.kind.audioOutput, environment: server.environment)
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        func reel(_ args: String...) throws -> String {
            let child = try ChildProcess(Installed.reel, args, busAddress: bus.address, home: bus.dir)
            guard child.waitForExit(timeout: 30) == 0 else { throw HarnessError("reel \(args) failed: \(child.text)") }
            return child.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try reel("sync", origin.url("talk.xml"))
        let deadline = Date().addingTimeInterval(20)
        var path = ""
        while path.isEmpty, Date() < deadline {
            if let found = try? reel("cache", "path", origin.url("talk.mp3")), FileManager.default.fileExists(atPath: found) {
                path = found
            } else {
                usleep(100_000)
            }
        }
        guard !path.isEmpty else { throw HarnessError("the talk was not downloaded") }
        if trim { _ = try reel("feed", "set", "talk.xml", "trim", "on") }
        _ = try reel("add", path)
        if trim {
            let scanned = Date().addingTimeInterval(20)
            while !subject.child.text.contains("silences of "), Date() < scanned { usleep(50_000) }
        }
        let recording = try server.record()
        try recording.waitUntilRunning()
        try probe.player("Play")
        var run = Run()
        var readings: [(at: MonotonicTime, position: MediaTime)] = []
        let end = Date().addingTimeInterval(Double(talk.length) / 1e6 + 10)
        while Date() < end, try probe.get("PlaybackStatus").string != "Stopped" || readings.isEmpty {
            if let reading = try Talk.read({ try probe.get("Position").int64 ?? 0 }) { readings.append(reading) }
            let saved = try probe.connection.getProperty(subject.busName, MPRIS.objectPath, MPRIS.reel, "TimeSaved").int64 ?? -1
            if saved >= 0 { run.saved = saved }
            probe.listen(0.03) { _, _ in }
        }
        recording.stop()
        let phrases = recording.phrases()
        guard let first = phrases.first, let last = phrases.last else { throw HarnessError("nothing was heard") }
        run.heard = last.end - first.start
        run.longSilences = zip(zip(phrases, phrases.dropFirst()), talk.silences).compactMap { pair, made in
            made >= Trim.threshold ? Double(pair.1.start - pair.0.end) : nil
        }
        run.errors = talk.errors(of: readings, heardIn: recording).map(Double.init)
        return run
    }
}

func printTalk(_ f: TalkBench.Figures) {
    func seconds(_ micros: MediaTime) -> String { String(format: "%.2f s", Double(micros) / 1e6) }
    func range(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "n/a" }
        return "\(Int((low / 1000).rounded()))–\(Int((high / 1000).rounded())) ms"
    }
    func error(_ values: [Double]) -> String {
        let stats = Stats(values.map(abs))
        return "\(ms(stats.median)) (\(ms(stats.percentile(100)))), \(values.count) readings"
    }
    print("\nTrimmed silence, PulseAudio: a generated talk (\(seconds(f.talk)), ten espeak-ng phrases, "
          + "\(TalkBench.silences.count) silences of 0.3–3 s, \(seconds(f.cuttable)) over the 0.3 s kept of each "
          + "silence of 0.5 s or more), from a feed:\n")
    print("| measure | trim off (anchor) | trim on |")
    print("|---|---|---|")
    print("| heard, first sound to last | \(seconds(f.plain.heard)) | \(seconds(f.trimmed.heard)) |")
    print("| time saved, as heard (anchor − trimmed) | — | \(seconds(f.plain.heard - f.trimmed.heard)) |")
    print("| time saved, as reel reports it (TimeSaved) | — | \(seconds(f.trimmed.saved)) |")
    print("| the \(f.trimmed.longSilences.count) silences of 0.5 s or more, as heard | \(range(f.plain.longSilences)) | \(range(f.trimmed.longSilences)) |")
    print("| \\|Position − file time heard\\|, median (max) | \(error(f.plain.errors)) | \(error(f.trimmed.errors)) |")
}
