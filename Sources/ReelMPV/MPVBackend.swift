import CMPV
import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// The libmpv backend: performs the engine's backend effects and turns mpv
/// events into `BackendEvent`s. It is used from the run-loop thread only.
public final class MPVBackend {
    private let handle: OpaquePointer
    /// Written when mpv has events or another thread has news; the run loop polls it.
    private let wakeup: WakeupPipe
    public var wakeupFD: Int32 { wakeup.readFD }
    /// mpv's playlist and the playing file as far as we know them; it translates mpv's events.
    private var state: MPVTranslator
    private var lastCommandError = ""
    /// Remote files are read through the cache; nil plays URLs directly.
    private let cacheHook: CacheHook?
    private var stream: CacheStream? { cacheHook?.stream }
    /// What reads of the cache ran into (stalls, failures), by URL.
    private let streamNews: Mailbox<(url: String, news: CacheStream.News)>
    /// The reply_userdata of the hook that sets a file's filters (the cache's is `CacheHook.hookID`).
    private static let preloadedHook: UInt64 = 2
    /// How files are levelled by their tags, and the filter that does it now.
    private var replayGain = ReplayGain.off
    private var levelFilter = ""
    private var levelHookAdded = false
    /// Where the sound goes instead of a sound server (snapserver's pipe).
    private let sink: SinkOutput?

    enum Observed: UInt64 { case timePos = 1, pausedForCache = 2, audioPts = 3, metadata = 4 }
    static let windowClosedMessage = "reel-window-closed"
    /// mpv's events, read on a thread of their own.
    private let pump: MPVEventPump
    private let pumped: Mailbox<[PumpedEvent]>

    public struct Options: Sendable {
        public var audioOutput: String?
        public var videoOutput: String?
        /// How long a network read may wait, in seconds; then the entry fails.
        public var networkTimeout: Int
        /// What remote media are read through (the cache); nil lets mpv fetch them.
        public var streams: (any StreamSource)?
        /// Where the sound goes instead of a sound server; it overrides `audioOutput`.
        public var sink: (any AudioSink)?
        public init(audioOutput: String? = nil, videoOutput: String? = nil, networkTimeout: Int = 15,
                    streams: (any StreamSource)? = nil, sink: (any AudioSink)? = nil) {
            self.audioOutput = audioOutput
            self.videoOutput = videoOutput
            self.networkTimeout = networkTimeout
            self.streams = streams
            self.sink = sink
        }
    }

