import Foundation
import ReelCore

/// A private snapserver: its own config, ports and state in a temp dir, one
/// pipe source named "reel", HTTP off. Clients play its stream into files as
/// rooms would; its JSON-RPC control port answers `rpc`.
public final class SnapServer: @unchecked Sendable {
    // @unchecked: started, stopped and asked from the test thread only.
    public let dir: URL
    /// The pipe source reeld plays into (snapserver makes it).
    public let fifo: String
    /// With a TCP source instead: the port it listens on for reeld.
    public let tcpSourcePort: UInt16?
    public let streamPort: UInt16
    public let controlPort: UInt16
    /// snapserver's buffer, ms: the rooms play audio this long after snapserver read it.
    public let buffer: Int
    private var process: SpawnedProcess?
    private var rpcID = 0
    /// Rooms end with the server (a recording's reader thread keeps it alive until stopped).
    private var rooms: [Recording] = []

    /// `controlScript`: a script snapserver runs to control the player (meta_mpd.py, through a wrapper that names reel's port).
    public init(buffer: Int = 1000, controlScript: String? = nil, tcpSource: Bool = false) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-snapserver-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
        fifo = dir.appendingPathComponent("snapfifo").path
        streamPort = try Self.freePort()
        controlPort = try Self.freePort()
        tcpSourcePort = tcpSource ? try Self.freePort() : nil
        self.buffer = buffer
        let script = controlScript.map { "&controlscript=\($0)" } ?? ""
        let source = tcpSourcePort.map { "tcp://127.0.0.1:\($0)?name=reel&mode=server" }
            ?? "pipe://\(fifo)?name=reel&sampleformat=48000:16:2&mode=create"
        let config = """
            [server]
            datadir = \(dir.path)/data
            [http]
            enabled = false
            [tcp]
            enabled = true
            bind_to_address = 127.0.0.1
            port = \(controlPort)
            [stream]
            bind_to_address = 127.0.0.1
            port = \(streamPort)
            source = \(source)\(script)
            buffer = \(buffer)
            codec = flac
            [logging]
            sink = file:\(dir.path)/snapserver.log
            filter = *:info
            """
        try config.write(to: dir.appendingPathComponent("snapserver.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    deinit { stop(removing: true) }

    /// What reeld's --output names.
    public var output: String { tcpSourcePort.map { "snapcast:tcp://127.0.0.1:\($0)" } ?? "snapcast:\(fifo)" }

    /// Starts snapserver (again) and waits until its control port answers.
    public func start() throws {
        process = try SpawnedProcess("/usr/bin/snapserver", ["-c", dir.appendingPathComponent("snapserver.conf").path],
                                     environment: ProcessInfo.processInfo.environment)
        let deadline = Date().addingTimeInterval(15)
        while (try? LineSocket(port: controlPort)) == nil {
            guard Date() < deadline, process?.isRunning == true else { throw HarnessError("snapserver did not start: \(log)") }
            usleep(20_000)
        }
    }

    /// Kills snapserver at once, as a crash would.
    public func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.pid, SIGKILL)
        process.stop()
        self.process = nil
    }

    /// Stops snapserver in its tracks (SIGSTOP), or lets it go on (SIGCONT): alive, reading nothing.
    public func freeze(_ frozen: Bool) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.pid, frozen ? SIGSTOP : SIGCONT)
    }

    public func stop(removing: Bool = false) {
        process?.stop()
        process = nil
        if removing {
            for room in rooms { room.stop() }
            rooms.removeAll()
            try? FileManager.default.removeItem(at: dir)
        }
    }

    public var log: String { (try? String(contentsOf: dir.appendingPathComponent("snapserver.log"), encoding: .utf8)) ?? "" }

    /// A JSON-RPC call on the control port; its `result`.
    public func rpc(_ method: String, _ params: [String: Any] = [:], timeout: Double = 5) throws -> Any {
        rpcID += 1
        let socket = try LineSocket(port: controlPort)
        var request: [String: Any] = ["jsonrpc": "2.0", "id": rpcID, "method": method]
        if !params.isEmpty { request["params"] = params }
        socket.send(String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self) + "\r\n")
        while let line = socket.readLine(timeout: timeout) {
            guard let reply = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  reply["id"] as? Int == rpcID else { continue }   // a notification
            if let error = reply["error"] { throw HarnessError("\(method): \(error)") }
            return reply["result"] ?? NSNull()
        }
        throw HarnessError("no answer to \(method)")
    }

    /// The properties snapserver shows for the "reel" stream (from its control script).
    public func streamProperties() throws -> [String: Any] {
        let status = try rpc("Server.GetStatus") as? [String: Any]
        let streams = (status?["server"] as? [String: Any])?["streams"] as? [[String: Any]] ?? []
        return streams.first { $0["id"] as? String == "reel" }?["properties"] as? [String: Any] ?? [:]
    }

    /// A room: snapclient playing the stream into what the recording reads.
    /// Its file output writes 50 ms every 50 ms, each due 10 ms after it is written:
    /// the last sample of a chunk is played 60 ms after the chunk arrives.
    public func room(_ name: String) throws -> Recording {
        let room = try Recording("/usr/bin/snapclient", ["-h", "127.0.0.1", "-p", String(streamPort), "--hostID", name,
                                              "--player", "file:filename=stdout", "--logsink", "null"],
                      environment: ProcessInfo.processInfo.environment, channels: 2, lead: 60_000)
        rooms.append(room)
        return room
    }

    /// snapserver 0.26 runs a control script with `--stream` only, and its shipped
    /// `meta_mpd.py` then reaches MPD on localhost:6600: this wrapper, written into
    /// `dir`, runs it against the MPD protocol on `port` instead. Its path.
    public static func metaMPD(in dir: URL, port: UInt16) throws -> String {
        let wrapper = dir.appendingPathComponent("meta_mpd-\(port).sh")
        try """
            #!/bin/sh
            exec /usr/bin/python3 /usr/share/snapserver/plug-ins/meta_mpd.py "$@" --mpd-host=127.0.0.1 --mpd-port=\(port)
            """.write(to: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper.path, 0o755)
        return wrapper.path
    }

    /// A TCP port nobody listens on now.
    public static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw HarnessError("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
