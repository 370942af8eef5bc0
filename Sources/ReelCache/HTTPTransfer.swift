import CCurl
import FoundationEssentials
import ReelSystem
import Glibc

/// One HTTP GET of a byte range through libcurl, run on the calling thread
/// until it ends. Bodies stream to `onData`; nothing is held in memory.
/// Another thread may `wake()` it to re-read `steer` (stop, pause, go on) at once.
final class HTTPTransfer: @unchecked Sendable {
    // @unchecked: the handles are driven by the one fetcher thread that runs it; others only wake it, under `lock`.
    struct Request {
        var url: String
        var from: Int64
        /// Exclusive end, when only a gap is wanted.
        var to: Int64?
        /// ETag or Last-Modified of the bytes already stored.
        var ifRange: String?
        /// Seconds without a byte before the transfer is given up.
        var timeout: Int
        /// A download nobody waits on: large reads and the kernel's own receive buffer,
        /// since no seek will cut it short and throw away what is in flight.
        var bulk = false
    }

    struct Response {
        var status: Int
        /// Lower-cased names; those of the final response after redirects.
        var headers: [String: String]
    }

    /// `resetTimer`: go on, and do not count the time `steer` took as silence.
    enum Steer { case go, pause, stop, resetTimer }

    enum Outcome: Equatable {
        /// The body ended cleanly.
        case completed
        /// `onData`, `onResponse` or `steer` asked to stop.
        case stopped
        /// An HTTP error status.
        case status(Int)
        /// No byte for `timeout` seconds; `answered` is whether a response had begun.
        case timedOut(answered: Bool)
        /// The connection failed or dropped.
        case failed(String)
    }

    /// How messages name the server of `url`.
    static func serverName(of url: String) -> String { URL(string: url)?.host ?? "the server" }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    private let multi: UnsafeMutableRawPointer
    private let easy: UnsafeMutableRawPointer
    /// SHOUTcast v1 answers `ICY 200 OK`, which curl takes for HTTP/1.0 only when told.
    private let statusAliases = curl_slist_append(nil, "ICY 200 OK")
    /// Guards `multi` against a wake after close.
    private let lock = Lock()

    init() {
        _ = Self.globalInit
        multi = curl_multi_init()!
        easy = curl_easy_init()!
    }

    deinit {
        lock.lock()
        curl_easy_cleanup(easy)
        curl_multi_cleanup(multi)
        curl_slist_free_all(statusAliases)
        lock.unlock()
    }

    /// Interrupts the wait so that `steer` is asked again; from any thread.
    func wake() {
        lock.lock()
        curl_multi_wakeup(multi)
        lock.unlock()
    }

