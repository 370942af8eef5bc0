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
    /// mpv playlist entry ids of our loads, so every event finds its load token.
    private var tokens: [Int64: LoadToken] = [:]
    /// The entry between mpv's START_FILE and END_FILE; events without an id belong to it.
    private var playingEntry: Int64?
    /// Whether we last told mpv to pause.
    private var paused = false
    /// After a seek while paused, mpv's time-pos reads short by its audio
    /// buffer (about 150 ms) until playback resumes; yet playback resumes at
    /// the exact target. Until then the target is the real position.
    private var pausedSeekTarget: MediaTime?
    /// Seeks sent that mpv has not yet run. mpv runs commands and reports
    /// restarts in one order, so a restart while one is unanswered lands an
    /// earlier seek that a later one replaces: it is not where playback goes.
    private var seeksUnanswered = 0
    /// The first error mpv logged while opening the current file: more telling
    /// than the error code ("HTTP error 404 Not Found" rather than "loading failed").
    private var openingError: String?
    /// Between START_FILE and FILE_LOADED.
    private var opening = false
    /// A load that failed, reported at the end of the drain: mpv hands out
    /// queued events before log messages, so the message explaining the
    /// failure may come after the END_FILE that it explains.
    private var failure: (token: LoadToken, reason: String, detail: String?)?
    private var lastCommandError = ""
    private let networkTimeout: Int
    /// What each of our mpv playlist entries plays, and when the playing one was opened.
    private var uris: [Int64: String] = [:]
    private var openedAt: MonotonicTime = 0
    /// Remote files are read through the cache; nil plays URLs directly.
    private let stream: CacheStream?
    /// Classifications of URLs mpv is about to open, from the cache's threads.
    private let classified: Mailbox<(serial: UInt64, url: String, kind: ResourceKind)>
    /// What reads of the cache ran into (stalls, failures), by URL.
    private let streamNews: Mailbox<(url: String, news: CacheStream.News)>
    /// The on_load hook mpv waits on while the cache looks at a URL.
    /// `serial` is ours: mpv gives the next load's hook the same id, and the answer
    /// for a replaced load must not open its URL for the next one.
    private var pendingHook: (id: UInt64, url: String, serial: UInt64)?
    private var hookSerial: UInt64 = 0
    private enum Hook: UInt64 { case load = 1, preloaded = 2 }
    /// How files are levelled by their tags, and the filter that does it now.
    private var replayGain = ReplayGain.off
    private var levelFilter = ""
    /// Loads whose file plays through the voice filter (a feed's voice boost).
    private var boosted: Set<LoadToken> = []
    /// Loads to be played without parts of their file (trimmed silence), until they are loaded.
    private var trimsAsked: [LoadToken: Trim] = [:]
    /// The cuts of each of our mpv playlist entries that has some: mpv plays the kept parts back
    /// to back (an EDL timeline), and every time crosses between its timeline and the file's here.
    private var trims: [Int64: Trim] = [:]
    private var levelHookAdded = false
    /// Where the sound goes instead of a sound server (snapserver's pipe), and what it reports.
    private let sink: (any AudioSink)?
    private let sinkNews: Mailbox<SinkNews>
    enum SinkNews: Sendable { case lost(String), back }
    /// While the sink passes nothing on, mpv is held paused; playback then
    /// goes on from the position last heard (the rest never reached a room).
    /// A sink starts so, until it first connects: before that, what mpv
    /// played into it would count as played and never be heard.
    /// `stalled`: the engine was told the entry stalls (and is told when it goes on).
    private var sinkLost: (problem: String, heard: (token: LoadToken, position: MediaTime)?, stalled: Bool)?
    /// The last position heard, of the entry it belongs to.
    private var lastHeard: (token: LoadToken, position: MediaTime)?
    /// Behind a sink, samples jitter by ±10 ms: they are laid onto a line.
    private var smoother = SampleSmoother()
    /// The rate last set, for the smoother's line.
    private var speed = 1.0

    private enum Observed: UInt64 { case timePos = 1, pausedForCache = 2, audioPts = 3, metadata = 4 }
    /// Whether the playing file's position samples come from `audio-pts`, the
    /// clock of what is heard. `time-pos` follows the video frames while video
    /// is shown (40 ms steps, and a jump when the window goes); it serves only
    /// files without audio.
    private var audioClock = false
    private static let windowClosedMessage = "reel-window-closed"

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
        networkTimeout = options.networkTimeout
        do {
            wakeup = try WakeupPipe()
        } catch {
            mpv_terminate_destroy(handle)
            throw MPVError("cannot create the wakeup pipe: \(error)")
        }
        classified = Mailbox(waking: wakeup)
        streamNews = Mailbox(waking: wakeup)
        stream = options.streams.map(CacheStream.init(source:))
        let newsInbox = streamNews
        stream?.onNews = { url, news in newsInbox.post((url, news)) }
        sink = options.sink
        sinkLost = options.sink.map { _ in ("not connected yet", nil, false) }
        sinkNews = Mailbox(waking: wakeup)
        let sinkInbox = sinkNews
        sink?.onChange = { problem in sinkInbox.post(problem.map(SinkNews.lost) ?? .back) }

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
            settings += Self.sinkSettings(fifo: sink.fifoPath)
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
        mpv_request_log_messages(handle, "warn")
        if let stream {
            stream.register(with: handle)
            // Before mpv opens a file, the cache says whether it reads through it.
            mpv_hook_add(handle, Hook.load.rawValue, "on_load", 50)
        }
        // Closing the video window hides the video; the sound goes on.
        command(["define-section", "reel", "CLOSE_WIN script-message \(Self.windowClosedMessage)", "force"])
        command(["enable-section", "reel"])
        mpv_observe_property(handle, Observed.timePos.rawValue, "time-pos", MPV_FORMAT_DOUBLE)
        mpv_observe_property(handle, Observed.audioPts.rawValue, "audio-pts", MPV_FORMAT_DOUBLE)
        mpv_observe_property(handle, Observed.pausedForCache.rawValue, "paused-for-cache", MPV_FORMAT_FLAG)
        // Live streams update their ICY title through it.
        mpv_observe_property(handle, Observed.metadata.rawValue, "metadata", MPV_FORMAT_NODE)
        mpv_set_wakeup_callback(handle, { context in
            // Runs on an mpv thread: only a write to the pipe, nothing else.
            WakeupPipe.wake(Int32(Int(bitPattern: context) - 1))
        }, UnsafeMutableRawPointer(bitPattern: Int(wakeup.writeFD) + 1))
    }

    deinit {
        mpv_set_wakeup_callback(handle, nil, nil)
        mpv_terminate_destroy(handle)
    }

    // MARK: Effects

    /// Performs a backend effect. A load that mpv refuses at once comes back
    /// as a `failed` event for the engine.
    public func perform(_ request: BackendCommand) -> [BackendEvent] {
        switch request {
        case .load(let token, let uri, let start, let end, let paused):
            releaseHook()
            setFlag("pause", paused || sinkLost != nil)
            self.paused = paused
            pausedSeekTarget = nil
            lastHeard = nil
            let trim = trimsAsked.removeValue(forKey: token)
            trimsAsked = [:]
            guard let id = loadFile(uri, mode: "replace", start: start, end: end, trim: trim) else {
                return [.failed(token, reason: lastCommandError)]
            }
            // `replace` empties mpv's playlist: events of every other entry are stale.
            tokens = [id: token]
            uris = [id: uri]
            trims = trim.map { [id: $0] } ?? [:]
            boosted.formIntersection([token])
        case .queueNext(let token, let uri, let start, let end):
            if URLParts.isRemote(uri) { stream?.source.prefetch(uri) }
            dropQueued()
            let trim = trimsAsked.removeValue(forKey: token)
            guard let id = loadFile(uri, mode: "append", start: start, end: end, trim: trim) else {
                return [.failed(token, reason: lastCommandError)]
            }
            tokens[id] = token
            uris[id] = uri
            trims[id] = trim
            boosted = boosted.filter { tokens.values.contains($0) }
        case .unqueueNext:
            dropQueued()
        case .unload:
            releaseHook()
            command(["stop"])
            pausedSeekTarget = nil
        case .setPaused(let paused):
            if self.paused, !paused, sinkLost == nil { sink?.dropSilence() }
            var flag: Int32 = paused || sinkLost != nil ? 1 : 0
            mpv_set_property_async(handle, 0, "pause", MPV_FORMAT_FLAG, &flag)
            self.paused = paused
            if !paused { pausedSeekTarget = nil }
        case .seek(let target):
            pausedSeekTarget = paused ? target : nil
            seek(to: target)
        case .setRate(let rate):
            speed = rate
            var value = rate
            mpv_set_property_async(handle, 0, "speed", MPV_FORMAT_DOUBLE, &value)
        case .setVolume(let volume):
            var value = volume * 100
            mpv_set_property_async(handle, 0, "volume", MPV_FORMAT_DOUBLE, &value)
        case .setTrim(let token, let trim):
            trimsAsked[token] = trim
        case .reportPosition:
            // Coming back as an event, it is read in a later turn, as mpv's own samples are.
            if let token = currentToken, let position = position() { return [.position(token, position)] }
        case .setVoiceBoost(let token, let on):
            if on { boosted.insert(token) } else { boosted.remove(token) }
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
        mpv_hook_add(handle, Hook.preloaded.rawValue, "on_preloaded", 50)
        levelHookAdded = true
    }

    /// Runs `loadfile`; returns mpv's playlist entry id for the file. `end`: where mpv
    /// ends it (mpv's per-file option, so that a queued one still follows without a gap). With
    /// `trim`, mpv plays the file's kept parts, and `start` and `end` are put on their timeline.
    private func loadFile(_ uri: String, mode: String, start: MediaTime, end: MediaTime?, trim: Trim?) -> Int64? {
        var args = ["loadfile", trim.map { Self.timeline(of: uri, keeping: $0) } ?? uri, mode]
        let start = trim?.timeline(start) ?? start
        let end = end.map { trim?.timeline($0) ?? $0 }
        let options = (start > 0 ? ["start=\(Self.seconds(start))"] : []) + (end.map { ["end=\(Self.seconds($0))"] } ?? [])
        if !options.isEmpty { args.append(options.joined(separator: ",")) }
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
        command(["playlist-clear"])
        guard let ids = playlistIDs() else { return }
        let kept = Set(ids.compactMap { $0 })
        tokens = tokens.filter { kept.contains($0.key) }
        uris = uris.filter { kept.contains($0.key) }
        trims = trims.filter { kept.contains($0.key) }
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

    /// The cuts of the file mpv plays now.
    private var playingTrim: Trim? { playingEntry.flatMap { trims[$0] } }

    /// A time of mpv's (on a trimmed file's timeline) as the file's own.
    private func fileTime(_ time: MediaTime) -> MediaTime { playingTrim?.file(time) ?? time }

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

    /// The format the playing file decodes to and its bitrate now (kbit/s), read when asked
    /// rather than observed: `audio-bitrate` changes with every packet, and while `audio-params`
    /// was observed Position on PipeWire looked further ahead (not established; docs/status.md).
    public func audioNow() -> (format: AudioFormat?, bitrate: Int?) {
        // A property read goes through mpv's core thread (two thread switches): answered from what
        // was read last while the format stands (until an event of the kind that changes it) and the
        // bitrate, MPD's "current" one, is less than a second old.
        let now = monotonicNow()
        if let cached = audioRead, now - cached.at < 1_000_000 { return (cached.format, cached.bitrate) }
        var node = mpv_node()
        var format: AudioFormat?
        if mpv_get_property(handle, "audio-params", MPV_FORMAT_NODE, &node) >= 0 {
            format = Self.audioFormat(MPVNode.map(node))
            mpv_free_node_contents(&node)
        }
        var bits = 0.0
        // bit/s to kbit/s, once, here at the edge.
        let kbps = mpv_get_property(handle, "audio-bitrate", MPV_FORMAT_DOUBLE, &bits) >= 0 && bits.isFinite && bits >= 0
            ? Int((bits / 1000).rounded()) : nil
        audioRead = format == nil ? nil : (format, kbps, now)   // not known yet: asked again next time
        return (format, kbps)
    }

    /// What `audioNow` read last, and when; forgotten at each event that can change the format.
    private var audioRead: (format: AudioFormat?, bitrate: Int?, at: MonotonicTime)?

    /// mpv's real position now, in µs; nil when nothing is playing.
    public func position() -> MediaTime? {
        if let pausedSeekTarget { return pausedSeekTarget }
        var value = 0.0
        guard mpv_get_property(handle, "audio-pts", MPV_FORMAT_DOUBLE, &value) >= 0
                || mpv_get_property(handle, "time-pos", MPV_FORMAT_DOUBLE, &value) >= 0 else { return nil }
        return MediaTime.fromSeconds(value).map(fileTime)
    }

    // MARK: Events

    /// Empties the wakeup pipe and translates every pending mpv event.
    public func drainEvents() -> [BackendEvent] {
        wakeup.drain()
        var events: [BackendEvent] = []
        while let event = mpv_wait_event(handle, 0), event.pointee.event_id != MPV_EVENT_NONE {
            switch event.pointee.event_id {
            case MPV_EVENT_AUDIO_RECONFIG, MPV_EVENT_START_FILE, MPV_EVENT_FILE_LOADED, MPV_EVENT_END_FILE, MPV_EVENT_PLAYBACK_RESTART:
                audioRead = nil
            default: break
            }
            if let translated = translate(event.pointee) { events.append(translated) }
        }
        for (serial, url, kind) in classified.take() where pendingHook?.serial == serial {
            continueHook(url, kind)
        }
        for news in sinkNews.take() { events += sinkChanged(news) }
        for (url, news) in streamNews.take() {
            switch news {
            case .stalled(let stalled):
                // A read of the playing file waiting on the network stalls playback, as mpv's own cache would.
                if let token = currentToken, let entry = playingEntry, uris[entry] == url, !opening {
                    events.append(.buffering(token, stalled))
                }
            case .failed(let reason):
                for (entry, uri) in uris where uri == url {
                    if let token = tokens[entry] { events.append(.failed(token, reason: reason)) }
                }
            case .title(let title, let station):
                // A live stream relayed by the cache: its ICY title, as mpv would have read it. A
                // station queued next opens ahead of its start, and hears its first title then.
                for (entry, uri) in uris where uri == url {
                    if let token = tokens[entry] { events.append(.streamTitle(token, title: title, station: station)) }
                }
            }
        }
        if let (token, reason, detail) = failure {
            failure = nil
            events.append(.failed(token, reason: detail.flatMap { $0.isEmpty ? nil : "\(reason): \($0)" } ?? reason))
        }
        return events
    }

    private func translate(_ event: mpv_event) -> BackendEvent? {
        switch event.event_id {
        case MPV_EVENT_START_FILE:
            playingEntry = event.data?.assumingMemoryBound(to: mpv_event_start_file.self).pointee.playlist_entry_id
            openingError = nil
            opening = true
            audioClock = false
            openedAt = monotonicNow()
            return currentToken.map { .started($0) }
        case MPV_EVENT_IDLE:
            return .idle
        case MPV_EVENT_HOOK:
            guard let hook = event.data?.assumingMemoryBound(to: mpv_event_hook.self).pointee else { return nil }
            switch Hook(rawValue: event.reply_userdata) {
            case .load: loadHookCalled(hook.id)
            case .preloaded:
                levelOpenedFile()
                mpv_hook_continue(handle, hook.id)
            case nil: mpv_hook_continue(handle, hook.id)
            }
            return nil
        case MPV_EVENT_CLIENT_MESSAGE:
            guard let message = event.data?.assumingMemoryBound(to: mpv_event_client_message.self).pointee,
                  message.num_args > 0, let first = message.args[0],
                  String(cString: first) == Self.windowClosedMessage else { return nil }
            return .windowClosed
        case MPV_EVENT_FILE_LOADED:
            opening = false
            guard let token = currentToken else { return nil }
            let seekable = flag("seekable") ?? false
            var tags = loadedMetadata()
            var size: Int64 = 0
            if !seekable, mpv_get_property(handle, "file-size", MPV_FORMAT_INT64, &size) < 0 {
                // A stream of no known size that cannot seek (a station, read by mpv itself): the
                // duration mpv gives it is that of what it has read so far.
                tags.length = nil
            }
            return .loaded(token, tags, seekable: seekable, embeddedArt: hasAlbumArt())
        case MPV_EVENT_COMMAND_REPLY:
            if event.reply_userdata == Self.seekReply { seeksUnanswered = max(seeksUnanswered - 1, 0) }
            return nil
        case MPV_EVENT_PLAYBACK_RESTART:
            guard seeksUnanswered == 0, let token = currentToken, let position = position() else { return nil }
            return .restarted(token, position: position)
        case MPV_EVENT_END_FILE:
            guard let end = event.data?.assumingMemoryBound(to: mpv_event_end_file.self).pointee else { return nil }
            if playingEntry == end.playlist_entry_id { playingEntry = nil }
            guard let token = tokens.removeValue(forKey: end.playlist_entry_id) else { return nil }
            switch end.reason {
            case MPV_END_FILE_REASON_EOF: return .endOfFile(token)
            case MPV_END_FILE_REASON_ERROR:
                failure = (token, MPVError.describe(end.error), openingError)
                if let uri = uris[end.playlist_entry_id], let why = stream?.takeFailure(uri) {
                    // The cache knows what the server did; mpv saw only a failed read (an
                    // empty detail keeps its "Failed to open reelcache://N" log line out).
                    failure = (token, why, "")
                    return nil
                }
                if let uri = uris[end.playlist_entry_id], URLParts.isRemote(uri),
                   monotonicNow() - openedAt >= MonotonicTime(networkTimeout) * 900_000 {
                    // mpv says only "Failed to open"; the wait says why.
                    let host = URL(string: uri)?.host ?? "the server"
                    failure = (token, "timed out connecting to \(host)", "no answer in \(networkTimeout) s")
                }
                return nil
            case MPV_END_FILE_REASON_REDIRECT:
                // A playlist (by its content, or served over http): mpv put its entries
                // in its own playlist. The queue is the engine's: take them out again.
                removeEntries(from: end.playlist_insert_id, count: end.playlist_insert_num_entries)
                failure = (token, "is a playlist, not media", "queue it with reel add or OpenUri, which add its entries")
                return nil
            default: return nil
            }
        case MPV_EVENT_PROPERTY_CHANGE:
            guard let token = currentToken,
                  let change = event.data?.assumingMemoryBound(to: mpv_event_property.self).pointee else { return nil }
            let seconds = change.format == MPV_FORMAT_DOUBLE ? change.data?.assumingMemoryBound(to: Double.self).pointee : nil
            switch Observed(rawValue: event.reply_userdata) {
            case .audioPts:
                audioClock = seconds != nil
                return seconds.flatMap { sample($0, token) }
            case .timePos where !audioClock:
                return seconds.flatMap { sample($0, token) }
            case .metadata where change.format == MPV_FORMAT_NODE:
                guard let node = change.data?.assumingMemoryBound(to: mpv_node.self).pointee else { return nil }
                // Keys differ in case between servers (icy-title, Icy-Name).
                let tags = Dictionary(MPVNode.map(node).compactMapValues(MPVNode.string).map { ($0.key.lowercased(), $0.value) },
                                      uniquingKeysWith: { a, _ in a })
                guard tags["icy-title"] != nil || tags["icy-name"] != nil else { return nil }
                return .streamTitle(token, title: tags["icy-title"].flatMap { $0.isEmpty ? nil : $0 },
                                    station: tags["icy-name"].flatMap { $0.isEmpty ? nil : $0 })
            case .pausedForCache where change.format == MPV_FORMAT_FLAG:
                guard let flag = change.data?.assumingMemoryBound(to: Int32.self).pointee else { return nil }
                return .buffering(token, flag != 0)
            default:
                return nil
            }
        case MPV_EVENT_LOG_MESSAGE:
            if let log = event.data?.assumingMemoryBound(to: mpv_event_log_message.self).pointee {
                let text = String(cString: log.text).trimmed()
                // Warnings only explain a failure; errors are worth a log line of their own, but for
                // ao_null's complaint when it is started while paused (pause, Next, Play), which is
                // its own bookkeeping and nothing a user can act on.
                let prefix = String(cString: log.prefix)
                let noise = prefix == "ao/null" && text.hasPrefix("illegal state")
                if log.log_level.rawValue <= MPV_LOG_LEVEL_ERROR.rawValue, !noise {
                    writeStandardError("mpv[\(String(cString: log.prefix))]: \(text)\n")
                }
                // A video output's complaints never explain why a file failed to open.
                guard !String(cString: log.prefix).hasPrefix("vo") else { return nil }
                if let pending = failure, pending.detail == nil {
                    // mpv may already have started the queued file: this line explains the failed one.
                    failure?.detail = text
                } else if openingError == nil, opening {
                    openingError = text
                }
            }
            return nil
        default:
            return nil
        }
    }

    private var currentToken: LoadToken? { playingEntry.flatMap { tokens[$0] } }

    // MARK: The cache

    /// Whether remote files are read through the cache.
    public var readsThroughCache: Bool { stream != nil }

    /// mpv is about to open a file: remote files wait for the cache to look at them.
    private func loadHookCalled(_ id: UInt64) {
        var name: UnsafeMutablePointer<CChar>?
        mpv_get_property(handle, "stream-open-filename", MPV_FORMAT_STRING, &name)
        let url = name.map { String(cString: $0) } ?? ""
        mpv_free(name)
        guard let stream, URLParts.isRemote(url) else {
            mpv_hook_continue(handle, id)
            return
        }
        guard stream.source.hasRoom else {
            mpv_hook_continue(handle, id)
            return
        }
        hookSerial += 1
        pendingHook = (id, url, hookSerial)
        let (inbox, serial) = (classified, hookSerial)
        stream.source.classify(url) { kind in inbox.post((serial, url, kind)) }
    }

    /// Media and live streams read through the cache; playlists and manifests go to mpv as they are.
    private func continueHook(_ url: String, _ kind: ResourceKind) {
        guard let stream, let hook = pendingHook else { return }
        pendingHook = nil
        switch kind {
        case .media, .live:
            // A live stream too: the cache relays it over the connection that asked what it is.
            mpv_set_property_string(handle, "stream-open-filename", stream.name(for: url))
            // The cache reads ahead as far as it should; mpv's own cache would pull the whole file.
            // A live stream keeps mpv's cache: it buffers what arrives, and says when it runs dry.
            mpv_set_property_string(handle, "file-local-options/cache", kind == .live ? "yes" : "no")
            // An MP3 without a seek table is otherwise sought by reading every byte up to the target
            // (a seek in a remote 4 GB file fetched 2.5 GB); this estimates the offset instead. Only for
            // remote files: locally the reading costs no network, and lavf holds more memory with it.
            if kind == .media { mpv_set_property_string(handle, "file-local-options/demuxer-lavf-o", "fflags=+fastseek") }
        case .failed(let reason): mpv_set_property_string(handle, "stream-open-filename", stream.name(for: url, failure: reason))
        case .direct: break
        }
        mpv_hook_continue(handle, hook.id)
    }

    /// mpv waits on a hook even to abort a load: a replaced load lets it go at once.
    private func releaseHook() {
        guard let hook = pendingHook else { return }
        continueHook(hook.url, .failed("replaced"))
    }

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
        let voice = currentToken.map(boosted.contains) == true ? Self.voiceFilter : nil
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

    private func sample(_ seconds: Double, _ token: LoadToken) -> BackendEvent? {
        if let pausedSeekTarget { return .position(token, pausedSeekTarget) }
        // mpv counts audio as played once the sink took it; it is heard after the sink's delay.
        guard let played = MediaTime.fromSeconds(seconds) else { return nil }
        guard let sink else { return .position(token, fileTime(played)) }
        let heard = fileTime(smoother.smooth(played - sink.delay(), at: monotonicNow(), rate: speed))
        if token == currentToken { lastHeard = (token, heard) }
        return .position(token, heard)
    }

    private func loadedMetadata() -> TrackMetadata {
        var metadata = TrackMetadata()
        var duration = 0.0
        if mpv_get_property(handle, "duration", MPV_FORMAT_DOUBLE, &duration) >= 0 {
            metadata.length = MediaTime.fromSeconds(duration).map(fileTime)
        }
        metadata.chapters = chapters()
        var node = mpv_node()
        guard mpv_get_property(handle, "metadata", MPV_FORMAT_NODE, &node) >= 0 else { return metadata }
        defer { mpv_free_node_contents(&node) }
        ContainerTags(MPVNode.map(node).compactMapValues(MPVNode.string)).apply(to: &metadata)
        return metadata
    }

    /// The open file's chapters (MP4/M4B, ID3 CHAP, Ogg and FLAC CHAPTERxxx comments, Matroska), as mpv reads them.
    private func chapters() -> [Chapter] {
        var node = mpv_node()
        guard mpv_get_property(handle, "chapter-list", MPV_FORMAT_NODE, &node) >= 0 else { return [] }
        defer { mpv_free_node_contents(&node) }
        return Chapter.normalized(MPVNode.array(node).compactMap { item in
            let fields = MPVNode.map(item)
            guard let start = fields["time"].flatMap(MPVNode.double).flatMap(MediaTime.fromSeconds) else { return nil }
            return Chapter(start: start, title: fields["title"].flatMap(MPVNode.string) ?? "")
        })
    }

    /// Whether the open file has an attached picture (mpv lists it as an albumart track).
    private func hasAlbumArt() -> Bool {
        var node = mpv_node()
        guard mpv_get_property(handle, "track-list", MPV_FORMAT_NODE, &node) >= 0 else { return false }
        defer { mpv_free_node_contents(&node) }
        return MPVNode.array(node).contains { track in
            let fields = MPVNode.map(track)
            return fields["albumart"].map(MPVNode.flag) == true
        }
    }

    // MARK: Small helpers

    private func flag(_ name: String) -> Bool? {
        var value: Int32 = 0
        return mpv_get_property(handle, name, MPV_FORMAT_FLAG, &value) >= 0 ? value != 0 : nil
    }

    private func setFlag(_ name: String, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        mpv_set_property(handle, name, MPV_FORMAT_FLAG, &value)
    }

    private func command(_ args: [String]) {
        _ = withCommand(args) { mpv_command(handle, $0) }
    }

    /// The reply_userdata of seek commands, which mpv answers once it has run them.
    private static let seekReply: UInt64 = 1

    /// An exact seek to a position of the file, sent without waiting: mpv may be busy opening it.
    private func seek(to target: MediaTime) {
        // Counted only once sent: mpv never answers a command it refused to take, and a count
        // that never falls would hide every restart after it.
        let rc = withCommand(["seek", Self.seconds(playingTrim?.timeline(target) ?? target), "absolute+exact"]) { mpv_command_async(handle, Self.seekReply, $0) }
        if rc >= 0 { seeksUnanswered += 1 }
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

// MARK: The sink

extension MPVBackend {
    /// mpv's settings for a sink: SDL's disk driver writes into the sink's FIFO.
    /// Unlike mpv's own `pcm` output, it runs on a thread of its own outside
    /// mpv's locks (`pcm` writes from inside them: while a full FIFO blocks it,
    /// every call into mpv waits, up to 2.6 s measured). It never sleeps
    /// between its periods of 512 samples (10.7 ms): a full FIFO holds it
    /// back, so that the sink's reader sets the pace (with SDL's own 10 ms
    /// waits, snapserver found the pipe short every other chunk).
    static func sinkSettings(fifo: String) -> [(String, String)] {
        // Read by SDL when mpv opens its audio output; set before anything else runs.
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", fifo, 1)
        setenv("SDL_DISKAUDIODELAY", "0", 1)
        quietSDLAudioLog()
        let pcm = AudioFormat.sink
        return [("ao", "sdl"), ("sdl-buflen", "0.01"), ("audio-format", pcm.bits.map { "s\($0)" } ?? "float"),
                ("audio-samplerate", "\(pcm.sampleRate)"), ("audio-channels", "\(pcm.channels)")]
    }

    /// SDL's disk driver logs "CRITICAL: You are using the SDL disk i/o audio
    /// driver!" every time mpv opens it, which is what reel means to do. SDL
    /// is loaded with libmpv; its audio category is silenced through it.
    private static func quietSDLAudioLog() {
        typealias SetPriority = @convention(c) (Int32, Int32) -> Void
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "SDL_LogSetPriority") else { return }
        let audioCategory: Int32 = 4, abovePriorities: Int32 = 7   // SDL_LOG_CATEGORY_AUDIO, SDL_NUM_LOG_PRIORITIES
        unsafeBitCast(symbol, to: SetPriority.self)(audioCategory, abovePriorities)
    }

    /// The sink stopped passing audio on: mpv holds (the position stays where
    /// it was heard) until it takes audio again, then goes on from there.
    func sinkChanged(_ news: SinkNews) -> [BackendEvent] {
        switch news {
        case .lost(let problem):
            guard let lost = sinkLost else {
                // Paused, the rooms had heard everything up to where they stopped: nothing to play again.
                let stall = paused ? nil : currentToken
                sinkLost = (problem, paused ? nil : lastHeard, stall != nil)
                setFlag("pause", true)
                return [.outputProblem(problem)] + (stall.map { [.buffering($0, true)] } ?? [])
            }
            sinkLost = (problem, lost.heard, lost.stalled)
            return [.outputProblem(problem)]
        case .back:
            guard let lost = sinkLost else { return [] }
            sinkLost = nil
            if let heard = lost.heard, heard.token == currentToken, flag("seekable") == true {
                // What was in the pipes and the server's buffer never reached a room: play it again.
                pausedSeekTarget = paused ? heard.position : nil
                seek(to: max(heard.position, 0))
            }
            setFlag("pause", paused)
            var events: [BackendEvent] = [.outputProblem(nil)]
            if lost.stalled, !paused, let token = currentToken { events.append(.buffering(token, false)) }
            return events
        }
    }
}