    public init(options: Options) throws {
        // libmpv refuses to start unless numbers parse the C way.
        setlocale(LC_NUMERIC, "C")
        guard let handle = mpv_create() else { throw MPVError("mpv_create failed") }
        self.handle = handle
        state = MPVTranslator(networkTimeout: options.networkTimeout, sinkProblem: options.sink.map { _ in "not connected yet" })
        let wakeup: WakeupPipe
        do {
            wakeup = try WakeupPipe()
        } catch {
            mpv_terminate_destroy(handle)
            throw MPVError("cannot create the wakeup pipe: \(error)")
        }
        self.wakeup = wakeup
        streamNews = Mailbox(waking: wakeup)
        pumped = Mailbox(waking: wakeup)
        let stream = options.streams.map(CacheStream.init(source:))
        let newsInbox = streamNews
        stream?.onNews = { url, news in newsInbox.post((url, news)) }
        cacheHook = stream.map { CacheHook(stream: $0, handle: handle, waking: wakeup) }
        sink = options.sink.map { SinkOutput($0, waking: wakeup) }

        var settings: [(String, String)] = [
            ("idle", "yes"), ("terminal", "no"), ("config", "no"), ("load-scripts", "no"), ("ytdl", "no"),
            ("input-default-bindings", "no"), ("input-vo-keyboard", "no"), ("osc", "no"),
            ("audio-display", "no"), ("keep-open", "no"), ("hr-seek", "yes"), ("sub-auto", "no"),
            ("audio-pitch-correction", "yes"),
            // mpv's built-in Lua scripts (the stats overlay, the console, auto profiles) serve
            // keys and configs reel does not use: 3.8 MiB and two threads.
            ("load-stats-overlay", "no"), ("load-osd-console", "no"), ("load-auto-profiles", "no"),
            // Keeps the audio output open from one file to the next when their
            // formats match; a change of rate or channels reopens it (a short
            // gap) rather than resampling, where "yes" is known to hang (mpv #8904).
            ("gapless-audio", "weak"),
            // No video until asked for (Effect.setVideo); a window only while there is video.
            ("vid", "no"), ("force-window", "no"), ("title", "${media-title} - reel"),
            ("network-timeout", String(options.networkTimeout)),
            // mpv asks PipeWire for 20 ms, which sets the whole graph's quantum to 512 samples: a
            // 10 ms stall of the daemon (a loaded machine, a busy VM host) was heard as 10 ms of
            // silence. 100 ms gives a 2,048-sample quantum (the server's default ceiling), and a
            // 50 ms stall is not heard; Position accounts for the delay either way.
            ("pipewire-buffer", "100"),
        ]
        if let sink {
            settings += sink.settings
        } else if let ao = options.audioOutput {
            settings.append(("ao", ao))
        }
        if let vo = options.videoOutput { settings.append(("vo", vo)) }
        // For diagnosis: mpv's own log, at its debug level, in a file; one per daemon (PATH.PID),
        // so that a test that restarts reeld keeps each run's.
        if let log = ProcessInfo.processInfo.environment["REEL_MPV_LOG"] { settings.append(("log-file", log + ".\(getpid())")) }
        for (name, value) in settings {
            let rc = mpv_set_option_string(handle, name, value)
            if rc < 0 { writeStandardError("reeld: mpv option \(name)=\(value): \(MPVError.describe(rc))") }
        }
        let rc = mpv_initialize(handle)
        guard rc >= 0 else {
            mpv_terminate_destroy(handle)
            throw MPVError("mpv_initialize failed: \(MPVError.describe(rc))")
        }
        pump = MPVEventPump(handle: handle, sink: options.sink, inbox: pumped)
        mpv_request_log_messages(handle, "warn")
        // Before mpv opens a file, the cache says whether it reads through it.
        cacheHook?.register()
        // Closing the video window hides the video; the sound goes on.
        command(["define-section", "reel", "CLOSE_WIN script-message \(Self.windowClosedMessage)", "force"])
        command(["enable-section", "reel"])
        mpv_observe_property(handle, Observed.timePos.rawValue, "time-pos", MPV_FORMAT_DOUBLE)
        mpv_observe_property(handle, Observed.audioPts.rawValue, "audio-pts", MPV_FORMAT_DOUBLE)
        mpv_observe_property(handle, Observed.pausedForCache.rawValue, "paused-for-cache", MPV_FORMAT_FLAG)
        // Live streams update their ICY title through it.
        mpv_observe_property(handle, Observed.metadata.rawValue, "metadata", MPV_FORMAT_NODE)
    }

    deinit {
        pump.stop()
        mpv_terminate_destroy(handle)
    }

    // MARK: Effects

