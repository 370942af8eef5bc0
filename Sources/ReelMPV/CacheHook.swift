import CMPV
import ReelCore
import ReelSystem

/// mpv's `on_load` hook for the cache: before mpv opens a remote file, it
/// waits while the cache looks at the URL (on its own threads); media and live
/// streams are then read through the cache, the rest goes to mpv as it is.
/// Used from the run-loop thread only; it does not own the handle.
final class CacheHook {
    let stream: CacheStream
    private let handle: OpaquePointer
    /// The cache's answers, posted from its threads.
    private let answers: Mailbox<(serial: UInt64, url: String, kind: ResourceKind)>
    /// The hook mpv waits on. `serial` is ours: mpv gives the next load's hook
    /// the same id, and the answer for a replaced load must not open its URL for the next one.
    private var pending: (id: UInt64, url: String, serial: UInt64)?
    private var serial: UInt64 = 0
    static let hookID: UInt64 = 1

    init(stream: CacheStream, handle: OpaquePointer, waking wakeup: WakeupPipe) {
        self.stream = stream
        self.handle = handle
        answers = Mailbox(waking: wakeup)
    }

    /// Registers the stream protocol and the hook; after `mpv_initialize`.
    func register() {
        stream.register(with: handle)
        mpv_hook_add(handle, Self.hookID, "on_load", 50)
    }

    /// mpv is about to open a file: a remote one waits for the cache to look at it.
    func called(_ id: UInt64) {
        var name: UnsafeMutablePointer<CChar>?
        mpv_get_property(handle, "stream-open-filename", MPV_FORMAT_STRING, &name)
        let url = name.map { String(cString: $0) } ?? ""
        mpv_free(name)
        guard URLParts.isRemote(url), stream.source.hasRoom else {
            mpv_hook_continue(handle, id)
            return
        }
        serial += 1
        pending = (id, url, serial)
        let (inbox, serial) = (answers, serial)
        stream.source.classify(url) { kind in inbox.post((serial, url, kind)) }
    }

    /// Lets mpv go on with the answers that came for the hook it waits on.
    func takeAnswers() {
        for (serial, url, kind) in answers.take() where pending?.serial == serial {
            proceed(url, kind)
        }
    }

    /// mpv waits on a hook even to abort a load: a replaced load lets it go at once.
    func release() {
        guard let hook = pending else { return }
        proceed(hook.url, .failed("replaced"))
    }

    /// Media and live streams read through the cache; playlists and manifests go to mpv as they are.
    private func proceed(_ url: String, _ kind: ResourceKind) {
        guard let hook = pending else { return }
        pending = nil
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
}
