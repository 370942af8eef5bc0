import Foundation
import ReelHarness
import ReelMPRIS

// make bench: reeld against mpv with mpv-mpris, on the same generated files,
// on one private bus each. Prints Markdown tables for docs/benchmark.md.

func say(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

// An unknown argument (`--help` among them) prints what there is rather than starting the
// whole bench, which takes minutes and starts servers.
let parts = ["--latency", "--widgets", "--sound", "--talk", "--queue", "--footprint", "--cache", "--snapcast",
             "--mpd", "--network", "--library", "--collection", "--collection-100k"]
for (i, argument) in CommandLine.arguments.enumerated().dropFirst()
where !parts.contains(argument) && argument != "--mpd-profile" && CommandLine.arguments[i - 1] != "--mpd-profile" {
    say("""
        usage: reel-bench [PART...]
        With no PART, every part but --latency, --mpd-profile and --collection-100k runs (make bench).
        --collection: 2,000 and 20,000 songs against MPD; --collection-100k: 100,000 too.
        Parts: \(parts.joined(separator: " ")) --mpd-profile [REQUEST]
        """)
    exit(argument == "--help" || argument == "-h" ? 0 : 2)
}

let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-bench-\(getpid())")
try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)

/// Ends a run, of one part or of all: the generated media (512 MiB with --footprint) go too.
func finish() -> Never {
    PrivateBus.stopAll()
    try? FileManager.default.removeItem(at: dir)
    exit(0)
}
say("generating media in \(dir.path)")
let files = try (1...3).map { i -> URL in
    let url = dir.appendingPathComponent("bench\(i).ogg")
    try Tones.make(url, frequency: 300 + 100 * i, seconds: 60, tags: ["title": "Bench \(i)", "artist": "reel"])
    return url
}

struct Row {
    var latency: Stats
    var next: Stats
    var drift: [Measure.Change: Stats] = [:]
    var usage: Usage
    /// Signals during steady playback: each Seeked is a re-anchor to mpv's real position.
    var steadySignals: Int
}

func run(_ make: (PrivateBus) throws -> Subject) throws -> Row {
    let bus = try PrivateBus()
    let subject = try make(bus)
    defer { subject.child.stop() }
    let probe = try SignalClock(bus: bus, name: subject.busName)
    try probe.waitForOwner()
    probe.listen(1) { _, _ in }
    say("\(subject.label): CPU and RSS over 10 s of playback")
    var steadySignals = 0
    let usage = Usage.measure(pid: subject.child.process.processIdentifier, seconds: 10) { seconds in
        probe.listen(seconds) { message, _ in if message.kind == .signal { steadySignals += 1 } }
    }
    let measure = Measure(probe: probe)
    say("\(subject.label): PlayPause → PropertiesChanged, 200 calls")
    let latency = try measure.playPauseLatency(calls: 200)
    try probe.player("Play")
    say("\(subject.label): Next → Metadata, 20 calls")
    let next = try measure.nextLatency(calls: 20)
    var row = Row(latency: latency, next: next, usage: usage, steadySignals: steadySignals)
    for change in Measure.Change.allCases {
        say("\(subject.label): widget drift after \(change.rawValue), 7 runs")
        row.drift[change] = try measure.widgetDrift(change, runs: 7)
    }
    return row
}

// `reel-bench --latency` measures only reeld's PlayPause latency, over 1000 calls.
if CommandLine.arguments.contains("--latency") {
    do {
        let bus = try PrivateBus()
        let subject = try Subject.reeld(files: files, bus: bus)
        defer { subject.child.stop() }
        let probe = try SignalClock(bus: bus, name: subject.busName)
        try probe.waitForOwner()
        probe.listen(1) { _, _ in }
        let stats = try Measure(probe: probe).playPauseLatency(calls: 1000)
        print("p50 \(ms(stats.median))  p90 \(ms(stats.percentile(90)))  p99 \(ms(stats.percentile(99)))  "
              + "p99.9 \(ms(stats.percentile(99.9)))  max \(ms(stats.percentile(100)))")
    }
    finish()
}
/// The sound-server part: per server, reeld and mpv's own playlist.
func soundFigures() throws -> [(SoundServer.Kind, reel: SoundBench.Figures, mpv: SoundBench.Figures)] {
    let bench = try SoundBench.media(in: dir)
    return try SoundServer.Kind.allCases.map { kind in
        let server = try SoundServer(kind)
        defer { server.stop() }
        say("\(kind.name): reeld")
        let reel = try bench.run(on: server) { try Subject.reeld(files: $0, bus: $1, ao: $2, environment: $3, paused: $4) }
        say("\(kind.name): mpv + mpv-mpris")
        let mpv = try bench.run(on: server) { try Subject.mpvMPRIS(files: $0, bus: $1, ao: $2, environment: $3, paused: $4) }
        return (kind, reel, mpv)
    }
}