    /// Performs a backend effect. A load that mpv refuses at once comes back
    /// as a `failed` event for the engine.
    public func perform(_ request: BackendCommand) -> [BackendEvent] {
        switch request {
        case .load(let token, let uri, let start, let end, let paused, let rate):
            cacheHook?.release()
            var options = state.takeOptions(for: token)
            options.rate = rate
            state.setRate(rate)
            let entry = MPVEntry(token: token, uri: uri, options: options)
            state.loading(paused: paused)
            hold(paused: state.holdsPaused)
            guard let id = loadFile(entry, mode: "replace", start: start, end: end) else {
                return [.failed(token, reason: lastCommandError)]
            }
            state.replaced(by: entry, id: id)
        case .queueNext(let token, let uri, let start, let end, let rate):
            if URLParts.isRemote(uri) { stream?.source.prefetch(uri) }
            dropQueued()
            var options = state.takeOptions(for: token)
            options.rate = rate
            let entry = MPVEntry(token: token, uri: uri, options: options)
            guard let id = loadFile(entry, mode: "append", start: start, end: end) else {
                return [.failed(token, reason: lastCommandError)]
            }
            state.queued(entry, id: id)
        case .unqueueNext:
            dropQueued()
        case .unload:
            cacheHook?.release()
            command(["stop"])
            state.unloaded()
        case .setPaused(let paused):
            if state.paused, !paused, state.sinkLoss == nil { sink?.sink.dropSilence() }
            state.setPaused(paused)
            var flag: Int32 = state.holdsPaused ? 1 : 0
            mpv_set_property_async(handle, 0, "pause", MPV_FORMAT_FLAG, &flag)
            pauseSent = state.holdsPaused
        case .seek(let target):
            seek(to: target)
        case .setRate(let rate):
            state.setRate(rate)
            var value = rate
            mpv_set_property_async(handle, 0, "speed", MPV_FORMAT_DOUBLE, &value)
        case .setVolume(let volume):
            var value = volume * 100
            mpv_set_property_async(handle, 0, "volume", MPV_FORMAT_DOUBLE, &value)
        case .setTrim(let token, let trim):
            state.ask(token, trim: trim)
        case .reportPosition:
            // Coming back as an event, it is read in a later turn, as mpv's own samples are.
            if let token = state.currentToken, let position = position() { return [.position(token, position)] }
        case .setVoiceBoost(let token, let on):
            state.ask(token, voiceBoost: on)
            if on { addPreloadedHook() }
        case .setReplayGain(let mode):
            replayGain = mode
            guard mode != .off else {
                level(ReplayGainTags())
                break
            }
            addPreloadedHook()
            // The playing file at once; the next ones when they open.
            var node = mpv_node()
            if mpv_get_property(handle, "current-tracks/audio", MPV_FORMAT_NODE, &node) >= 0 {
                level(Self.replayGainTags(MPVNode.map(node)))
                mpv_free_node_contents(&node)
            }
        case .setVideo(let on):
            // Deselecting the video track drops the window without a seek: the sound goes on.
            // Asynchronous: opening a video output can take a while, and the loop never waits.
            var value = strdup(on ? "auto" : "no")
            mpv_set_property_async(handle, 0, "vid", MPV_FORMAT_STRING, &value)
            free(value)
        }
        return []
    }

    /// From now on, once a file is open and before its decoder starts, its filters are set. Only
    /// once asked for: mpv waits on a hook for the loop, which would add to the silence at every cut.
    private func addPreloadedHook() {
        guard !levelHookAdded else { return }
        mpv_hook_add(handle, Self.preloadedHook, "on_preloaded", 50)
        levelHookAdded = true
    }

    /// Runs `loadfile`; returns mpv's playlist entry id for the file. `end`: where mpv
    /// ends it (mpv's per-file option, so that a queued one still follows without a gap). With
    /// a trim, mpv plays the file's kept parts, and `start` and `end` are put on their timeline.
    private func loadFile(_ entry: MPVEntry, mode: String, start: MediaTime, end: MediaTime?) -> Int64? {
        let trim = entry.options.trim
        var args = ["loadfile", trim.map { Self.timeline(of: entry.uri, keeping: $0) } ?? entry.uri, mode]
        let start = trim?.timeline(start) ?? start
        let end = end.map { trim?.timeline($0) ?? $0 }
        // Every file at its rate, from its first sample: mpv takes `speed` per file and puts the
        // one before back at a file's end, so each file says its own.
        let rate = entry.options.rate ?? state.rate
        let options = (start > 0 ? ["start=\(Self.seconds(start))"] : []) + (end.map { ["end=\(Self.seconds($0))"] } ?? [])
            + ["speed=\(rate)"]
        args.append(options.joined(separator: ","))
        var result = mpv_node()
        let rc = withCommand(args) { mpv_command_ret(handle, $0, &result) }
        guard rc >= 0 else {
            lastCommandError = MPVError.describe(rc)
            return nil
        }
        defer { mpv_free_node_contents(&result) }
        return MPVNode.map(result)["playlist_entry_id"].flatMap(MPVNode.int64)
    }

    /// Empties mpv's playlist but for the file it plays, and forgets the
    /// entries removed. The one it plays may already be the queued one, if
    /// mpv moved on before we heard: then its events are still wanted.
    private func dropQueued() {
        // With nothing of ours after the playing file, only files played before it would go:
        // left for a while (each wait for mpv's core thread was 50–150 µs of the loop's turn at
        // every track change), and cleared with the rest once there are a few.
        if state.nothingQueued, state.appendedSinceClear < MPVTranslator.playedKept { return }
        command(["playlist-clear"])
        state.cleared()
        guard let ids = playlistIDs() else { return }
        state.kept(Set(ids.compactMap { $0 }))
    }

