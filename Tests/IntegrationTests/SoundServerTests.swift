import Foundation
import ReelCore
import ReelHarness
import ReelMPRIS
import ReelSystem
import XCTest

/// reeld on the sound servers desktops run, PipeWire and PulseAudio, each
/// private with a null sink whose monitor is recorded: what is heard.
final class SoundServerTests: DaemonTestCase {
    /// One server of each kind for the whole class: they take a second or two to start.
    nonisolated(unsafe) private static var servers: [SoundServer.Kind: SoundServer] = [:]

    override class func tearDown() {
        for server in servers.values { server.stop() }
        servers = [:]
        super.tearDown()
    }

    private func server(_ kind: SoundServer.Kind) throws -> SoundServer {
        if let running = Self.servers[kind] { return running }
        let started = try SoundServer(kind)
        Self.servers[kind] = started
        return started
    }

    /// Starts reeld on `files` playing to the server, while recording it.
    private func play(_ files: [URL], on kind: SoundServer.Kind, _ extra: [String] = [], trace: Bool = false,
                      server given: SoundServer? = nil, graphClock: Bool = false) throws -> Recording {
        let server = try given ?? server(kind)
        let recording = try server.record(graphClock: graphClock)
        try recording.waitUntilRunning()
        // With a trace, a failure prints every position sample the daemon took.
        let environment = server.environment.merging(trace ? ["REEL_TRACE": "1"] : [:]) { _, b in b }
        try startDaemon(files, ["--ao", kind.audioOutput, "--fresh"] + extra, environment: environment)
        return recording
    }

    /// Waits for Metadata to announce `title`; returns when it arrived.
    private func titleChange(_ title: String, timeout: Double = 10) throws -> MonotonicTime {
        while let (message, at) = waitForTimedSignal(timeout: timeout, where: {
            $0.member == "PropertiesChanged" && $0.changedProperties?["Metadata"] != nil
        }) {
            if message.changedProperties?["Metadata"]?.dictionary?["xesam:title"]?.string == title { return at }
        }
        throw TestFailure("Metadata never announced \(title)")
    }

    // MARK: Gapless

    func testConsecutiveFLACTracksHaveNoGapOnPipeWire() throws { try checkGapless("flac", on: .pipewire) }
    func testConsecutiveFLACTracksHaveNoGapOnPulseAudio() throws { try checkGapless("flac", on: .pulse) }
    func testConsecutiveVorbisTracksHaveNoGapOnPipeWire() throws { try checkGapless("ogg", on: .pipewire) }
    func testConsecutiveVorbisTracksHaveNoGapOnPulseAudio() throws { try checkGapless("ogg", on: .pulse) }

    func testRemoteTracksFollowFromTheCacheWithoutAGapOnPipeWire() throws { try checkRemoteGapless(on: .pipewire) }
    func testRemoteTracksFollowFromTheCacheWithoutAGapOnPulseAudio() throws { try checkRemoteGapless(on: .pulse) }

    /// The same tracks served over http: each next one is fetched ahead and
    /// read from the cache, so they follow each other as local files do.
    private func checkRemoteGapless(on kind: SoundServer.Kind) throws {
        let files = try XCTUnwrap(media.gapless["flac"])
        let origin = try Origin(serving: media.dir, home: home)
        defer { origin.stop() }
        // Traced: a gap here was seen once in CI (447 ms) and never here; the trace says where the time went.
        let recording = try play([], on: kind, files.map { origin.url($0.lastPathComponent) }, trace: true)
        _ = try titleChange("Gapless 2")
        _ = try titleChange("Gapless 3")
        try waitForStatus("Stopped", timeout: 15)
        recording.stop()
        XCTAssertEqual(try get("LastError", MPRIS.reel).string, "")
        let heard = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        let second = recording.onset(of: Media.gaplessFrequencies[1], after: heard)
        let third = recording.onset(of: Media.gaplessFrequencies[2], after: heard)
        XCTAssertNotNil(third, "track 3 was not heard")
        let longest = recording.gaps().first
        func ms(_ t: MonotonicTime?) -> String { t.map { "\(($0 - heard) / 1000) ms" } ?? "never" }
        XCTAssertLessThanOrEqual(longest?.length ?? 0, 10_000, "\(longest?.length ?? 0) µs of silence on \(kind.name), "
                                 + "at \(ms(longest?.at)) after the first sound; track 2 heard at \(ms(second)), track 3 at \(ms(third))")
    }

    /// Track 1 runs into track 2 by itself; Next during track 2 cuts to track
    /// 3, which Loop Track repeats once. No more than 10 ms of silence where
    /// the files follow each other, 50 ms at the cut (what the server still
    /// held is dropped), and Metadata changes when the new track is heard,
    /// not when the old one was fully decoded.
    private func checkGapless(_ format: String, on kind: SoundServer.Kind) throws {
        let files = try XCTUnwrap(media.gapless[format])
        let recording = try play(files, on: kind, trace: true)
        let second = try titleChange("Gapless 2")
        listen(for: 0.5)
        let next = monotonicNow()
        try player("Next")
        let third = try titleChange("Gapless 3")
        try set("LoopStatus", .string("Track"))
        listen(for: 0.3)
        drainSignals()
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" && ($0.arguments.first?.int64 ?? -1) < 50_000 },
                        "track 3 did not repeat")
        try set("LoopStatus", .string("None"))
        try waitForStatus("Stopped")
        recording.stop()