func printSound(_ rows: [(SoundServer.Kind, reel: SoundBench.Figures, mpv: SoundBench.Figures)]) {
    // The recording places sound to within a few ms: whole ms are all it can tell.
    func whole(_ micros: Double) -> String { micros.isNaN ? "n/a" : String(Int((micros / 1000).rounded())) }
    func list(_ values: [Double]) -> String { values.map(whole).joined(separator: ", ") + " ms" }
    for (kind, reel, mpv) in rows {
        print("\n\(kind.name), a private server with a null sink recorded from its monitor:\n")
        print("| measure | reeld | mpv's own playlist + mpv-mpris |")
        print("|---|---|---|")
        print("| silence at each of 3 transitions (3 s FLAC tracks) | \(list(reel.gaps)) | \(list(mpv.gaps)) |")
        print("| new Metadata signal after the new track is heard | \(list(reel.metadataLag)) | \(list(mpv.metadataLag)) |")
        print("| PlayPause → first audio, from a paused load | \(whole(reel.firstStart)) ms | \(whole(mpv.firstStart)) ms |")
        print("| PlayPause → audio again, resume, median of 5 (max) | \(whole(Stats(reel.resume).median)) "
              + "(\(whole(Stats(reel.resume).percentile(100)))) ms | \(whole(Stats(mpv.resume).median)) "
              + "(\(whole(Stats(mpv.resume).percentile(100)))) ms |")
        print("| Seeked in 30 s of steady playback | \(reel.steadySeeked) | \(mpv.steadySeeked) |")
        func lead(_ errors: [Double]) -> String {
            errors.isEmpty ? "n/a" : "\(whole(Stats(errors).median)) (\(whole(errors.max { abs($0) < abs($1) } ?? .nan))) ms"
        }
        print("| Position minus what is heard at rate 1.5, median of the beeps (furthest) | \(lead(reel.rateErrors)) | "
              + "\(lead(mpv.rateErrors)) |")
    }
}

// `reel-bench --sound` measures only on the sound servers; `--talk` only trimmed silence.
if CommandLine.arguments.contains("--sound") {
    printSound(try soundFigures())
    printTalk(try TalkBench(dir: dir).run())
    finish()
}
if CommandLine.arguments.contains("--talk") {
    printTalk(try TalkBench(dir: dir).run())
    finish()
}
/// The queue-scale part.
func queueFigures() throws -> QueueBench.Figures {
    try QueueBench(size: 100_000, file: files[0]).run()
}

func printQueueFigures(_ f: QueueBench.Figures) {
    print("\nA queue of 100,000 entries (reeld, ao=null):\n")
    print("| measure | figure |")
    print("|---|---|")
    print("| building it, 1,000 entries an Add call | \(Int(f.buildPerSecond)) entries/s |")
    for (what, stats) in f.changes {
        print("| \(what): loop time, median (max) of \(stats.sorted.count) | \(ms(stats.median)) (\(ms(stats.percentile(100)))) |")
    }
    print("| GetTracksMetadata of 1,000 ids, median (max) of 10 | \(ms(f.metadata1000.median)) (\(ms(f.metadata1000.percentile(100)))) |")
    print("| `reel queue` of all of it, whole process, median of 3 | \(ms(f.cliQueue.median)) |")
    print("| reeld RSS: empty → with it (the queue's cost) | \(f.rssEmpty / 1024) → \(f.rss / 1024) MiB "
          + "(\((f.rss - f.rssEmpty) / 1024) MiB) |")
}