    /// An mpv EDL of the file's kept parts, back to back. A part's start is in the container's
    /// timestamps (mpv does not take the file's start time off it). Each name is given with its length
    /// (`%N%`), so that no character of it is read as EDL syntax; `!no_chapters`: the EDL's
    /// chapters would be one a part, on its timeline (the engine has the file's).
    static func timeline(of uri: String, keeping trim: Trim) -> String {
        let name = "%\(uri.utf8.count)%" + uri
        let parts = trim.keptParts.map { part in
            name + ",\(seconds(part.start + trim.origin))" + (part.length.map { ",\(seconds($0))" } ?? "")
        }
        return "edl://!no_chapters;" + parts.joined(separator: ";")
    }

    /// Removes the mpv playlist entries with ids first ..< first + count.
    private func removeEntries(from first: Int64, count: Int32) {
        guard count > 0, let ids = playlistIDs() else { return }
        for (index, id) in ids.enumerated().reversed() {
            if let id, id >= first, id < first + Int64(count) { command(["playlist-remove", String(index)]) }
        }
    }

    /// The ids of mpv's playlist entries, in playlist order; nil if mpv cannot say.
    private func playlistIDs() -> [Int64?]? {
        var node = mpv_node()
        guard mpv_get_property(handle, "playlist", MPV_FORMAT_NODE, &node) >= 0 else { return nil }
        defer { mpv_free_node_contents(&node) }
        return MPVNode.array(node).map { MPVNode.map($0)["id"].flatMap(MPVNode.int64) }
    }

    /// The format the playing file decodes to and its bitrate (kbit/s), as mpv last told them,
    /// asking again for what is out of date (`AudioReadings`). Read when asked rather than
    /// observed: `audio-bitrate` changes with every packet, and while `audio-params` was observed
    /// Position on PipeWire looked further ahead (not established; docs/status.md).
    public func audioNow() -> (format: AudioFormat?, bitrate: Int?) {
        ask(audio.wanted(now: monotonicNow()))
        return (audio.format, audio.bitrate)
    }

    private var audio = AudioReadings()
    /// The reads of the file mpv opened last, while they are out; the events after it wait in `heldBack`.
    private var opening: OpeningReads?
    private var heldBack: [(event: MPVEvent, at: MonotonicTime)] = []
    private var openings: UInt64 = 0

    /// Asks mpv for properties without waiting; its answers come as events (`answered`).
    private func ask(_ reads: [PropertyRead]) {
        for read in reads where mpv_get_property_async(handle, read.userdata, read.purpose.property, MPV_FORMAT_NODE) < 0 {
            answered(read, .none(for: read.purpose))
        }
    }

    /// mpv's answer to `ask`.
    private func answered(_ read: PropertyRead, _ answer: PropertyAnswer) {
        switch answer {
        case .format(let format): audio.answered(read, format: format)
        case .bitrate(let bits):
            // bit/s to kbit/s, once, here at the edge.
            audio.answered(read, bitrate: bits.flatMap { $0.isFinite && $0 >= 0 ? Int(($0 / 1000).rounded()) : nil }, now: monotonicNow())
        case .opening(let value): _ = opening?.answered(read, value)
        }
    }

    /// A file is open: its reads are asked for, and what mpv says after waits for them. Reads of
    /// a file before it still out end with what came (mpv answers in order, so none should be).
    private func fileOpened() -> [BackendEvent] {
        let earlier = finishOpening()
        openings += 1
        let reads = OpeningReads(generation: openings)
        opening = reads
        ask(reads.reads)
        // mpv refused every read (it is shutting down): nothing will answer.
        return earlier + (opening?.complete == true ? finishOpening() : [])
    }

    /// The file open, then the events that waited for it, in mpv's order.
    private func finishOpening() -> [BackendEvent] {
        guard let done = opening else { return [] }
        opening = nil
        var events = perform(state.translate(.fileLoaded(done.file), at: monotonicNow()))
        let held = heldBack
        heldBack = []
        for (event, at) in held { events += perform(state.translate(event, at: at)) }
        return events
    }