        // The cut at Next drops what the sound server still held of track 2, then
        // mpv opens and decodes track 3 (6-20 ms), which the server starts at its
        // next cycle: measured 6-15 ms on PulseAudio, and one 42.7 ms cycle on
        // PipeWire (reeld asks for a 2,048-sample quantum; MPVBackend says why).
        // That silence is the price of cutting now rather than later, and is held
        // to 50 ms on PulseAudio and two cycles on PipeWire. The transitions the
        // files make by themselves (1 → 2, 3 → 3 under Loop Track) are held to 10 ms.
        let cut = (next - 50_000)...(next + 300_000)
        let gaps = recording.gaps()
        let longest = gaps.first { !cut.contains($0.at) }
        let atCut = gaps.first { cut.contains($0.at) }
        let heard = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        func ms(_ t: MonotonicTime) -> String { "\((t - heard) / 1000) ms" }
        print("gapless \(format) on \(kind.name): \((atCut?.length ?? 0) / 1000) ms at the cut, \((longest?.length ?? 0) / 1000) ms elsewhere")
        XCTAssertLessThanOrEqual(longest?.length ?? 0, 10_000,
                                 "\(longest?.length ?? 0) µs of silence on \(kind.name) with \(format), at "
                                 + "\(longest.map { ms($0.at) } ?? "-") after the first sound; Metadata said track 2 at \(ms(second)), "
                                 + "Next was called at \(ms(next)), track 3 announced at \(ms(third))")
        XCTAssertLessThanOrEqual(atCut?.length ?? 0, kind == .pipewire ? 86_000 : 50_000,
                                 "\(atCut?.length ?? 0) µs of silence at the cut on \(kind.name) with \(format), "
                                 + "Next at \(ms(next)), track 3 announced at \(ms(third))")
        let onset = try XCTUnwrap(recording.onset(of: Media.gaplessFrequencies[1], after: heard), "track 2 was not heard")
        XCTAssertLessThanOrEqual(abs(second - onset), 100_000,
                                 "Metadata changed \((second - onset) / 1000) ms from when track 2 was heard")
    }

    func testAChangeOfSampleRateReopensTheOutputWithoutHangingOnPipeWire() throws { try checkRateChange(on: .pipewire) }
    func testAChangeOfSampleRateReopensTheOutputWithoutHangingOnPulseAudio() throws { try checkRateChange(on: .pulse) }

    /// 48 kHz then 44.1 kHz: mpv reopens the output (a gap, docs/design.md), and
    /// playback goes on to the end (mpv #8904 reports a hang here with gapless).
    private func checkRateChange(on kind: SoundServer.Kind) throws {
        let first = try XCTUnwrap(media.gapless["flac"]?.first)
        let recording = try play([first, media.otherRate], on: kind)
        _ = try titleChange("At 44.1 kHz", timeout: 10)
        try waitForStatus("Stopped", timeout: 10)
        recording.stop()
        let start = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        XCTAssertNotNil(recording.onset(of: 700, after: start), "the 44.1 kHz file was not heard on \(kind.name)")
        print("sample-rate change on \(kind.name): \((recording.gaps().first?.length ?? 0) / 1000) ms of silence")
    }

    // MARK: Position

    func testPositionIsWhatIsHeardAndSteadyOnPipeWire() throws { try checkSteady(on: .pipewire) }
    func testPositionIsWhatIsHeardAndSteadyOnPulseAudio() throws { try checkSteady(on: .pulse) }

    /// A cold start: reeld playing at once on a PulseAudio that has never
    /// played a stream (its first start can take over a second). Position was
    /// once seen running ahead, then jumping back to 0 with a Seeked.
    func testAColdStartOnAFreshPulseAudioNeverRunsAheadOrBack() throws {
        let fresh = try SoundServer(.pulse)
        defer { fresh.stop() }
        try checkSteady(on: .pulse, server: fresh, seconds: 5)
    }

    /// The same with nobody recording: the recorder of the test above keeps the null sink awake,
    /// and only a suspended sink takes 1.2-1.6 s to wake (../shared/repro/pulse-cold-start.sh).
    /// mpv's first samples then climbed (17 ms, then 100 ms in 229 ms) and fell back to 0 when
    /// the sink woke: Position ran to 1.3 s and jumped back with a Seeked. Now it holds until
    /// samples a while apart agree that the audio runs, and never goes back.
    func testAColdStartOnASuspendedPulseAudioSinkNeverJumpsBack() throws {
        let fresh = try SoundServer(.pulse)
        defer { fresh.stop() }
        try startDaemon([media.long[0]], ["--ao", SoundServer.Kind.pulse.audioOutput, "--fresh"],
                        environment: fresh.environment.merging(["REEL_TRACE": "1"]) { _, b in b })
        var highest: MediaTime = 0
        let end = Date().addingTimeInterval(3)
        while Date() < end {
            let before = highest   // read before any Seeked that arrived since the last drain
            let position = try position()
            XCTAssertGreaterThanOrEqual(position, highest, "Position went back from \(highest) to \(position)")
            highest = max(highest, position)
            for seeked in pendingSignals() where seeked.member == "Seeked" {
                let to = seeked.arguments.first?.int64 ?? 0
                XCTAssertGreaterThanOrEqual(to, before - 20_000, "a Seeked to \(to) after Position said \(before)")
            }
            drainSignals()
            listen(for: 0.05)
        }
        XCTAssertGreaterThan(highest, 500_000, "it never played")
    }

    /// Position never runs ahead of what is heard nor goes backwards, and 15 s
    /// of steady playback send no Seeked. What is heard runs at the server's
    /// clock, measured by how much audio the recorder had received: a
    /// timer-driven null sink on a loaded machine ran 0.3 % slow, and then a
    /// Seeked every few seconds is right (it keeps widgets within 15 ms), so
    /// the test allows as many as that skew calls for, and none without it.
    private func checkSteady(on kind: SoundServer.Kind, server: SoundServer? = nil, seconds: Double = 15) throws {
        let recording = try play([media.long[0]], on: kind, trace: true, server: server, graphClock: true)
        var readings: [PositionReading] = []
        // Until the audio has run for half a second (PulseAudio takes up to 1.5 s to start).
        let deadline = Date().addingTimeInterval(10)
        while try position() < 500_000, Date() < deadline { try readPositions(for: 0.05, into: &readings) }
        drainSignals()
        let steadyStart = monotonicNow()
        try readPositions(for: seconds, every: 0.1, into: &readings)
        let seeked = pendingSignals().filter { $0.member == "Seeked" }.count
        recording.stop()

        for (a, b) in zip(readings, readings.dropFirst()) where b.position < a.position {
            XCTFail("Position went back from \(a.position) to \(b.position) on \(kind.name)")
        }
        var heard = readings.map { (reading: $0, heard: recording.heard(by: $0.at)) }
        // On PipeWire the recorder places each buffer by the graph's own clock (reel-pw-capture):
        // Position is 0-0.4 ms from it (2026-12-04), held to 10 ms. The "lead of 6-108 ms,
        // differing between runs" was the old recorder's: buffers waiting in its stream, read one
        // or more cycles late. In about one graph in ten the monitor still hands the recorder its
        // cycle one cycle later still (the recorder scheduled ahead of the sink), which the
        // recording cannot tell: a lead of exactly one more cycle, steady, counts as that. Any
        // other lead, or one that varies, fails. PulseAudio's recorder (parec, 5 ms of latency) is
        // placed by arrival, which puts what is heard a few ms late: 0.7-6.7 ms off it, 10 runs.
        let bound: MediaTime = 10_000
        let late = lateCycle(leads: heard.compactMap { h in h.heard.map { h.reading.position - $0 } }, in: recording, bound: bound)
        heard = heard.map { (reading: $0.reading, heard: $0.heard.map { $0 + late }) }
        let ahead = heard.map { $0.reading.position - ($0.heard ?? 0) }.max() ?? 0
        XCTAssertLessThanOrEqual(ahead, bound, "Position ran \(ahead / 1000) ms ahead of what was heard on \(kind.name)")
        let steady = heard.filter { $0.reading.at >= steadyStart }.compactMap { h in h.heard.map { (h.reading, $0) } }
        let off = steady.map { abs($0.0.position - $0.1) }.max() ?? 0
        print("Position against what was heard on \(kind.name): at most \(ahead) µs ahead, \(off) µs off while steady")
        XCTAssertLessThanOrEqual(off, bound, "Position was \(off / 1000) ms off what was heard on \(kind.name)")
        // The server's clock against the system's, over the steady stretch.
        guard let first = steady.first, let last = steady.last, last.0.at > first.0.at else { return XCTFail("no readings") }
        let skew = Double(last.1 - first.1) / Double(last.0.at - first.0.at) - 1
        // Rounded up: a clock 0.09 % off drifts 13.5 ms in 15 s, which with the few ms the start was
        // anchored off makes one Seeked right (seen on this machine, for the build before this change too).
        let allowed = Int((abs(skew) * seconds * 1_000_000 / Double(PositionTracker.tolerance)).rounded(.up))
        XCTAssertLessThanOrEqual(seeked, allowed,
                                 "\(seeked) Seeked during \(seconds) s of steady playback on \(kind.name), its clock \(skew * 100) % off")
    }

    /// How much later than usual the recorder got its buffers: one graph cycle when Position's
    /// leads over what was recorded sit, steady, one cycle from nothing (see `checkSteady`), else 0.
    private func lateCycle(leads: [MediaTime], in recording: Recording, bound: MediaTime) -> MediaTime {
        let sorted = leads.sorted()
        guard let cycle = recording.cycle, !sorted.isEmpty, abs(sorted[sorted.count / 2] - cycle) <= bound else { return 0 }
        print("the recorder got its buffers one cycle (\(cycle) µs) later than usual; counted")
        return cycle
    }

    func testPositionIsWhatIsHeardAfterASeekAPauseAndARateChangeOnPipeWire() throws { try checkTransitions(on: .pipewire) }
    func testPositionIsWhatIsHeardAfterASeekAPauseAndARateChangeOnPulseAudio() throws { try checkTransitions(on: .pulse) }

    /// A file that beeps for 30 ms every half second of its own time: each beep heard is a moment
    /// whose file time is known. Played from a cold start, then after a seek, a pause and resume,
    /// a change of rate to 1.5 and from there to 2, the Position read around each beep heard is
    /// that beep's time: the file's own time of what is heard, not reel's arithmetic. Held to 10 ms
    /// on both servers (2026-12-04: 0-1 ms on PipeWire, whose recorder places the beeps by the
    /// graph's clock; 4-5 ms on PulseAudio, placed by their arrival). At rates other than 1,
    /// mpv 0.35's tempo filter reads ahead of what is heard, and reel takes its lead off
    /// (`TempoLead`): 35-46 ms ahead at 1.5 before, -6 to 6 ms after (20 runs). A change of rate
    /// restarts the sound where it is heard, so every beep after it counts: before, the output's
    /// buffer played on at the old rate, and Position was 64 ms behind or 107 ms ahead 0.2 s
    /// after the change to 1.5, so beeps counted from 0.4 s on; and after six changes between
    /// 0.25 and 4, with the filter kept, it was 38 ms behind (PipeWire) or 119 ms ahead
    /// (PulseAudio) for good. At 2, each beep is heard where the filter's blocks put its onset,
    /// which hangs on where the filter started: from eight starts 2.5 ms apart, 3-12 ms on
    /// PipeWire and -5 to 2 on PulseAudio, the same shape on both (by run here: 5-6 or 10-11 on
    /// PipeWire); held to 15 ms on PipeWire there.
    private func checkTransitions(on kind: SoundServer.Kind) throws {
        let file = try beeps("beeps", seconds: 40)
        let recording = try play([file], on: kind, graphClock: kind == .pipewire)
        var readings: [PositionReading] = []
        var phases: [(name: String, from: MonotonicTime, rate: Double)] = [("cold start", monotonicNow(), 1)]
        func read(for seconds: Double) throws { try readPositions(for: seconds, every: 0.03, into: &readings) }
        let started = Date().addingTimeInterval(10)
        while try position() < 1_500_000, Date() < started { try read(for: 0.05) }
        phases.append(("seek", monotonicNow(), 1))
        try seekCurrent(to: 20_250_000)
        try read(for: 2)
        try player("Pause")
        try waitForStatus("Paused")
        listen(for: 0.5)
        phases.append(("pause and resume", monotonicNow(), 1))
        try player("Play")
        try read(for: 2)
        phases.append(("rate 1.5", monotonicNow(), 1.5))
        try set("Rate", .double(1.5))
        try read(for: 2)
        phases.append(("rate 2", monotonicNow(), 2))
        try set("Rate", .double(2))
        try read(for: 2)
        for _ in 0..<3 {
            for rate in [0.25, 4] {
                phases.append(("changing", monotonicNow(), rate))
                try set("Rate", .double(rate))
                try read(for: 0.2)
            }
        }
        phases.append(("rate 1.5 after six changes", monotonicNow(), 1.5))
        try set("Rate", .double(1.5))
        try read(for: 2)
        recording.stop()

        let errors = beepErrors(recording, readings, phases)
        let late = lateCycle(leads: errors.filter { !$0.phase.hasPrefix("rate") }.map(\.error), in: recording, bound: 10_000)
        for phase in phases.map(\.name) where phase != "changing" {
            let all = errors.filter { $0.phase == phase }
            print("\(phase) on \(kind.name): \(all.count) beeps heard; ms after it: Position from each, ms: "
                  + all.map { "\($0.after / 1000): \(($0.error - late) / 1000)" }.joined(separator: ", "))
            let found = all.map { $0.error - late }
            XCTAssertGreaterThanOrEqual(found.count, 2, "too few beeps heard after the \(phase) on \(kind.name) to judge")
            let worst = found.map(abs).max() ?? 0
            let bound: MediaTime = phase == "rate 2" && kind == .pipewire ? 15_000 : 10_000
            XCTAssertLessThanOrEqual(worst, bound, "after the \(phase) on \(kind.name), Position was \(worst / 1000) ms from what was heard")
        }
    }

    /// A file of `seconds` of `Beeps`.
    private func beeps(_ name: String, seconds: Double) throws -> URL {
        let file = home.appendingPathComponent("\(name).flac")
        try Beeps.make(file, title: name, seconds: seconds)
        return file
    }

    private func beepErrors(_ recording: Recording, _ readings: [PositionReading], _ phases: [Beeps.Phase])
        -> [(phase: String, after: MonotonicTime, error: MediaTime)] {
        Beeps.errors(heard: recording.sounds().map(\.start), readings: readings, phases: phases)
    }

    func testPositionIsWhatIsHeardAcrossAGaplessTransitionOnPipeWire() throws { try checkGaplessPosition(on: .pipewire) }
    func testPositionIsWhatIsHeardAcrossAGaplessTransitionOnPulseAudio() throws { try checkGaplessPosition(on: .pulse) }

    /// Two beeping files that follow each other without a gap, the first 2.2 s long: after the
    /// transition each beep heard must read as the second file's own time, within 10 ms. (Had
    /// Position gone on along the first file, or switched at the wrong moment, the second's beeps
    /// would read 200 ms off, or off by how early or late the switch was.)
    private func checkGaplessPosition(on kind: SoundServer.Kind) throws {
        let first = try beeps("Beeps 1", seconds: 2.2), second = try beeps("Beeps 2", seconds: 4)
        let recording = try play([first, second], on: kind, graphClock: kind == .pipewire)
        var readings: [PositionReading] = []
        let heard = Date().addingTimeInterval(10)
        while try position() < 500_000, Date() < heard { try readPositions(for: 0.05, every: 0.03, into: &readings) }
        try readPositions(for: 4.5, every: 0.03, into: &readings)
        recording.stop()
        try checkBeepsAcrossASwitch(recording, readings, on: kind, ("first file", 1), ("second file", 1))
    }

    /// Position against each beep heard in two beeping files that follow each other without a
    /// gap, the first 2.2 s long, each at its rate: within 10 ms, or `secondBound` in the second.
    private func checkBeepsAcrossASwitch(_ recording: Recording, _ readings: [PositionReading], on kind: SoundServer.Kind,
                                         _ first: (name: String, rate: Double), _ second: (name: String, rate: Double),
                                         secondBound: MediaTime = 10_000) throws {
        // The second file's phase starts where Position went back to its start.
        let switched = try XCTUnwrap(zip(readings, readings.dropFirst()).first { $1.position < $0.position - 1_000_000 }?.1.at,
                                     "Position never went to the \(second.name) on \(kind.name)")
        // The second file's first beep, heard before the next reading moved to it, reads as the first
        // file's end, 2.2 s, not as its last beep at 2.0 (seen once in 10 runs on PulseAudio).
        let errors = beepErrors(recording, readings, [(first.name, 0, first.rate), (second.name, switched, second.rate)]).map {
            (phase: $0.phase, after: $0.after, error: $0.phase == first.name && $0.error > 100_000 ? $0.error - 200_000 : $0.error)
        }
        let late = lateCycle(leads: errors.map(\.error), in: recording, bound: 10_000)
        for phase in [first.name, second.name] {
            let found = errors.filter { $0.phase == phase }.map { $0.error - late }
            print("\(phase) on \(kind.name): Position from each beep heard: \(found.map { $0 / 1000 }) ms")
            XCTAssertGreaterThanOrEqual(found.count, 2, "too few beeps heard in the \(phase) on \(kind.name) to judge")
            let worst = found.map(abs).max() ?? 0
            let bound = phase == second.name ? secondBound : 10_000
            XCTAssertLessThanOrEqual(worst, bound, "in the \(phase) on \(kind.name), Position was \(worst / 1000) ms from what was heard")
        }
    }

    func testAnEpisodeOfItsOwnRateFollowsWithoutAGapOnPipeWire() throws { try checkGaplessIntoARate(on: .pipewire) }
    func testAnEpisodeOfItsOwnRateFollowsWithoutAGapOnPulseAudio() throws { try checkGaplessIntoARate(on: .pulse) }

    /// A song (2.2 s of beeps), then a feed's episode whose feed plays at 1.5 (beeps, served over
    /// HTTP): the episode follows without a gap, at its rate from its first sample, and each of its
    /// beeps heard reads as its own time within 10 ms (15 on PipeWire, as at a change to a rate
    /// other than 1: the tempo filter's blocks place the onsets). Before, the episode waited for
    /// the song's end and a load of its own, and Position held for over a second on PulseAudio.
    private func checkGaplessIntoARate(on kind: SoundServer.Kind) throws {
        let song = try beeps("Song", seconds: 2.2)
        let served = home.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try Beeps.make(served.appendingPathComponent("talk.flac"), title: "Talk", seconds: 6)
        try "<rss><channel><item><title>Talk</title><enclosure url=\"talk.flac\"/></item></channel></rss>"
            .write(to: served.appendingPathComponent("talks.xml"), atomically: true, encoding: .utf8)
        let origin = try Origin(serving: served, home: home)
        defer { origin.stop() }
        let recording = try play([], on: kind, ["--paused"], graphClock: kind == .pipewire)
        XCTAssertEqual(try reel("sync", "--no-download", origin.url("talks.xml")).0, 0)
        XCTAssertEqual(try reel("feed", "set", "talks.xml", "rate", "1.5").0, 0)
        XCTAssertEqual(try reel("add", song.path, origin.url("talk.flac")).0, 0)
        try player("Play")
        var readings: [PositionReading] = []
        let heard = Date().addingTimeInterval(10)
        while try position() < 500_000, Date() < heard { try readPositions(for: 0.05, every: 0.03, into: &readings) }
        try readPositions(for: 4.5, every: 0.03, into: &readings)
        recording.stop()
        XCTAssertEqual(try get("Rate").double, 1.5)
        XCTAssertFalse(daemon!.text.contains("playing \(origin.url("talk.flac"))"), "no load of its own: \(daemon!.text)")
        // Without a gap: the episode's first beep (at its 0) is heard 200 ms after the song's last (at 2.0
        // of 2.2 s), and no two beeps are further apart than the song's 500 ms. (The song's first beep
        // may be missed at a cold start: the beeps are not counted by their place.)
        let onsets = recording.sounds().map(\.start)
        let apart = zip(onsets, onsets.dropFirst()).map { $1 - $0 }
        XCTAssertGreaterThanOrEqual(onsets.count, 6, "\(onsets.count) beeps heard on \(kind.name)")
        XCTAssertTrue(apart.contains { abs($0 - 200_000) <= 10_000 }, "the song's end to the episode's start on \(kind.name): \(apart)")
        XCTAssertLessThanOrEqual(apart.max() ?? 0, 510_000, "a gap on \(kind.name): \(apart)")
        try checkBeepsAcrossASwitch(recording, readings, on: kind, ("song", 1), ("episode", 1.5),
                                    secondBound: kind == .pipewire ? 15_000 : 10_000)
    }

    // MARK: Short plays

    func testShortPlaysMovePositionByWhatWasHeardOnPipeWire() throws { try checkShortPlays(on: .pipewire) }
    func testShortPlaysMovePositionByWhatWasHeardOnPulseAudio() throws { try checkShortPlays(on: .pulse) }

    /// Plays of 0.1, 0.15 and 0.2 s between pauses (issue 30: Position stayed where playback
    /// resumed, 101 ms short after a 0.1 s play, and caught up at a later resume with a Seeked
    /// that moved widgets by 100-460 ms): after each pause, Position has moved by as much as was
    /// heard, and a widget fed by the signals alone agrees with it.
    ///
    /// Within 5 ms on both servers. A Seeked may put widgets right by as much as the sound started
    /// later than the resume (at the graph's next cycle) or stopped later than the pause (at the
    /// end of its cycle): up to 42.7 ms each on PipeWire. On PulseAudio 3 of 10 runs were 6-12 ms
    /// off on 2026-12-03; since mpv's samples are stamped as mpv gives them (`MPVEventPump`),
    /// -3.2 to 3.0 ms in 10 runs and within 4 ms in 16 more (2026-12-05), with no Seeked.
    private func checkShortPlays(on kind: SoundServer.Kind) throws {
        let recording = try play([media.long[0]], on: kind, trace: true)
        try waitForStatus("Playing")
        _ = try waitForStart()
        listen(for: 1)
        try player("Pause")
        try waitForStatus("Paused")
        listen(for: 0.3)
        let paused = monotonicNow()
        let first = try position()
        try startWidget()
        var positions: [MediaTime] = []
        for play in [0.1, 0.15, 0.2, 0.1, 0.15, 0.2] {
            try player("Play")
            listen(for: play)   // signals are stamped as they come
            try player("Pause")
            listen(for: 0.3)
            positions.append(try position())
            let drift = try widgetDrift()
            XCTAssertLessThanOrEqual(drift, Self.widgetTolerance, "a widget off by \(drift / 1000) ms after play \(positions.count)")
        }
        recording.stop()
        // How far each Seeked moved a widget, replayed from the signals.
        var replayed = WidgetModel()
        replayed.reset(properties: ["Position": .int64(first), "PlaybackStatus": .string("Paused"), "Rate": .double(1)], at: paused)
        var jumps: [MediaTime] = []
        for (message, at) in timeline where at > paused {
            if message.member == "Seeked", let told = message.arguments.first?.int64 { jumps.append(abs(replayed.estimate(at: at) - told)) }
            replayed.apply(message, at: at)
        }
        let plays = recording.sounds(from: paused)
        XCTAssertEqual(plays.count, positions.count, "one sound per play on \(kind.name): \(plays.map { ($0.end - $0.start) / 1000 }) ms")
        // Each play against its own sound: the recording places an edge to 1 ms, so a sum over
        // plays would add up their errors.
        let moves = zip(positions, [first] + positions).map { $0 - $1 }
        let lengths = plays.map { $0.end - $0.start }
        for (i, (moved, heard)) in zip(moves, lengths).enumerated() {
            XCTAssertEqual(Double(moved), Double(heard), accuracy: 5_000,
                           "play \(i + 1) on \(kind.name): Position moved \(moved / 1000) ms, \(heard / 1000) ms were heard")
        }
        print("short plays on \(kind.name): Position moved minus heard \(zip(moves, lengths).map { Double(($0 - $1) / 100) / 10 }) ms "
              + "(heard \(lengths.map { $0 / 1000 }) ms); "
              + "Seeked moved a widget by \(jumps.map { $0 / 1000 }) ms")
        XCTAssertLessThanOrEqual(jumps.count, 2 * positions.count, "more than a Seeked at each resume and pause on \(kind.name)")
        XCTAssertLessThanOrEqual(jumps.max() ?? 0, kind == .pipewire ? 50_000 : 20_000,
                                 "a Seeked moved a widget by \((jumps.max() ?? 0) / 1000) ms on \(kind.name)")
    }

    // MARK: A loaded machine

    func testAStallOfTheDaemonIsNotHeardOnPipeWire() throws { try checkStalls(on: .pipewire) }
    func testAStallOfTheDaemonIsNotHeardOnPulseAudio() throws { try checkStalls(on: .pulse) }

    /// reeld stopped for 10 to 40 ms at a time, as a loaded machine or a busy
    /// VM host stops it: the server still has sound to play. With mpv's 20 ms
    /// PipeWire buffer (a 512-sample quantum) each such stall was heard.
    private func checkStalls(on kind: SoundServer.Kind) throws {
        let recording = try play([media.long[0]], on: kind)
        try waitForStatus("Playing")
        _ = try waitForStart()
        listen(for: 0.5)
        let pid = try XCTUnwrap(daemon).process.processIdentifier
        let from = monotonicNow()
        for stall in [10_000, 20_000, 30_000, 40_000, 40_000] as [useconds_t] {
            kill(pid, SIGSTOP)
            usleep(stall)
            kill(pid, SIGCONT)
            listen(for: 0.3)
        }
        let to = monotonicNow()
        listen(for: 0.3)
        recording.stop()
        let gap = recording.gaps(from: from, to: to + 200_000).first
        XCTAssertLessThanOrEqual(gap?.length ?? 0, 10_000,
                                 "\((gap?.length ?? 0) / 1000) ms of silence on \(kind.name), \(((gap?.at ?? 0) - from) / 1000) ms into the stalls")
    }

    // MARK: Widgets

    func testAWidgetStaysWithin20msOnPipeWire() throws {
        let recording = try play([media.tones[0], media.tones[1]], on: .pipewire)
        defer { recording.stop() }
        try checkWidgetThroughEveryKindOfChange()
    }

    func testAWidgetStaysWithin20msOnPulseAudio() throws {
        let recording = try play([media.tones[0], media.tones[1]], on: .pulse)
        defer { recording.stop() }
        try checkWidgetThroughEveryKindOfChange()
    }

    // MARK: ReplayGain

    func testReplayGainLevelsEveryFileAcrossGaplessTransitionsOnPipeWire() throws { try checkReplayGain(on: .pipewire) }
    func testReplayGainLevelsEveryFileAcrossGaplessTransitionsOnPulseAudio() throws { try checkReplayGain(on: .pulse) }

    /// −6 dB, 0 dB, −6 dB by their tags, in gapless order: the 0 dB one is
    /// heard 6 dB louder than the one before and the one after it, and each
    /// keeps its level to its last sample (mpv's own ReplayGain switched to the
    /// next file's level about 250 ms before the file was heard).
    private func checkReplayGain(on kind: SoundServer.Kind) throws {
        let recording = try play([media.quieter, media.louder, media.quieter], on: kind, ["--replaygain", "track"])
        try waitForStatus("Stopped", timeout: 15)
        recording.stop()
        let start = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        let up = try XCTUnwrap(recording.onset(of: 880, after: start), "the 0 dB file was not heard")
        // Searched for from 1 s into the 1.5 s file: the edge of a gap halves a tone's zero crossings.
        let down = try XCTUnwrap(recording.onset(of: 440, after: up + 1_000_000), "the last file was not heard")
        let gap = recording.gaps().first
        XCTAssertLessThanOrEqual(gap?.length ?? 0, 10_000, "gapless on \(kind.name): \(gap?.length ?? 0) µs of silence "
                                 + "at \(((gap?.at ?? 0) - start) / 1000) ms; the files were heard at 0, \((up - start) / 1000) "
                                 + "and \((down - start) / 1000) ms")
        let first = recording.level(from: start + 200_000, to: up - 200_000)
        let loud = recording.level(from: up + 200_000, to: down - 200_000)
        let last = recording.level(from: down + 200_000, to: down + 1_100_000)
        XCTAssertEqual(loud - first, 6.02, accuracy: 1, "−6 dB then 0 dB on \(kind.name): \(first) → \(loud) dBFS")
        XCTAssertEqual(loud - last, 6.02, accuracy: 1, "0 dB then −6 dB on \(kind.name): \(loud) → \(last) dBFS")
        let firstEnd = recording.level(from: up - 150_000, to: up - 20_000)
        let loudEnd = recording.level(from: down - 150_000, to: down - 20_000)
        XCTAssertEqual(firstEnd, first, accuracy: 1, "the −6 dB file's last 150 ms on \(kind.name): \(first) → \(firstEnd) dBFS")
        XCTAssertEqual(loudEnd, loud, accuracy: 1, "the 0 dB file's last 150 ms on \(kind.name): \(loud) → \(loudEnd) dBFS")
    }

    func testTurningReplayGainOnLevelsThePlayingFileWithoutAGapOnPipeWire() throws { try checkReplayGainTurnedOn(on: .pipewire) }
    func testTurningReplayGainOnLevelsThePlayingFileWithoutAGapOnPulseAudio() throws { try checkReplayGainTurnedOn(on: .pulse) }

    /// A file tagged −6 dB, played with ReplayGain off, then on: the rest of
    /// it is heard 6 dB lower, and the sound goes on through the change.
    private func checkReplayGainTurnedOn(on kind: SoundServer.Kind) throws {
        let recording = try play([media.quieterLong], on: kind)
        try waitForStatus("Playing")
        listen(for: 1.5)
        let change = monotonicNow()
        try set("ReplayGain", .string("track"), MPRIS.reel)
        try waitForStatus("Stopped", timeout: 15)
        recording.stop()
        let start = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        let end = try XCTUnwrap(recording.sounds().last?.end)
        let before = recording.level(from: start + 200_000, to: change)
        let after = recording.level(from: change + 500_000, to: end - 200_000)
        XCTAssertEqual(before - after, 6.02, accuracy: 1, "ReplayGain on during the file on \(kind.name): \(before) → \(after) dBFS")
        let gap = recording.gaps().first
        XCTAssertLessThanOrEqual(gap?.length ?? 0, 10_000, "silence on \(kind.name), \(((gap?.at ?? 0) - change) / 1000) ms after the change")
    }

    // MARK: The sleep timer

    func testTheSleepTimerFadesOutPausesAndResumesWhereTheFadeBeganOnPulseAudio() throws {
        let recording = try play([media.long[0]], on: .pulse, ["--sleep-fade", "2"])
        try waitForStatus("Playing")
        _ = try waitForStart()
        listen(for: 1)
        let before = try position()
        let set = monotonicNow()
        XCTAssertEqual(try reel("sleep", "3s").0, 0)
        let setAt = try position()
        let status = try reel("status").1
        XCTAssertTrue(status.contains("[sleep in 0:0"), status)
        try waitForStatus("Paused", timeout: 10)
        let paused = monotonicNow()
        listen(for: 1)
        // It resumes where the fade began, 1 s after the timer was set, at the full volume.
        let resumesAt = try position()
        XCTAssertTrue((before + 1_000_000...setAt + 1_050_000).contains(resumesAt),
                      "the fade began 1 s after the timer was set, between \(before) and \(setAt): \(resumesAt)")
        XCTAssertEqual(try get("Volume").double, 1)
        XCTAssertEqual(try get("SleepTimer", MPRIS.reel).string, "off")
        let resuming = monotonicNow()
        try player("Play")
        try waitForStatus("Playing")
        let resumed = monotonicNow()
        listen(for: 1.5)
        recording.stop()
        func level(_ from: Double, _ to: Double) -> Double {
            recording.level(from: set + MonotonicTime(from * 1e6), to: set + MonotonicTime(to * 1e6))
        }
        let full = level(0.1, 0.9)
        // The fade runs from 1 s to 3 s after the timer was set, down all the way.
        let steps = stride(from: 1.2, to: 2.8, by: 0.2).map { level($0, $0 + 0.2) }
        XCTAssertEqual(steps, steps.sorted(by: >), "the level falls step by step: \(full) then \(steps) dBFS")
        XCTAssertGreaterThan(full - steps.last!, 20, "heard at the end of the fade: \(full) → \(steps.last!) dBFS")
        XCTAssertLessThan(full - steps.first!, 6, "not before the fade: \(full) → \(steps.first!) dBFS")
        XCTAssertEqual(Double(paused - set), 3_000_000, accuracy: 500_000, "paused 3 s after")
        // (The recording's clock is fitted to arrivals: a sound may map a few ms early.)
        XCTAssertTrue(recording.sounds(from: set + 3_300_000, to: resuming - 20_000).isEmpty, "silent once paused")
        let back = recording.level(from: resumed + 500_000, to: resumed + 1_400_000)
        XCTAssertEqual(back, full, accuracy: 2, "resumed at the level it had before the fade")
    }

    // MARK: A feed's voice boost

    /// The same episode, 3 s quiet (30 dB below) then 3 s loud, from two feeds, one with its voice
    /// boost on: heard through it, the quiet part comes up towards the loud one; without it, not.
    func testAFeedsVoiceBoostEvensTheLevelHeardOnPulseAudio() throws {
        let served = home.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        for name in ["plain.wav", "boosted.wav"] {
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=300:duration=3,volume=-18dB", "-f", "lavfi",
                              "-i", "sine=frequency=300:duration=3,volume=12dB", "-filter_complex", "[0][1]concat=n=2:v=0:a=1",
                              "-ar", "48000", "-ac", "2", served.appendingPathComponent(name).path])
        }
        let origin = try Origin(serving: served, home: home)
        defer { origin.stop() }
        for (feed, file) in [("plain.xml", "plain.wav"), ("boosted.xml", "boosted.wav")] {
            try "<rss><channel><item><title>\(file)</title><enclosure url=\"\(file)\"/></item></channel></rss>"
                .write(to: served.appendingPathComponent(feed), atomically: true, encoding: .utf8)
        }
        let recording = try play([], on: .pulse)
        for feed in ["plain.xml", "boosted.xml"] {
            XCTAssertEqual(try reel("sync", "--no-download", origin.url(feed)).0, 0)
        }
        XCTAssertEqual(try reel("feed", "set", "boosted.xml", "boost", "on").0, 0)
        XCTAssertEqual(try reel("lib", "play", "wav").0, 0)   // boosted.wav, then plain.wav (by title)
        try waitForTitle("plain.wav", timeout: 15)
        let second = monotonicNow()
        try waitForStatus("Stopped", timeout: 15)
        recording.stop()
        let start = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        func spread(_ from: MonotonicTime) -> Double {
            recording.level(from: from + 3_800_000, to: from + 5_500_000) - recording.level(from: from + 1_000_000, to: from + 2_500_000)
        }
        let boosted = spread(start)
        let plain = spread(try XCTUnwrap(recording.firstSound(after: second - 300_000)))
        XCTAssertEqual(plain, 30, accuracy: 2, "without the boost, the quiet part is heard 30 dB below the loud one")
        XCTAssertLessThan(boosted, plain - 8, "with it, \(boosted) dB below")
        XCTAssertFalse(daemon!.text.contains("cannot set the audio filters"), daemon!.text)
    }

    // MARK: Chapters

    func testAChapterIsAnnouncedWhenItIsHeardOnPipeWire() throws { try checkChapterHeard(on: .pipewire) }
    func testAChapterIsAnnouncedWhenItIsHeardOnPulseAudio() throws { try checkChapterHeard(on: .pulse) }

    /// An Ogg file whose second chapter, at 2 s, is another tone: the Metadata that names the
    /// chapter goes out when the tone is heard, not when mpv decodes it (a buffer earlier).
    private func checkChapterHeard(on kind: SoundServer.Kind) throws {
        let file = home.appendingPathComponent("two-tones.ogg")
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=300:duration=2:sample_rate=48000", "-f", "lavfi",
                          "-i", "sine=frequency=600:duration=2:sample_rate=48000", "-filter_complex", "[0][1]concat=n=2:v=0:a=1",
                          "-ac", "2", "-c:a", "libvorbis", "-metadata", "title=Two tones",
                          "-metadata", "CHAPTER001=00:00:00.000", "-metadata", "CHAPTER001NAME=Low",
                          "-metadata", "CHAPTER002=00:00:02.000", "-metadata", "CHAPTER002NAME=High", file.path])
        let recording = try play([file], on: kind)
        let (_, announced) = try XCTUnwrap(waitForTimedSignal(timeout: 10) {
            $0.member == "PropertiesChanged" && $0.changedProperties?["Metadata"]?.dictionary?["reel:chapter"]?.string == "High"
        }, "the second chapter was not announced")
        try waitForStatus("Stopped", timeout: 10)
        recording.stop()
        let heard = try XCTUnwrap(recording.sounds().first?.start, "nothing was heard")
        let high = try XCTUnwrap(recording.onset(of: 600, after: heard + 1_000_000), "the second tone was not heard")
        print("chapter on \(kind.name): announced \((announced - high) / 1000) ms from when it was heard")
        // The announcement follows Position's estimate; held to 20 ms on both servers, as Position is.
        let bound: MonotonicTime = 20_000
        XCTAssertLessThanOrEqual(abs(announced - high), bound,
                                 "announced \((announced - high) / 1000) ms from when it was heard on \(kind.name)")
    }
    // MARK: Trimmed silence

    /// A talk made of four spoken phrases with silences of 2 s, 0.3 s and 1.5 s between them, from a
    /// feed that trims silence: heard on PulseAudio, the two long silences last 0.3 s and the short one
    /// is kept; every phrase lasts as long as in the file; Position, read throughout, is the file's time
    /// of what is heard (from where each phrase starts in the file, not from reel's own arithmetic);
    /// and the time saved is reported.
    func testTrimmedSilenceIsShortenedSpeechKeptAndPositionHeardOnPulseAudio() throws {
        let served = home.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let talk = try Talk(in: served, silences: [2_000_000, 300_000, 1_500_000])
        let origin = try Origin(serving: served, home: home)
        defer { origin.stop() }
        try "<rss><channel><item><title>Talk</title><enclosure url=\"talk.mp3\"/></item></channel></rss>"
            .write(to: served.appendingPathComponent("talk.xml"), atomically: true, encoding: .utf8)
        let recording = try play([], on: .pulse)
        XCTAssertEqual(try reel(timeout: 30, "sync", origin.url("talk.xml")).0, 0)
        let path = try waitForDownload(origin.url("talk.mp3"))
        XCTAssertEqual(try reel("feed", "set", "talk.xml", "trim", "on").0, 0)
        XCTAssertTrue(try reel("feed", "ls").1.contains("trim on"))
        XCTAssertEqual(try reel("add", path).0, 0)
        try waitForLog("silences of ")
        drainSignals()
        try player("Play")
        try waitForStatus("Playing")
        var readings: [PositionReading] = []
        var saved: MediaTime = -1
        while try get("PlaybackStatus").string == "Playing" {
            if let reading = try Talk.read(position) { readings.append(reading) }
            let now = try XCTUnwrap(get("TimeSaved", MPRIS.reel).int64)
            if now >= 0 { saved = now }
            listen(for: 0.03)
        }
        recording.stop()
        // Widgets learn each jump over a cut, and nothing else moves them after the start.
        let seeked = pendingSignals().filter { $0.member == "Seeked" }.compactMap { $0.arguments.first?.int64 }
        XCTAssertEqual(seeked.filter { $0 > 500_000 }.count, 2, "a Seeked for each of the two cuts: \(seeked)")
        for (position, next) in zip(seeked.filter { $0 > 500_000 }, [talk.phrases[1], talk.phrases[3]]) {
            XCTAssertTrue((next.start - Trim.kept...next.start).contains(position),
                          "the jump goes to the end of the cut, just before the phrase after it: \(position), \(next.start)")
        }

        let phrases = recording.phrases()
        XCTAssertEqual(phrases.count, 4, "four phrases heard: \(phrases)")
        guard phrases.count == 4 else { return }
        for (n, (heard, spoken)) in zip(phrases, talk.phrases).enumerated() {
            XCTAssertEqual(Double(heard.end - heard.start), Double(spoken.end - spoken.start), accuracy: 10_000,
                           "phrase \(n + 1) heard for \(heard.end - heard.start) µs, spoken for \(spoken.end - spoken.start)")
        }
        // Between phrases: the silence made, and the quiet ends of the phrases beside it.
        let silences = zip(phrases, phrases.dropFirst()).map { $1.start - $0.end }
        let spoken = zip(talk.phrases, talk.phrases.dropFirst()).map { $1.start - $0.end }
        for ((heard, gap), made) in zip(zip(silences, spoken), talk.silences) {
            let expected = made >= Trim.threshold ? gap - made + Trim.kept : gap
            XCTAssertEqual(Double(heard), Double(expected), accuracy: 15_000,
                           "a silence of \(made) µs (\(gap) between the phrases) was heard for \(heard)")
        }
        // Position against the file's time of what was heard.
        let errors = talk.errors(of: readings, heardIn: recording)
        let worst = errors.map(abs).max() ?? .max
        print("trimmed talk on PulseAudio: Position at most \(worst) µs from what was heard; silences heard \(silences) µs")
        XCTAssertLessThanOrEqual(worst, 10_000, "Position was \(worst / 1000) ms from the file's time of what was heard")
        XCTAssertGreaterThan(errors.count, 60, "readings inside the phrases, of \(readings.count) (round trips under 2 ms)")
        XCTAssertEqual(Double(saved), Double(talk.cuttable), accuracy: 60_000, "TimeSaved told \(saved)")
        let total = try XCTUnwrap(get("TimeSavedInAll", MPRIS.reel).int64)
        XCTAssertEqual(Double(total), Double(talk.cuttable), accuracy: 60_000, "TimeSavedInAll told \(total)")
        let listed = try reel("lib", "ls").1
        XCTAssertTrue(listed.contains("trimmed 0:02"), listed)
    }
}
