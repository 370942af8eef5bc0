import Foundation

/// A private sound server with a null sink, in a runtime dir of its own:
/// PipeWire with WirePlumber, or PulseAudio. It stops when released.
public final class SoundServer: @unchecked Sendable {
    // @unchecked: started and stopped from the test thread only; the rest is immutable.
    public enum Kind: String, CaseIterable, Sendable {
        case pipewire, pulse
        /// mpv's audio output for it.
        public var audioOutput: String { rawValue }
        public var name: String { self == .pipewire ? "PipeWire" : "PulseAudio" }
    }

    public let kind: Kind
    public let runtimeDir: URL
    public let sink = "reelsink"
    private var processes: [SpawnedProcess] = []
    /// WirePlumber wants a session bus; it gets one of its own.
    private var bus: PrivateBus?

    public init(_ kind: Kind) throws {
        self.kind = kind
        runtimeDir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-sound-\(kind.rawValue)-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: runtimeDir, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        do {
            switch kind {
            case .pulse: try startPulseAudio()
            case .pipewire: try startPipeWire()
            }
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// What a client needs in its environment to reach this server.
    public var environment: [String: String] { ["XDG_RUNTIME_DIR": runtimeDir.path] }

    public func stop() {
        for process in processes.reversed() { process.stop() }
        processes.removeAll()
        bus = nil
        try? FileManager.default.removeItem(at: runtimeDir)
    }

    private func startPulseAudio() throws {
        try spawn("/usr/bin/pulseaudio", ["-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
                                          "--load=module-null-sink sink_name=\(sink) rate=48000",
                                          "--load=module-native-protocol-unix"])
        try waitFor("the PulseAudio socket") { FileManager.default.fileExists(atPath: self.runtimeDir.path + "/pulse/native") }
        try waitFor("the null sink") { (try? self.run("/usr/bin/pactl", ["list", "short", "sinks"]))?.contains(self.sink) == true }
    }

    private func startPipeWire() throws {
        let bus = try PrivateBus()
        self.bus = bus
        let env = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        try spawn("/usr/bin/pipewire", [], environment: env)
        try waitFor("the PipeWire socket") { FileManager.default.fileExists(atPath: self.runtimeDir.path + "/pipewire-0") }
        try spawn("/usr/bin/wireplumber", [], environment: env)
        _ = try run("/usr/bin/pw-cli", ["create-node", "adapter",
                                         "{ factory.name=support.null-audio-sink node.name=\(sink) media.class=Audio/Sink "
                                         + "object.linger=1 audio.rate=48000 audio.position=[FL FR] }"])
        try waitFor("WirePlumber to make the null sink the default") {
            (try? self.run("/usr/bin/wpctl", ["inspect", "@DEFAULT_AUDIO_SINK@"]))?.contains("\"\(self.sink)\"") == true
        }
    }

    private func spawn(_ path: String, _ args: [String], environment extra: [String: String] = [:]) throws {
        let env = ProcessInfo.processInfo.environment.merging(environment.merging(extra) { _, b in b }) { _, b in b }
        processes.append(try SpawnedProcess(path, args, environment: env))
    }

    /// Runs a client tool of the server and returns its output.
    @discardableResult
    public func run(_ path: String, _ args: [String]) throws -> String {
        let run = try Captured.run(path, args, environment: environment)
        guard run.status == 0 else { throw HarnessError("\(path) \(args) failed") }
        return run.out
    }

    private func waitFor(_ what: String, timeout: Double = 15, _ ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !ready() {
            if Date() > deadline { throw HarnessError("\(kind.name) did not start: no \(what)") }
            if let dead = processes.first(where: { !$0.isRunning }) {
                throw HarnessError("\(kind.name) did not start: \(dead.path) exited")
            }
            usleep(20_000)
        }
    }

    /// Starts recording the null sink's monitor. `graphClock`: on PipeWire, with `reel-pw-capture`,
    /// which stamps each buffer with the graph's own clock rather than its arrival.
    public func record(graphClock: Bool = false) throws -> Recording {
        let stamped = graphClock && kind == .pipewire
        let (tool, args): (String, [String]) = switch kind {
        case .pulse: ("/usr/bin/parec", ["--raw", "--format=s16le", "--rate=\(Recording.rate)", "--channels=1",
                                          "--latency-msec=5", "-d", "\(sink).monitor"])
        // Both ask for what reeld asks (100 ms): the graph runs at the smallest quantum its nodes
        // ask for, and a smaller one made the daemon's stalls heard. With 5 ms the recorder itself
        // lost data when the host held it up.
        case .pipewire where stamped: (Binaries.dir.appendingPathComponent("reel-pw-capture").path, [sink, "4800"])
        case .pipewire: ("/usr/bin/pw-record", ["--target", sink, "--rate", "\(Recording.rate)", "--channels", "1",
                                                 "--format", "s16", "--latency", "100ms", "-"])
        }
        return try Recording(tool, args, environment: ProcessInfo.processInfo.environment.merging(environment) { _, b in b },
                             stamped: stamped)
    }
}

