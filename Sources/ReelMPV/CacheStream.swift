import CMPV
import FoundationEssentials
import ReelSystem
import Glibc
import ReelCore

/// The `reelcache://N` protocol: mpv reads remote media through the stream source (the cache).
/// Its callbacks run on mpv's threads and never touch the mpv handle.
final class CacheStream: @unchecked Sendable {
    // @unchecked: slots and failures are under `lock`; onNews is set once, before it is registered with mpv.
    static let scheme = "reelcache"
    let source: any StreamSource
    private let lock = Lock()
    /// What each `reelcache://N` stands for: a URL, or a failure known before opening.
    private var slots: [Int: (url: String, failure: String?)] = [:]
    private var nextSlot = 0
    /// Why the last open or read of each URL failed.
    private var failures: [String: String] = [:]

    /// What readers run into, told from mpv's threads by URL.
    enum News: Sendable { case stalled(Bool), failed(String), title(String?, station: String?) }
    var onNews: (@Sendable (String, News) -> Void)?

    init(source: any StreamSource) { self.source = source }

    /// Registers the protocol with mpv. The stream keeps itself alive as long as mpv may call it.
    func register(with handle: OpaquePointer) {
        let context = Unmanaged.passRetained(self).toOpaque()
        mpv_stream_cb_add_ro(handle, Self.scheme, context) { context, uri, info in
            let stream = Unmanaged<CacheStream>.fromOpaque(context!).takeUnretainedValue()
            return stream.open(uri.map { String(cString: $0) } ?? "", info!)
        }
    }

    /// The name mpv opens for `url`; with a failure, opening fails at once with it.
    func name(for url: String, failure: String? = nil) -> String {
        lock.withLock {
            nextSlot += 1
            slots[nextSlot] = (url, failure)
            // A slot is used once; keep only the latest few.
            slots = slots.filter { $0.key > nextSlot - 16 }
            return "\(Self.scheme)://\(nextSlot)"
        }
    }

    /// Why reading `url` failed, once.
    func takeFailure(_ url: String) -> String? {
        lock.withLock { failures.removeValue(forKey: url) }
    }

    private func record(_ url: String, _ failure: String) {
        lock.withLock { failures[url] = failure }
    }

    private func open(_ uri: String, _ info: UnsafeMutablePointer<mpv_stream_cb_info>) -> Int32 {
        let number = Int(uri.dropFirst(Self.scheme.count + 3)) ?? -1
        guard let slot = lock.withLock({ slots[number] }) else { return MPV_ERROR_LOADING_FAILED.rawValue }
        if let failure = slot.failure {
            record(slot.url, failure)
            return MPV_ERROR_LOADING_FAILED.rawValue
        }
        let onNews = self.onNews
        guard let reader = try? source.openStreamReader(slot.url, onTitle: { onNews?(slot.url, .title($0, station: $1)) }) else {
            record(slot.url, "the cache cannot be written")
            return MPV_ERROR_LOADING_FAILED.rawValue
        }
        reader.onStall = { stalled in onNews?(slot.url, .stalled(stalled)) }
        let box = ReaderBox(reader: reader, stream: self)
        info.pointee.cookie = Unmanaged.passRetained(box).toOpaque()
        info.pointee.read_fn = { cookie, buffer, count in
            let box = Unmanaged<ReaderBox>.fromOpaque(cookie!).takeUnretainedValue()
            let n = box.reader.read(into: buffer!, count: Int(min(count, 1 << 20)))
            // mpv takes a failed read for the end of the file: the entry must fail instead.
            if n < 0, let failure = box.reader.failure { box.stream.onNews?(box.reader.url, .failed(failure)) }
            return Int64(n)
        }
        // Without a seek function mpv knows a live stream cannot seek (and keeps no position for it).
        info.pointee.seek_fn = reader.isLive ? nil : { cookie, offset in
            let reached = Unmanaged<ReaderBox>.fromOpaque(cookie!).takeUnretainedValue().reader.seek(to: offset)
            return reached < 0 ? Int64(MPV_ERROR_GENERIC.rawValue) : reached
        }
        info.pointee.size_fn = { cookie in
            Unmanaged<ReaderBox>.fromOpaque(cookie!).takeUnretainedValue().reader.size
                ?? Int64(MPV_ERROR_UNSUPPORTED.rawValue)
        }
        info.pointee.cancel_fn = { cookie in
            Unmanaged<ReaderBox>.fromOpaque(cookie!).takeUnretainedValue().reader.cancel()
        }
        info.pointee.close_fn = { cookie in
            let box = Unmanaged<ReaderBox>.fromOpaque(cookie!).takeRetainedValue()
            box.reader.close()
        }
        return 0
    }

    private final class ReaderBox {
        let reader: any StreamReader
        let stream: CacheStream
        init(reader: any StreamReader, stream: CacheStream) {
            self.reader = reader
            self.stream = stream
        }
    }
}