// `reel-bench --queue` measures only the queue at scale.
if CommandLine.arguments.contains("--queue") {
    printQueueFigures(try queueFigures())
    finish()
}
func printCacheFigures(_ f: CacheBench.Figures) {
    func ratio(_ a: Stats, _ b: Stats) -> String { String(format: "%.2f", a.median / b.median) }
    print("\nRemote media through the cache (reeld, ao=null, an origin on 127.0.0.1), medians of 5:\n")
    print("| measure | figure |")
    print("|---|---|")
    print("| OpenUri → playing, through the cache (cold) | \(ms(f.firstAudioCached.median)) |")
    print("| OpenUri → playing, mpv reading the URL itself (cache-size 0) | \(ms(f.firstAudioDirect.median)) |")
    print("| ratio, cache over direct | \(ratio(f.firstAudioCached, f.firstAudioDirect)) |")
    print("| OpenUri → playing, cached replay with the origin stopped | \(ms(f.replayCached.median)) |")
    print("| OpenUri → playing, the same file from local disk | \(ms(f.replayLocal.median)) |")
    print("| ratio, cached replay over local file | \(ratio(f.replayCached, f.replayLocal)) |")
    print("| bytes fetched / file size after 3 seeks and a download (3 runs) | "
          + f.fetchedRatios.map { String(format: "%.4f", $0) }.joined(separator: ", ") + " |")
    print("| reeld RSS downloading 1 GB: start, max, end | \(f.rssKiB.start / 1024), \(f.rssKiB.max / 1024), "
          + "\(f.rssKiB.end / 1024) MiB |")
    print("| 1 GB download (into the cache, then moved into the media store) | \(String(format: "%.1f", f.gigabyteSeconds)) s |")
}

func printFootprint(_ f: FootprintBench.Figures) {
    func seconds(_ s: Stats) -> String { String(format: "%.2f s", s.median / 1e6) }
    func rate(_ s: Stats) -> String { String(format: "%.0f MB/s", Double(f.fileBytes) / 1e6 / (s.median / 1e6)) }
    print("\nA download of \(f.fileBytes >> 20) MiB from Python's http.server on 127.0.0.1, medians of 5 (after one round not counted):\n")
    print("| command | wall time | throughput | reel's throughput over it |")
    print("|---|---|---|---|")
    print("| `reel download URL` (reeld: the cache, fsync, the index, progress signals) | \(seconds(f.reel)) | \(rate(f.reel)) | |")
    print("| `curl -o FILE URL` | \(seconds(f.curl)) | \(rate(f.curl)) | "
          + String(format: "%.2f×", f.curl.median / f.reel.median) + " |")
    print("| `curl -o FILE URL && sync FILE` (the bytes durable, as reel has them) | \(seconds(f.curlSynced)) | "
          + "\(rate(f.curlSynced)) | " + String(format: "%.2f×", f.curlSynced.median / f.reel.median) + " |")
    print("\nDisk used by the downloaded file (cache and media store together): "
          + String(format: "%.0f MB for a file of %.0f MB.", Double(f.onDisk) / 1e6, Double(f.fileBytes) / 1e6))
    print("\nMemory while playing one Ogg file (ao=null, after 5 s), from /proc/PID/smaps_rollup:\n")
    print("| process | RSS | anonymous | RSS over bare mpv |")
    print("|---|---|---|---|")
    let bare = f.playing.first { $0.0.hasPrefix("bare") }?.1.rssKiB ?? 1
    for (label, memory) in f.playing {
        print("| \(label) | \(memory.rssKiB / 1024) MiB | \(memory.anonKiB / 1024) MiB | "
              + String(format: "%.2f×", Double(memory.rssKiB) / Double(bare)) + " |")
    }
    for (label, memory) in f.withLibrary {
        print("| \(label), with a 10,000-item library | \(memory.rssKiB / 1024) MiB | \(memory.anonKiB / 1024) MiB | "
              + String(format: "%.2f×", Double(memory.rssKiB) / Double(bare)) + " |")
    }
}

