import Foundation

/// sway 1.7, headless (wlroots' headless backend, pixman rendering), as a
/// Wayland compositor for the desktop clients under test. sway refuses to
/// run as root: it runs as `nobody`, and the clients, started with
/// `launch`, reach it through the absolute path of its socket.
public final class Sway: @unchecked Sendable {
    // @unchecked: driven from the test thread only; the list of processes is never shared.
    private let dir: URL
    private var processes: [SpawnedProcess] = []
    /// For WAYLAND_DISPLAY: libwayland takes an absolute path as the socket itself.
    public let waylandDisplay: String

    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sway") else {
            throw HarnessError("sway is not installed (make test-desktops installs it)")
        }
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-sway-\(UUID().uuidString.prefix(6))")
        let runtime = dir.appendingPathComponent("run"), home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let config = dir.appendingPathComponent("config")
        try "output HEADLESS-1 resolution 1280x800\n".write(to: config, atomically: true, encoding: .utf8)
        // nobody owns what sway writes; the folder stays readable for the clients (root).
        let nobody = getpwnam("nobody").map { ($0.pointee.pw_uid, $0.pointee.pw_gid) } ?? (65534, 65534)
        for path in [dir, runtime, home, config] { chown(path.path, nobody.0, nobody.1) }
        waylandDisplay = runtime.appendingPathComponent("wayland-1").path
        let log = dir.appendingPathComponent("sway.log").path
        let environment = ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path, "PATH": "/usr/bin:/bin",
                           "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"]
        processes.append(try SpawnedProcess("/bin/sh", ["-c", "exec /usr/bin/setpriv --reuid=\(nobody.0) --regid=\(nobody.1) "
                                                        + "--clear-groups /usr/bin/sway -c '\(config.path)' >'\(log)' 2>&1"],
                                            environment: environment))
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: waylandDisplay) {
            guard Date() < deadline, processes[0].isRunning else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                stop()
                throw HarnessError("sway did not start:\n\(said.suffix(3000))")
            }
            usleep(50_000)
        }
    }

    deinit { stop() }

    public func stop() {
        for process in processes.reversed() { process.stop() }
        processes = []
        try? FileManager.default.removeItem(at: dir)
    }

    /// Starts a Wayland client of this sway on `sessionBus`, its output in a log
    /// of its own (returned, to show when the client fails).
    @discardableResult
    public func launch(_ path: String, _ args: [String], sessionBus: String, environment extra: [String: String] = [:]) throws -> URL {
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = waylandDisplay
        environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus
        // A home of their own: Plasma writes its applets' settings there.
        let clients = dir.appendingPathComponent("clients")
        try FileManager.default.createDirectory(at: clients.appendingPathComponent("run"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        environment["XDG_RUNTIME_DIR"] = clients.appendingPathComponent("run").path
        environment["HOME"] = clients.path
        environment["XDG_CONFIG_HOME"] = clients.appendingPathComponent(".config").path
        environment["XDG_CACHE_HOME"] = clients.appendingPathComponent(".cache").path
        environment["XDG_DATA_HOME"] = clients.appendingPathComponent(".local/share").path
        environment.removeValue(forKey: "DISPLAY")
        environment.merge(extra) { _, b in b }
        let log = dir.appendingPathComponent("\((path as NSString).lastPathComponent)-\(processes.count).log")
        let command = ([path] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        processes.append(try SpawnedProcess("/bin/sh", ["-c", "exec \(command) >'\(log.path)' 2>&1"], environment: environment))
        return log
    }
}
