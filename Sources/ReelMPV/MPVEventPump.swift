import CMPV
import Glibc
import ReelCore
import ReelSystem

/// One mpv event as the pump read it on its thread, while the event was valid.
struct PumpedEvent: Sendable {
    enum Kind: Sendable {
        case startFile, endFile, fileLoaded, audioReconfig, playbackRestart
        /// mpv waits on the hook until the loop answers it.
        case hook(userdata: UInt64, id: UInt64)
        /// The answer to an asynchronous read.
        case reply(PropertyRead, PropertyAnswer)
        case other
    }

    let kind: Kind
    /// What the translator hears of it; nil for what it has no use for. A failed
    /// end's `cache` reason is left for the loop, which knows the entry's URL.
    let event: MPVEvent?
    /// When it was read: a position sample's time.
    let at: MonotonicTime
}

/// An asynchronous read's answer, out of mpv's node; nil inside when mpv had none.
enum PropertyAnswer: Sendable {
    case format(AudioFormat?)
    /// In bit/s.
    case bitrate(Double?)
    case opening(OpeningReads.Value?)

    /// The answer for `purpose` when mpv had none (or would not take the read).
    static func none(for purpose: PropertyRead.Purpose) -> PropertyAnswer {
        switch purpose {
        case .audioFormat: .format(nil)
        case .bitrate: .bitrate(nil)
        case .seekable, .duration, .fileSize, .chapters, .metadata, .trackList: .opening(nil)
        }
    }
}

/// Waits on libmpv's events on a thread of its own and hands them to the loop as plain values,
/// a batch at a time. `mpv_wait_event` takes the client's lock, which mpv's core thread holds
/// while it works: on the loop's thread a drain waited 0.5–1.1 ms for it about twice a second
/// (and, before the timer slack was found, 60–90 µs at every drain), and an MPD client's
/// `status` or `idle` waited behind it. Position samples are also stamped as they come, not
/// when the loop gets to them.
final class MPVEventPump: @unchecked Sendable {
    // @unchecked: libmpv's handle may be called from any thread, and only this pump waits on its
    // events; `stopping` and `stopped` are read and written under `state`.
    private let handle: OpaquePointer
    private let sink: (any AudioSink)?
    private let inbox: Mailbox<[PumpedEvent]>
    private let state = Condition()
    private var stopping = false
    private var stopped = false

    init(handle: OpaquePointer, sink: (any AudioSink)?, inbox: Mailbox<[PumpedEvent]>) {
        self.handle = handle
        self.sink = sink
        self.inbox = inbox
        Threads.start(name: "reel-mpv-events") { [self] in run() }
    }

    /// Ends the thread; before the handle is destroyed.
    func stop() {
        state.withLock { stopping = true }
        mpv_wakeup(handle)
        state.withLock { while !stopped { state.wait() } }
    }

    private func run() {
        // mpv_wait_event(handle, 0) ends in a timed wait whose time has passed: on time, not 50 µs late.
        Threads.endTimedWaitsOnTime()
        var batch: [PumpedEvent] = []
        while let event = mpv_wait_event(handle, batch.isEmpty ? -1 : 0)?.pointee {
            if state.withLock({ stopping }) || event.event_id == MPV_EVENT_SHUTDOWN { break }
            guard event.event_id != MPV_EVENT_NONE else {
                if !batch.isEmpty { inbox.post(batch) }
                batch = []
                continue
            }
            batch.append(read(event))
        }
        state.withLock {
            stopped = true
            state.broadcast()
        }
    }

    /// An mpv event as plain values.
    private func read(_ event: mpv_event) -> PumpedEvent {
        let at = monotonicNow()
        switch event.event_id {
        case MPV_EVENT_START_FILE:
            let start = event.data?.assumingMemoryBound(to: mpv_event_start_file.self).pointee
            return PumpedEvent(kind: .startFile, event: start.map { .startFile(entry: $0.playlist_entry_id) }, at: at)
        case MPV_EVENT_FILE_LOADED:
            return PumpedEvent(kind: .fileLoaded, event: nil, at: at)
        case MPV_EVENT_AUDIO_RECONFIG:
            return PumpedEvent(kind: .audioReconfig, event: nil, at: at)
        case MPV_EVENT_PLAYBACK_RESTART:
            return PumpedEvent(kind: .playbackRestart, event: .restarted(position: position()), at: at)
        case MPV_EVENT_END_FILE:
            return PumpedEvent(kind: .endFile, event: event.data.map { endFile($0.assumingMemoryBound(to: mpv_event_end_file.self).pointee) }, at: at)
        case MPV_EVENT_HOOK:
            guard let hook = event.data?.assumingMemoryBound(to: mpv_event_hook.self).pointee else { break }
            return PumpedEvent(kind: .hook(userdata: event.reply_userdata, id: hook.id), event: nil, at: at)
        case MPV_EVENT_GET_PROPERTY_REPLY:
            guard let read = PropertyRead(userdata: event.reply_userdata) else { break }
            let reply = event.error < 0 ? nil : event.data?.assumingMemoryBound(to: mpv_event_property.self).pointee
            let node = reply.flatMap { $0.format == MPV_FORMAT_NODE ? $0.data?.assumingMemoryBound(to: mpv_node.self).pointee : nil }
            return PumpedEvent(kind: .reply(read, node.map { Self.answer(read.purpose, $0) } ?? .none(for: read.purpose)), event: nil, at: at)
        default:
            return PumpedEvent(kind: .other, event: other(event), at: at)
        }
        return PumpedEvent(kind: .other, event: nil, at: at)
    }