// `reel-bench --footprint` measures only downloads and memory against curl, mpv and MPD.
if CommandLine.arguments.contains("--footprint") {
    printFootprint(try FootprintBench(dir: dir, file: files[0]).run())
    finish()
}

// `reel-bench --cache` measures only the cache.
if CommandLine.arguments.contains("--cache") {
    printCacheFigures(try CacheBench(dir: dir).run())
    finish()
}
func printNetworkFigures(_ f: NetworkBench.Figures) {
    func mb(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    print("\nThe network half under hostile input (reeld, an origin on 127.0.0.1):\n")
    print("| measure | figure |")
    print("|---|---|")
    print("| sync of a \(mb(f.floodBytes)) feed: one title of 10,000 A and 1.98 M `&amp;`, median of 3 | "
          + String(format: "%.2f s", f.entityFlood.median / 1e6) + " |")
    print("| peak RSS over idle, syncing a \(mb(f.feedBytes)) RSS feed of 100,000 items over HTTP | \(f.rssFeedKiB / 1024) MiB |")
    print("| peak RSS over idle, syncing a \(mb(f.catalogueBytes)) JSON catalogue over HTTP | \(f.rssCatalogueKiB / 1024) MiB |")
    print("| \(f.failing) enclosures answering 404: reeld CPU, wall time | "
          + String(format: "%.1f s, %.1f s", f.failingCPU, f.failingSeconds) + " |")
    print("| requests to a station while it plays 10 s; in 3 s after stop and clear | \(f.stationRequests); \(f.requestsAfterStop) |")
}

func printMPDFigures(_ f: (reel: MPDBench.Side, mpd: MPDBench.Side)) {
    print("\nThe MPD protocol on a Unix socket, \(MPDBench.songs) tagged files, null output, both playing, measured call by call in \(MPDBench.rounds) rounds:\n")
    print("| measure | reeld | MPD 0.23 | ratio |")
    print("|---|---|---|---|")
    // The ratio is of the unrounded figures, reeld's over MPD's: issue 31 wants each at most 1.
    func row(_ name: String, _ stat: (MPDBench.Side) -> Stats?, _ p: Double) {
        let reel = stat(f.reel)?.percentile(p), mpd = stat(f.mpd)?.percentile(p)
        let ratio = reel.flatMap { reel in mpd.map { String(format: "%.2f", reel / $0) } } ?? "n/a"
        print("| \(name) | \(reel.map(ms) ?? "n/a") | \(mpd.map(ms) ?? "n/a") | \(ratio) |")
    }
    row("`status` round trip, p50 (\(MPDBench.roundTrips))", { $0.status }, 50)
    row("`status` round trip, p99", { $0.status }, 99)
    row("`pause` → `idle player` wakes, p50 (\(MPDBench.toggles))", { $0.pauseToIdle }, 50)
    row("`pause` → `idle player` wakes, p99", { $0.pauseToIdle }, 99)
    row("MPRIS `PlayPause` → `idle player` wakes, p50", { $0.playPauseToIdle }, 50)
    row("MPRIS `PlayPause` → `idle player` wakes, p99", { $0.playPauseToIdle }, 99)
    row("`playlistinfo` of \(MPDBench.songs) entries, median of \(MPDBench.runs)", { $0.playlistinfo }, 50)
    row("`list album group albumartist`, \(MPDBench.songs) songs, median of \(MPDBench.runs)", { $0.list }, 50)
}

func printSnapcastFigures(_ f: (reel: SnapcastBench.Side, mpd: SnapcastBench.Side)) {
    func whole(_ micros: Double) -> String { micros.isNaN ? "n/a" : String(Int((micros / 1000).rounded())) + " ms" }
    func list(_ values: [Double]) -> String { values.isEmpty ? "none" : values.prefix(3).map(whole).joined(separator: ", ") }
    func spread(_ values: [Double]) -> String {
        let magnitudes = Stats(values.map(abs))
        return "\(whole(magnitudes.median)) / \(whole(magnitudes.percentile(100))) (\(values.count) steps)"
    }
    print("\nSnapcast: a private snapserver (pipe source, buffer 1000 ms, FLAC, meta_mpd.py) and one snapclient room recorded;")
    print("both players read and driven over the MPD protocol (`elapsed`):\n")
    print("| measure | reeld | MPD 0.23 (fifo output) |")
    print("|---|---|---|")
    print("| longest silences between three 1.5 s tracks, in the room | \(list(f.reel.gaps)) | \(list(f.mpd.gaps)) |")
    print("| `elapsed` minus what the room plays, median / max over 30 s with a pause and a seek | "
          + "\(spread(f.reel.errors)) | \(spread(f.mpd.errors)) |")
    print("| `elapsed` while paused minus where the room stopped | \(whole(f.reel.heldError)) | \(whole(f.mpd.heldError)) |")
    print("| `pause 1` → silence in the room | \(whole(f.reel.pauseToSilence)) | \(whole(f.mpd.pauseToSilence)) |")
    print("| `pause 0` → sound in the room | \(whole(f.reel.playToSound)) | \(whole(f.mpd.playToSound)) |")
}

// `reel-bench --snapcast` measures only Snapcast.
if CommandLine.arguments.contains("--snapcast") {
    printSnapcastFigures(try SnapcastBench(dir: dir).run())
    finish()
}

// `reel-bench --mpd-profile status|pause|playlistinfo|list` runs one MPD measure on reeld for
// 10 s, to be watched with `perf record -g -p PID` (docs/benchmark.md).
if let i = CommandLine.arguments.firstIndex(of: "--mpd-profile") {
    try MPDBench(dir: dir).profile(CommandLine.arguments.count > i + 1 ? CommandLine.arguments[i + 1] : "status")
    finish()
}
// `reel-bench --mpd` measures only the MPD protocol.
if CommandLine.arguments.contains("--mpd") {
    printMPDFigures(try MPDBench(dir: dir).run())
    finish()
}
// `reel-bench --network` measures only the network half.
if CommandLine.arguments.contains("--network") {
    printNetworkFigures(try NetworkBench(dir: dir).run())
    finish()
}
/// The collection against MPD 0.23: 2,000 and 20,000 songs, and 100,000 when asked for.
func collectionFigures() throws -> [(songs: Int, reel: CollectionBench.Side, mpd: CollectionBench.Side)] {
    // REEL_BENCH_SONGS=2000 runs one size only (a quick look).
    let sizes = ProcessInfo.processInfo.environment["REEL_BENCH_SONGS"].flatMap(Int.init).map { [$0] }
        ?? [2_000, 20_000] + (CommandLine.arguments.contains("--collection-100k") ? [100_000] : [])
    return try sizes.map { songs in
        let (reel, mpd) = try CollectionBench(dir: dir, songs: songs).run()
        return (songs, reel, mpd)
    }
}
// `reel-bench --collection [--collection-100k]` measures only the collection.
if CommandLine.arguments.contains("--collection") || CommandLine.arguments.contains("--collection-100k") {
    CollectionBench.print(try collectionFigures())
    finish()
}
// `reel-bench --library` measures only the library part.
let libraryOnly = CommandLine.arguments.contains("--library")
if libraryOnly {
    let figures = try LibraryBench(items: 100_000).run()
    print("insert \(Int(figures.insertPerSecond))/s; search \(ms(figures.searchDBus.median)) (\(figures.matches) matches); "
          + "reel lib ls \(ms(figures.searchCLI.median)); RSS \(figures.rssEmpty / 1024) → \(figures.rssFull / 1024) MiB")
    finish()
}
let reel = try run { try Subject.reeld(files: files, bus: $0) }
let mpv = try run { try Subject.mpvMPRIS(files: files, bus: $0) }
// In a function of its own: a bus held by a global outlives the run (exit runs no deinit).
func measureBareMPV() throws -> Usage {
    let bus = try PrivateBus()
    let bare = try Subject.bareMPV(file: files[0], bus: bus)
    defer { bare.child.stop() }
    usleep(1_000_000)
    say("bare mpv: CPU and RSS over 10 s of playback")
    return Usage.measure(pid: bare.child.process.processIdentifier, seconds: 10)
}
let bareUsage = try measureBareMPV()

func printWidgets() {
    print("With ao=null:\n")
    print("| measure | reeld | mpv + mpv-mpris |")
    print("|---|---|---|")
    print("| PlayPause → PropertiesChanged, p50 (200 calls) | \(ms(reel.latency.median)) | \(ms(mpv.latency.median)) |")
    print("| PlayPause → PropertiesChanged, p99 | \(ms(reel.latency.percentile(99))) | \(ms(mpv.latency.percentile(99))) |")
    print("| Next → new Metadata, p50 (20 calls) | \(ms(reel.next.median)) | \(ms(mpv.next.median)) |")
    for change in Measure.Change.allCases {
        print("| widget drift 0.5 s after \(change.rawValue), median of 7 (max) | "
              + "\(ms(reel.drift[change]!.median)) (\(ms(reel.drift[change]!.percentile(100)))) | "
              + "\(ms(mpv.drift[change]!.median)) (\(ms(mpv.drift[change]!.percentile(100)))) |")
    }
    print("| signals during 10 s of steady playback | \(reel.steadySignals) | \(mpv.steadySignals) |")
    print("| RSS while playing | \(reel.usage.rssKiB / 1024) MiB | \(mpv.usage.rssKiB / 1024) MiB |")
    print("| CPU over 10 s of playback | \(String(format: "%.1f", reel.usage.cpuPercent)) % | "
          + "\(String(format: "%.1f", mpv.usage.cpuPercent)) % |")
    print("\nBare `mpv --no-video` on the same file: RSS \(bareUsage.rssKiB / 1024) MiB, "
          + "CPU \(String(format: "%.1f", bareUsage.cpuPercent)) %.")
}
// `reel-bench --widgets` measures only the ao=null table: latency, drift after each change, usage.
if CommandLine.arguments.contains("--widgets") {
    printWidgets()
    finish()
}

let sound = try soundFigures()
say("trimmed silence: a generated talk on PulseAudio")
let talk = try TalkBench(dir: dir).run()
say("queue: 100,000 entries")
let queueScale = try queueFigures()

say("cache")
let cacheFigures = try CacheBench(dir: dir).run()

say("network")
let networkFigures = try NetworkBench(dir: dir).run()

say("library: 100,000 items")
let libraryFigures = try LibraryBench(items: 100_000).run()

say("collection: reel against MPD 0.23")
let collection = try collectionFigures()

say("MPD protocol: reel against MPD 0.23")
let mpdFigures = try MPDBench(dir: dir).run()

say("Snapcast: reel against MPD 0.23")
let snapcastFigures = try SnapcastBench(dir: dir).run()

say("footprint: downloads against curl, memory against mpv and MPD")
let footprint = try FootprintBench(dir: dir, file: files[0]).run()

let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?
    .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
let formatter = DateFormatter()
formatter.dateFormat = "yyyy-MM-dd"
print("Measured \(formatter.string(from: Date())) on \(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores.\n")
printWidgets()
printSound(sound)
printTalk(talk)
printQueueFigures(queueScale)
printCacheFigures(cacheFigures)
printNetworkFigures(networkFigures)
printFootprint(footprint)
printMPDFigures(mpdFigures)
printSnapcastFigures(snapcastFigures)
print("\nLibrary of 100,000 synthetic items:\n")
print("| measure | figure |")
print("|---|---|")
print("| bulk insertion (batches of 5,000, no probing) | \(Int(libraryFigures.insertPerSecond)) items/s |")
print("| `LibrarySearch` over D-Bus, \(libraryFigures.matches) matches, median (p95) of 30 | "
      + "\(ms(libraryFigures.searchDBus.median)) (\(ms(libraryFigures.searchDBus.percentile(95)))) |")
print("| `reel lib ls QUERY`, whole process, median of 10 | \(ms(libraryFigures.searchCLI.median)) |")
print("| reeld RSS, empty library → 100,000 items | \(libraryFigures.rssEmpty / 1024) MiB → \(libraryFigures.rssFull / 1024) MiB |")
print("\nA music collection (scripts/make-collection), reeld against MPD 0.23 through the same MPD requests:\n")
CollectionBench.print(collection)
finish()