    /// mpv's real position now, in µs; nil when nothing is playing.
    public func position() -> MediaTime? {
        if let target = state.pausedSeekTarget { return target }
        return state.position(mpv: pump.position())
    }

    // MARK: Events

    /// Empties the wakeup pipe and translates every mpv event the pump has read.
    public func drainEvents() -> [BackendEvent] {
        wakeup.drain()
        var events: [BackendEvent] = []
        for item in pumped.take().joined() {
            switch item.kind {
            case .startFile, .endFile: audio.fileChanged()
            case .audioReconfig, .fileLoaded, .playbackRestart:
                // Asked for at once, so that a `status` finds it.
                audio.restarted()
                ask(audio.wanted(now: monotonicNow()))
            default: break
            }
            switch item.kind {
            case .fileLoaded:
                events += fileOpened()
            case .reply(let read, let answer):
                answered(read, answer)
                if opening?.complete == true { events += finishOpening() }
            case .hook(let userdata, let id):
                // mpv waits on us.
                if userdata == CacheHook.hookID, let cacheHook {
                    cacheHook.called(id)
                    continue
                }
                if userdata == Self.preloadedHook { levelOpenedFile() }
                mpv_hook_continue(handle, id)
            default:
                guard var event = item.event else { continue }
                if case .endFile(let id, .error(let error, nil)) = event, let entry = state.entries[id],
                   let reason = stream?.takeFailure(entry.uri) {
                    event = .endFile(entry: id, .error(error, cache: reason))
                }
                if opening != nil {
                    heldBack.append((event, item.at))
                } else {
                    events += perform(state.translate(event, at: item.at))
                }
            }
        }
        cacheHook?.takeAnswers()
        for news in sink?.takeNews() ?? [] {
            switch news {
            case .lost(let problem): events += perform(state.sinkLost(problem))
            case .back: events += perform(state.sinkBack(seekable: flag("seekable") == true))
            }
        }
        for (url, news) in streamNews.take() { events += state.translate(news, of: url) }
        if let failure = state.takeFailure() { events.append(failure) }
        return events
    }

    /// Does what the translator asks of mpv; returns the events for the engine.
    private func perform(_ actions: [MPVTranslator.Action]) -> [BackendEvent] {
        actions.compactMap { action in
            switch action {
            case .event(let event): return event
            case .removeEntries(let first, let count): removeEntries(from: first, count: count)
            case .holdPaused(let on): hold(paused: on)
            case .seek(let target): seek(to: target)
            }
            return nil
        }
    }

    // MARK: The cache

    /// Whether remote files are read through the cache.
    public var readsThroughCache: Bool { stream != nil }

    // MARK: ReplayGain

    /// Levels the file mpv has opened by its first audio track's tags (mpv
    /// has not chosen its track yet; music has one).
    private func levelOpenedFile() {
        var node = mpv_node()
        guard mpv_get_property(handle, "track-list", MPV_FORMAT_NODE, &node) >= 0 else {
            level(ReplayGainTags())
            return
        }
        defer { mpv_free_node_contents(&node) }
        let audio = MPVNode.array(node).map(MPVNode.map).first { $0["type"].flatMap(MPVNode.string) == "audio" }
        level(audio.map(Self.replayGainTags) ?? ReplayGainTags())
    }

    /// mpv's own ReplayGain is the output's gain, which it sets when the next
    /// file's decoder starts, while the last quarter second of the file before
    /// still waits in the output: that would be heard at the next file's level.
    /// A filter levels samples as they are decoded, so each file keeps its own
    /// level to its last sample, across gapless transitions too.
    private func level(_ tags: ReplayGainTags) {
        let gain = replayGain == .off ? nil : "@reel-replaygain:lavfi-volume=volume=\(tags.factor(replayGain)):precision=float"
        let voice = state.current?.options.voiceBoost == true ? Self.voiceFilter : nil
        let filter = [gain, voice].compactMap { $0 }.joined(separator: ",")
        guard filter != levelFilter else { return }
        let rc = mpv_set_property_string(handle, "af", filter)
        guard rc >= 0 else {
            writeStandardError("reeld: cannot set the audio filters (ReplayGain, voice): \(MPVError.describe(rc))")
            return
        }
        levelFilter = filter
    }

