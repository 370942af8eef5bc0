import Foundation

/// A real HTTP origin on 127.0.0.1 for the cache tests and the benchmark:
/// serves the files of a directory with single Range requests, and can be
/// told (through `control`) to ignore Range, drop or stall after N bytes,
/// answer with an error status, change its ETag, hide the length (chunked)
/// answer late (`slow/MS/NAME`), or serve an ICY stream (`live/NAME`: Icecast's HTTP/1.0 with icy-* headers;
/// `shoutcast/NAME`: SHOUTcast v1's `ICY 200 OK`; `silent/NAME`: headers and
/// no audio). Playlists and feeds get their content types. It counts the body
/// bytes it sends and logs every request.
public final class Origin {
    public let port: Int
    public let directory: URL
    private let child: ChildProcess
    private let controlFile: URL
    private let statsFile: URL

    /// What the origin does with the next requests.
    public struct Control: Codable, Equatable {
        public var ignoreRange = false
        /// Body bytes after which a response drops its connection, for the next `faultTimes` responses.
        public var dropAfter: Int?
        /// Body bytes after which a response stops sending (and holds the connection).
        public var stallAfter: Int?
        public var faultTimes = 1
        /// An error status for every request.
        public var status: Int?
        /// A header line of 1 MB.
        public var hugeHeader = false
        /// "" sends none (nor any other validator).
        public var etag = "\"v1\""
        /// No Content-Length and no Range: the body is chunked, as a generated one would be.
        public var chunked = false
        /// Sends no faster than this.
        public var bytesPerSecond: Int?
        /// The StreamTitle of the ICY stream served at `live/NAME` (NAME looped, in real time).
        public var icyTitle = ""
        /// Sends the title in the first metadata block only, then empty blocks, as Icecast does while it does not change.
        public var icyTitleOnce = false
        public init() {}
    }

    public init(serving directory: URL, home: URL) throws {
        self.directory = directory
        let script = home.appendingPathComponent("origin.py")
        controlFile = home.appendingPathComponent("origin-control.json")
        statsFile = home.appendingPathComponent("origin-stats")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        try JSONEncoder().encode(Control()).write(to: controlFile)
        try? FileManager.default.removeItem(at: statsFile)
        child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                 [script.path, directory.path, controlFile.path, statsFile.path],
                                 busAddress: nil, home: home)
        let deadline = Date().addingTimeInterval(10)
        var found: Int?
        while found == nil, Date() < deadline {
            if let range = child.text.range(of: #"port \d+"#, options: .regularExpression) {
                found = Int(child.text[range].dropFirst(5))
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let found else { child.stop(); throw HarnessError("the origin did not start: \(child.text)") }
        port = found
    }

    deinit { child.stop() }

    public func stop() { child.stop() }

    public func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    public func set(_ control: Control) throws {
        let data = try JSONEncoder().encode(control)
        try data.write(to: controlFile, options: .atomic)
    }

    /// Body bytes sent so far, per path.
    public var served: [String: Int] {
        guard let text = try? String(contentsOf: statsFile, encoding: .utf8) else { return [:] }
        var result: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let n = Int(parts[1]) { result[String(parts[0]), default: 0] += n }
        }
        return result
    }

    /// Requests made so far, in order, as "PATH RANGE".
    public var requests: [String] {
        child.text.split(separator: "\n").filter { $0.hasPrefix("GET ") }.map { String($0.dropFirst(4)) }
    }

    static let script = #"""
        import http.server, json, os, socket, sys, threading, time
        root, control_path, stats_path = sys.argv[1], sys.argv[2], sys.argv[3]
        lock = threading.Lock()

        def control():
            with open(control_path) as f: return json.load(f)

        def take_fault(c):
            # A fault applies to the next faultTimes responses.
            if c.get('faultTimes', 1) <= 0: return None, None
            drop, stall = c.get('dropAfter'), c.get('stallAfter')
            if drop is None and stall is None: return None, None
            c['faultTimes'] = c.get('faultTimes', 1) - 1
            with open(control_path + '.tmp', 'w') as f: json.dump(c, f)
            os.replace(control_path + '.tmp', control_path)
            return drop, stall

