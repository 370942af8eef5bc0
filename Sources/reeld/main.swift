import CLinux
import FoundationEssentials
import Glibc
import ReelSystem
import ReelCache
import ReelCore
import ReelDBus
import ReelMPRIS
import ReelMPV
import ReelLibrary
import ReelSnapcast
import ReelSettings

// glibc serves a large block with a mapping of its own, returned when freed, until such a block
// is freed: then it raises that threshold (up to 32 MiB) and keeps later large blocks in the
// heap, which it rarely gives back. The daemon's largest blocks are short-lived (a D-Bus reply
// that lists the whole queue, a new shuffle order); kept, they made a 100,000-entry queue cost
// 53 MiB instead of 36. Blocks of 4 MiB and more keep their own mappings: at 128 KiB (glibc's
// start) it was 34 MiB, but the queue's arrays of 1 MiB were mapped anew at every change, which
// doubled a Shuffle's loop time (docs/benchmark.md).
reel_map_large_blocks(4 << 20)

let environment = ProcessInfo.processInfo.environment
var defaults = DaemonOptions()
let configPath = ConfigFile.path(environment: environment)
if let text = try? String(contentsOfFile: configPath, encoding: .utf8) {
    // A line it cannot use is reported and skipped: a daemon that the desktop starts must not fail on a typo.
    for problem in ConfigFile.apply(text, to: &defaults) { log("\(configPath):\(problem.line): \(problem.message)") }
}

let options: DaemonOptions
switch DaemonOptions.parse(Array(CommandLine.arguments.dropFirst()), defaults: defaults) {
case .run(let parsed): options = parsed
case .exit(let status, let text):
    if status == 0 { print(text) } else { writeStandardError(text) }
    exit(status)
}

// Before the name is taken, so that a client's SIGTERM never finds us unprepared.
let stopPipe: WakeupPipe
do { stopPipe = try StopSignals.install() } catch { log("\(error)"); exit(1) }

let xml: String
do { xml = try InterfaceFile.load() } catch { log("\(error)"); exit(1) }

let connection: Connection
do { connection = try Connection() } catch {
    log("cannot connect to the D-Bus session bus (\((error as? BusError)?.message ?? "\(error)")); is DBUS_SESSION_BUS_ADDRESS set?")
    exit(1)
}

let busName = options.instance ? "\(MPRIS.busName).instance\(getpid())" : MPRIS.busName
do {
    if try connection.requestName(busName) == .taken {
        log("the name \(busName) is already owned by another reeld; stop it first or use --instance")
        exit(1)
    }
} catch {
    log("cannot request \(busName) on the session bus: \(error)")
    exit(1)
}

let cacheHome = Paths.base(.cache, environment: environment)
let dataHome = Paths.base(.data, environment: environment)
var cacheSettings = CacheSettings()
cacheSettings.readahead = options.readahead
cacheSettings.timeout = options.networkTimeout
let cache: Cache?
if options.cacheSize == 0 {
    cache = nil   // no cache: mpv streams remote media itself
} else { do {
    cache = try Cache(directory: URL(fileURLWithPath: cacheHome + "/reel/http"),
                      mediaStore: URL(fileURLWithPath: dataHome + "/reel/media"), limit: options.cacheSize, settings: cacheSettings)
} catch {
    log("\(error); playing remote media without the cache")
    cache = nil
} }

// The Snapcast output: mpv writes into reel's FIFO, the relay passes it on to snapserver.
var relay: PCMRelay?
if let target = options.snapcast {
    guard let fifo = RuntimeFile.path("snapcast", "pcm", environment: environment, instance: options.instance) else {
        log("the Snapcast output needs XDG_RUNTIME_DIR for its FIFO")
        exit(1)
    }
    do {
        relay = try PCMRelay(target: target, fifoPath: fifo, serverBuffer: options.snapcastBuffer * 1000)
    } catch {
        log("cannot play to \(target): \(error)")
        exit(1)
    }
}

let backend: MPVBackend
do { backend = try MPVBackend(options: .init(audioOutput: options.audioOutput, videoOutput: options.videoOutput,
                                               networkTimeout: options.networkTimeout, streams: cache, sink: relay)) } catch {
    log("cannot start libmpv: \(error)")
    exit(1)
}
let tasks: Mailbox<LoopResult>
do { tasks = try Mailbox() } catch { log("\(error)"); exit(1) }
let library = LibraryBridge(path: Library.defaultPath(environment: environment), outcomes: tasks)
if let problem = library.openError { log("\(problem); playing without a library") }
let daemon = Daemon(connection: connection, backend: backend, cache: cache, introspectionXML: xml,
                    cacheDir: URL(fileURLWithPath: cacheHome).appendingPathComponent("reel"), library: library, tasks: tasks,
                    settings: [.setReplayGain(options.replayGain), .setVideo(options.video),
                               .setChapterKeys(options.chapterKeys)], resume: options.resumePolicy,
                    sleepFade: options.sleepFade)
do {
    let socketPath = RuntimeFile.path("mpd", "socket", environment: environment, instance: options.instance)
    try daemon.openMPD(socketPath: socketPath, tcp: options.mpdListen, password: options.mpdPassword,
                       timeout: options.mpdTimeout * 1_000_000,
                       musicFolder: options.musicDir ?? Paths.musicFolder(environment: environment))
} catch {
    log("cannot serve the MPD protocol: \(error)")
    if options.mpdListen != nil { exit(1) }   // asked for: a daemon that silently lacks it would mislead
}
if let relay {
    daemon.useOutput(relay.target.description, delay: relay.nominalDelay)
    relay.start()
}
let restored = options.fresh ? 0 : daemon.restoreQueue()
daemon.libraryService.followMusicFolder(options.musicDir ?? Paths.musicFolder(environment: environment), watch: options.watch,
                                        fallbackInterval: options.rescanInterval * 1_000_000)
daemon.cacheService?.resumeDownloads()

var uris: [String] = []
for file in options.files {
    let absolute = file.contains("://") || file.hasPrefix("/")
        ? file : FileManager.default.currentDirectoryPath + "/" + file
    switch PlayableURI.expand(absolute) {
    case .success(let expanded): uris += expanded
    case .failure(let problem): log("skipping \(file): \(problem)")
    }
}
if !uris.isEmpty {
    // Appended to the restored queue; the first new entry plays (or waits, with --paused).
    // Ids are handed out in sequence: the first new entry has the next one.
    let first = EntryID(daemon.queue.nextID)
    try? daemon.run(.add(uris: uris, play: false))
    if daemon.queue[first] != nil {
        try? daemon.run(.goTo(first))
        if options.startPaused { try? daemon.run(.pause) }
    }
}
log("ready as \(busName) (\(restored) restored, \(uris.count) added)"
    + (relay.map { "; playing to \($0.target) (heard \($0.nominalDelay / 1000) ms after decoding)" } ?? "")
    + (daemon.controlAddresses.isEmpty ? ""
       : "; MPD protocol on " + daemon.controlAddresses.map { String($0.dropFirst(4)) }.joined(separator: " and ")))
let status = daemon.runLoop(stopFD: stopPipe.readFD)
Subprocess.terminateAll()   // probes and cover-art extractions still running die with the daemon
daemon.shutDown()
if let relay { unlink(relay.fifoPath) }   // made again at the next start
exit(status)