    /// Per-run state reached from the C callbacks.
    fileprivate final class Run {
        var headerLines: [String] = []
        var response: Response?
        var onResponse: (Response) -> Bool
        var onData: (UnsafeRawBufferPointer) -> Bool
        var stoppedByUs = false
        var lastByte = monotonicSeconds()
        var answered = false
        var status = 0
        init(onResponse: @escaping (Response) -> Bool, onData: @escaping (UnsafeRawBufferPointer) -> Bool) {
            self.onResponse = onResponse
            self.onData = onData
        }

        func parsedResponse(status: Int) -> Response {
            var headers: [String: String] = [:]
            for line in headerLines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmed().lowercased()
                headers[name] = line[line.index(after: colon)...].trimmed()
            }
            return Response(status: status, headers: headers)
        }
    }

    func run(_ request: Request, steer: () -> Steer, onResponse: @escaping (Response) -> Bool,
             onData: @escaping (UnsafeRawBufferPointer) -> Bool) -> Outcome {
        let run = Run(onResponse: onResponse, onData: onData)
        let context = Unmanaged.passUnretained(run).toOpaque()
        curl_easy_reset(easy)
        var headers: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "Accept-Encoding: identity")
        // Stations interleave their titles only when asked; other servers ignore it.
        headers = curl_slist_append(headers, "Icy-MetaData: 1")
        if let validator = request.ifRange, !validator.contains(where: { $0 == "\r" || $0 == "\n" }) {
            headers = curl_slist_append(headers, "If-Range: \(validator)")
        }
        defer { curl_slist_free_all(headers) }
        _ = reel_curl_set_string(easy, CURLOPT_URL, request.url)
        _ = reel_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = reel_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = reel_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        _ = reel_curl_set_long(easy, CURLOPT_MAXREDIRS, 10)
        _ = reel_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = reel_curl_set_long(easy, CURLOPT_FAILONERROR, 1)
        _ = reel_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT, request.timeout)
        _ = reel_curl_set_string(easy, CURLOPT_USERAGENT, "reel")
        if request.bulk {
            _ = reel_curl_set_long(easy, CURLOPT_BUFFERSIZE, 512 << 10)
        } else {
            _ = reel_curl_fix_receive_buffer(easy)
        }
        _ = reel_curl_set_list(easy, CURLOPT_HTTPHEADER, headers)
        _ = reel_curl_set_list(easy, CURLOPT_HTTP200ALIASES, statusAliases)
        if request.from > 0 || request.to != nil {
            _ = reel_curl_set_string(easy, CURLOPT_RANGE, "\(request.from)-\(request.to.map { String($0 - 1) } ?? "")")
        }
        _ = reel_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = reel_curl_set_data_fn(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let run = Unmanaged<HTTPTransfer.Run>.fromOpaque(context!).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
            run.answered = true
            run.lastByte = monotonicSeconds()
            if line.hasPrefix("HTTP/") || line.hasPrefix("ICY ") {
                // A new response (after a redirect or a 100 Continue): its own headers only.
                run.headerLines = []
                run.status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            } else if line == "\r\n" || line == "\n" {
                // The end of a final response's headers: it is told now, not with its first
                // body byte, which a station may be slow to send.
                if (200..<300).contains(run.status), !run.deliver(UnsafeRawBufferPointer(start: nil, count: 0)) { return 0 }
            } else {
                run.headerLines.append(line)
            }
            return size * count
        }
        _ = reel_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = reel_curl_set_data_fn(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let run = Unmanaged<HTTPTransfer.Run>.fromOpaque(context!).takeUnretainedValue()
            run.lastByte = monotonicSeconds()
            return run.deliver(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        }

        curl_multi_add_handle(multi, easy)
        defer { curl_multi_remove_handle(multi, easy) }
        var paused = false
        while true {
            switch steer() {
            case .stop:
                run.stoppedByUs = true
                return .stopped
            case .pause where !paused:
                paused = curl_easy_pause(easy, 1) == CURLE_OK
            case .go where paused:
                paused = !(curl_easy_pause(easy, 0) == CURLE_OK)
                run.lastByte = monotonicSeconds()
            case .resetTimer:
                run.lastByte = monotonicSeconds()
            default: break
            }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            if let done = finished(run) { return done }
            if !paused, monotonicSeconds() - run.lastByte >= Double(request.timeout) {
                return .timedOut(answered: run.answered)
            }
            curl_multi_poll(multi, nil, 0, 100, nil)
        }
    }

    /// The outcome once curl is done with the transfer, else nil.
    private func finished(_ run: Run) -> Outcome? {
        var left: Int32 = 0
        guard let message = curl_multi_info_read(multi, &left), message.pointee.msg == CURLMSG_DONE else { return nil }
        let code = message.pointee.data.result
        if run.stoppedByUs { return .stopped }
        if code == CURLE_OK {
            // A body of nothing (or an error page curl let through) reached no write callback.
            if run.response == nil { _ = run.deliver(UnsafeRawBufferPointer(start: nil, count: 0)) }
            return run.stoppedByUs ? .stopped : .completed
        }
        let status = reel_curl_response_code(easy)
        if code == CURLE_HTTP_RETURNED_ERROR, status >= 400 { return .status(status) }
        if code == CURLE_OPERATION_TIMEDOUT { return .timedOut(answered: run.answered) }
        // curl's word for a header line over its 100 kB limit.
        if code == CURLE_OUT_OF_MEMORY { return .failed("the server sent a header line over 100 kB") }
        return .failed(String(cString: curl_easy_strerror(code)))
    }
}

extension HTTPTransfer.Run {
    /// Hands body bytes on, after the response they belong to. False stops the transfer.
    fileprivate func deliver(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if response == nil {
            let made = parsedResponse(status: status)
            response = made
            guard onResponse(made) else { stoppedByUs = true; return false }
        }
        guard bytes.count > 0 else { return true }
        guard onData(bytes) else { stoppedByUs = true; return false }
        return true
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