    private func other(_ event: mpv_event) -> MPVEvent? {
        switch event.event_id {
        case MPV_EVENT_IDLE:
            return .idle
        case MPV_EVENT_CLIENT_MESSAGE:
            guard let message = event.data?.assumingMemoryBound(to: mpv_event_client_message.self).pointee,
                  message.num_args > 0, let first = message.args[0],
                  String(cString: first) == MPVBackend.windowClosedMessage else { return nil }
            return .windowClosed
        case MPV_EVENT_COMMAND_REPLY:
            return event.reply_userdata == MPVBackend.seekReply ? .seekAnswered : nil
        case MPV_EVENT_PROPERTY_CHANGE:
            guard let change = event.data?.assumingMemoryBound(to: mpv_event_property.self).pointee else { return nil }
            let seconds = change.format == MPV_FORMAT_DOUBLE ? change.data?.assumingMemoryBound(to: Double.self).pointee : nil
            switch MPVBackend.Observed(rawValue: event.reply_userdata) {
            case .audioPts: return positionSample(seconds, clock: .audio)
            case .timePos: return positionSample(seconds, clock: .video)
            case .metadata where change.format == MPV_FORMAT_NODE:
                guard let node = change.data?.assumingMemoryBound(to: mpv_node.self).pointee else { return nil }
                // Keys differ in case between servers (icy-title, Icy-Name).
                return .tags(Dictionary(MPVNode.map(node).compactMapValues(MPVNode.string).map { ($0.key.lowercased(), $0.value) },
                                        uniquingKeysWith: { a, _ in a }))
            case .pausedForCache where change.format == MPV_FORMAT_FLAG:
                guard let flag = change.data?.assumingMemoryBound(to: Int32.self).pointee else { return nil }
                return .pausedForCache(flag != 0)
            default:
                return nil
            }
        case MPV_EVENT_LOG_MESSAGE:
            guard let log = event.data?.assumingMemoryBound(to: mpv_event_log_message.self).pointee else { return nil }
            let text = String(cString: log.text).trimmed()
            let prefix = String(cString: log.prefix)
            // Warnings only explain a failure; errors are worth a log line of their own, but for
            // ao_null's complaint when it is started while paused (pause, Next, Play), which is
            // its own bookkeeping and nothing a user can act on.
            let noise = prefix == "ao/null" && text.hasPrefix("illegal state")
            if log.log_level.rawValue <= MPV_LOG_LEVEL_ERROR.rawValue, !noise {
                writeStandardError("mpv[\(prefix)]: \(text)\n")
            }
            return .log(text, video: prefix.hasPrefix("vo"))
        default:
            return nil
        }
    }

    private func endFile(_ end: mpv_event_end_file) -> MPVEvent {
        let reason: MPVEvent.EndReason = switch end.reason {
        case MPV_END_FILE_REASON_EOF: .endOfFile
        case MPV_END_FILE_REASON_ERROR: .error(MPVError.describe(end.error), cache: nil)
        case MPV_END_FILE_REASON_REDIRECT: .redirect(first: end.playlist_insert_id, count: end.playlist_insert_num_entries)
        default: .other
        }
        return .endFile(entry: end.playlist_entry_id, reason)
    }

    /// A position sample, with how long until a sink's rooms hear it.
    private func positionSample(_ seconds: Double?, clock: MPVEvent.Clock) -> MPVEvent {
        // Converted once, here at the edge; a value that is no time is as good as none.
        let time = seconds.flatMap(MediaTime.fromSeconds)
        return .position(time, clock: clock, sinkDelay: time == nil ? nil : sink?.delay())
    }

    /// mpv's position of what is heard (of the frames shown, without audio), on its timeline.
    func position() -> MediaTime? {
        var value = 0.0
        guard mpv_get_property(handle, "audio-pts", MPV_FORMAT_DOUBLE, &value) >= 0
                || mpv_get_property(handle, "time-pos", MPV_FORMAT_DOUBLE, &value) >= 0 else { return nil }
        return MediaTime.fromSeconds(value)
    }

    // MARK: Answers to reads

    private static func answer(_ purpose: PropertyRead.Purpose, _ node: mpv_node) -> PropertyAnswer {
        switch purpose {
        case .audioFormat: .format(MPVBackend.audioFormat(MPVNode.map(node)))
        case .bitrate: .bitrate(MPVNode.double(node))
        case .seekable: .opening(.seekable(MPVNode.flag(node)))
        case .duration: .opening(.duration(MPVNode.double(node).flatMap(MediaTime.fromSeconds)))
        case .fileSize: .opening(.sizeKnown(MPVNode.int64(node) != nil))
        case .chapters: .opening(.chapters(chapters(node)))
        case .metadata: .opening(.tags(MPVNode.map(node).compactMapValues(MPVNode.string)))
        case .trackList: .opening(.embeddedArt(hasAlbumArt(node)))
        }
    }

    /// The open file's chapters (MP4/M4B, ID3 CHAP, Ogg and FLAC CHAPTERxxx comments, Matroska), as mpv reads them.
    private static func chapters(_ node: mpv_node) -> [Chapter] {
        Chapter.normalized(MPVNode.array(node).compactMap { item in
            let fields = MPVNode.map(item)
            guard let start = fields["time"].flatMap(MPVNode.double).flatMap(MediaTime.fromSeconds) else { return nil }
            return Chapter(start: start, title: fields["title"].flatMap(MPVNode.string) ?? "")
        })
    }

    /// Whether the open file has an attached picture (mpv lists it as an albumart track).
    private static func hasAlbumArt(_ trackList: mpv_node) -> Bool {
        MPVNode.array(trackList).contains { track in
            MPVNode.map(track)["albumart"].map(MPVNode.flag) == true
        }
    }
}