    /// Evens speech: quiet passages and far voices come up towards the loud ones (ffmpeg's
    /// speechnorm: up to 12.5× gain, raised fast, peaks at 0.95; a passage 30 dB below the loud
    /// ones came out 18 dB below).
    static let voiceFilter = "@reel-voice:lavfi-speechnorm=e=12.5:r=0.01:l=1:p=0.95"

    private static func replayGainTags(_ track: [String: mpv_node]) -> ReplayGainTags {
        ReplayGainTags(trackGain: track["replaygain-track-gain"].flatMap(MPVNode.double),
                       trackPeak: track["replaygain-track-peak"].flatMap(MPVNode.double),
                       albumGain: track["replaygain-album-gain"].flatMap(MPVNode.double),
                       albumPeak: track["replaygain-album-peak"].flatMap(MPVNode.double))
    }

    // MARK: Small helpers

    private func flag(_ name: String) -> Bool? {
        var value: Int32 = 0
        return mpv_get_property(handle, name, MPV_FORMAT_FLAG, &value) >= 0 ? value != 0 : nil
    }

    /// Sets mpv's `pause` and waits for it: a `loadfile` sent next must find it set (mpv 0.35's
    /// synchronous calls overtake queued ones). Not sent when it is what was sent last, which
    /// spares a load that wait (50–150 µs of the loop's turn).
    private func hold(paused: Bool) {
        guard pauseSent != paused else { return }
        var value: Int32 = paused ? 1 : 0
        mpv_set_property(handle, "pause", MPV_FORMAT_FLAG, &value)
        pauseSent = paused
    }

    /// The `pause` last sent to mpv (which never changes it itself); nil before the first.
    private var pauseSent: Bool?

    private func command(_ args: [String]) {
        _ = withCommand(args) { mpv_command(handle, $0) }
    }

    /// The reply_userdata of seek commands, which mpv answers once it has run them.
    static let seekReply: UInt64 = 1

    /// An exact seek to a position of the file, sent without waiting: mpv may be busy opening it.
    private func seek(to target: MediaTime) {
        // Counted only once sent: mpv never answers a command it refused to take, and a count
        // that never falls would hide every restart after it.
        state.seeking(to: target)
        let rc = withCommand(["seek", Self.seconds(state.timeline(target)), "absolute+exact"]) { mpv_command_async(handle, Self.seekReply, $0) }
        if rc >= 0 { state.seekSent() }
    }

    /// An mpv command: the strings as the const char ** libmpv takes.
    private func withCommand<R>(_ args: [String], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
        withCStrings(args) { argv in
            argv.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: args.count + 1, body)
        }
    }

    private static func seconds(_ time: MediaTime) -> String {
        // Exact decimal rendering of integer µs: no floating-point rounding.
        let sign = time < 0 ? "-" : ""
        let magnitude = time.magnitude
        return "\(sign)\(magnitude / 1_000_000).\(String(magnitude % 1_000_000).zeroPadded(to: 6))"
    }
}

/// An error from libmpv, with its message.
public struct MPVError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
    static func describe(_ code: Int32) -> String { String(cString: mpv_error_string(code)) }
}

extension MPVBackend {
    /// mpv's `audio-params` (samplerate, channel-count, format) as a format; nil when it has none.
    static func audioFormat(_ params: [String: mpv_node]) -> AudioFormat? {
        guard let rate = params["samplerate"].flatMap(MPVNode.int64), rate > 0,
              let channels = params["channel-count"].flatMap(MPVNode.int64), channels > 0 else { return nil }
        // "s16", "s16p", "s32", "u8", "float", "floatp", "double"…: planar or not, the same samples.
        let format = params["format"].flatMap(MPVNode.string) ?? ""
        let bits: Int? = switch format.hasSuffix("p") ? String(format.dropLast()) : format {
        case "u8": 8
        case "s16": 16
        case "s24": 24
        case "s32": 32
        case "s64": 64
        default: nil   // float, double
        }
        return AudioFormat(sampleRate: Int(rate), bits: bits, channels: Int(channels))
    }
}