        def count(path, n):
            with lock:
                with open(stats_path, 'a') as f: f.write('%s %d\n' % (path, n))

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'
            def log_message(self, *a): pass
            def setup(self):
                super().setup()
                # A small send buffer: what is counted as sent is close to what was received.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32768)
            def do_GET(self):
                with lock: c = control()
                name = self.path.split('?')[0].lstrip('/')
                # One write per line, under the lock: threads printing at once would merge lines.
                with lock:
                    sys.stdout.write('GET /%s %s\n' % (name, self.headers.get('Range', '-'))); sys.stdout.flush()
                if c.get('status'):
                    self.send_error(c['status']); return
                if name.startswith('slow/'):
                    # slow/MS/NAME: NAME, answered MS milliseconds late.
                    _, ms, name = name.split('/', 2); time.sleep(int(ms) / 1000)
                if name.startswith('redirect/'):
                    self.send_response(302); self.send_header('Location', '/' + name[len('redirect/'):])
                    self.send_header('Content-Length', '0'); self.end_headers(); return
                path = os.path.join(root, os.path.basename(name))
                if name.startswith(('live/', 'shoutcast/', 'silent/')) and os.path.isfile(path):
                    self.live(path, name.split('/')[0], c); return
                if not os.path.isfile(path):
                    self.send_error(404); return
                size = os.path.getsize(path)
                f = open(path, 'rb')
                start, end, partial = 0, size, False
                rng = self.headers.get('Range')
                if_range = self.headers.get('If-Range')
                # A chunked body is a generated one: no Range, no length.
                if rng and not c.get('ignoreRange') and not c.get('chunked') and (if_range is None or if_range == c['etag']):
                    first, _, last = rng.replace('bytes=', '').partition('-')
                    start = int(first); end = int(last) + 1 if last else size
                    end = min(end, size)
                    if start >= size:
                        self.send_response(416); self.send_header('Content-Range', 'bytes */%d' % size)
                        self.send_header('Content-Length', '0'); self.end_headers(); return
                    partial = True
                self.send_response(206 if partial else 200)
                self.send_header('Content-Type', content_type(path))
                if c['etag']: self.send_header('ETag', c['etag'])
                if c.get('hugeHeader'): self.send_header('X-Huge', 'h' * (1 << 20))
                self.send_header('Accept-Ranges', 'none' if c.get('ignoreRange') else 'bytes')
                if partial: self.send_header('Content-Range', 'bytes %d-%d/%d' % (start, end - 1, size))
                if c.get('chunked'): self.send_header('Transfer-Encoding', 'chunked')
                else: self.send_header('Content-Length', str(end - start))
                self.end_headers()
                drop, stall = take_fault(c)
                sent, at = 0, start
                try:
                    while at < end:
                        f.seek(at); piece = f.read(min(16384, end - at))
                        if drop is not None and sent + len(piece) > drop: piece = piece[:max(drop - sent, 0)]
                        if stall is not None and sent + len(piece) > stall: piece = piece[:max(stall - sent, 0)]
                        if piece:
                            self.wfile.write(b'%x\r\n%s\r\n' % (len(piece), piece) if c.get('chunked') else piece)
                            self.wfile.flush()
                            count('/' + name, len(piece)); sent += len(piece); at += len(piece)
                            if c.get('bytesPerSecond'): time.sleep(len(piece) / c['bytesPerSecond'])
                        if drop is not None and sent >= drop:
                            self.connection.shutdown(socket.SHUT_RDWR); self.close_connection = True; return
                        if stall is not None and sent >= stall:
                            time.sleep(3600)
                    if c.get('chunked'): self.wfile.write(b'0\r\n\r\n')
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def live(self, path, kind, c):
                # An endless ICY stream: the file looped at 16 kB/s, the title every 8000 bytes.
                data = open(path, 'rb').read()
                meta = self.headers.get('Icy-MetaData') == '1'
                if kind == 'shoutcast':
                    # SHOUTcast v1: not HTTP at all, and no Content-Type name case rules.
                    self.wfile.write(b'ICY 200 OK\r\nicy-name:Reel Radio\r\ncontent-type:audio/mpeg\r\n'
                                     + (b'icy-metaint:8000\r\n' if meta else b'') + b'\r\n')
                else:
                    # Icecast answers HTTP/1.0, with no length.
                    self.protocol_version = 'HTTP/1.0'
                    self.send_response(200)
                    self.send_header('Content-Type', 'audio/mpeg')
                    self.send_header('icy-name', 'Reel Radio')
                    if meta: self.send_header('icy-metaint', '8000')
                    self.send_header('Connection', 'close')
                    self.end_headers()
                self.wfile.flush()
                self.close_connection = True
                if kind == 'silent':
                    time.sleep(3600); return
                drop, _ = take_fault(c)
                at = 0
                told = False
                try:
                    while True:
                        if drop is not None and at >= drop:
                            self.connection.shutdown(socket.SHUT_RDWR); return
                        piece = (data * 2)[at % len(data):at % len(data) + 8000]
                        at += 8000
                        self.wfile.write(piece)
                        if meta:
                            with lock: title, once = control().get('icyTitle', ''), control().get('icyTitleOnce', False)
                            text = b'' if once and told else ("StreamTitle='%s';" % title).encode()
                            told = True
                            n = (len(text) + 15) // 16
                            self.wfile.write(bytes([n]) + text.ljust(n * 16, b'\0'))
                        self.wfile.flush()
                        time.sleep(0.5)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        def content_type(path):
            types = {'.ogg': 'audio/ogg', '.m3u': 'audio/x-mpegurl', '.pls': 'audio/x-scpls',
                     '.rss': 'application/rss+xml', '.xml': 'application/xml', '.json': 'application/json'}
            return types.get(os.path.splitext(path)[1], 'application/octet-stream')

        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        server.daemon_threads = True
        print('port', server.server_address[1], flush=True)
        server.serve_forever()
        """#
}
