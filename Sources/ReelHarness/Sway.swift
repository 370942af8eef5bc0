import Foundation

/// sway 1.7, headless (wlroots' headless backend, pixman rendering), as a
/// Wayland compositor for the desktop clients under test. sway refuses to
/// run as root: it runs as `nobody`, and the clients, started with
/// `launch`, reach it through the absolute path of its socket.
public final class Sway: @unchecked Sendable {
    // @unchecked: driven from the test thread only; its folder and processes are never shared.
    private let folder: DesktopFolder
    /// For WAYLAND_DISPLAY: libwayland takes an absolute path as the socket itself.
    public let waylandDisplay: String

    public init() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sway") else {
            throw HarnessError("sway is not installed (make test-desktops installs it)")
        }
        folder = try DesktopFolder("sway")
        let config = folder.dir.appendingPathComponent("config")
        try "output HEADLESS-1 resolution 1280x800\n".write(to: config, atomically: true, encoding: .utf8)
        // nobody owns what sway writes; the folder stays readable for the clients (root).
        let nobody = getpwnam("nobody").map { ($0.pointee.pw_uid, $0.pointee.pw_gid) } ?? (65534, 65534)
        for path in [folder.dir, folder.runtime, folder.home, config] { chown(path.path, nobody.0, nobody.1) }
        waylandDisplay = folder.runtime.appendingPathComponent("wayland-1").path
        let log = folder.dir.appendingPathComponent("sway.log")
        let environment = DesktopFolder.environment(home: folder.home, runtime: folder.runtime).merging(
            ["PATH": "/usr/bin:/bin", "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1"]) { _, b in b }
        try folder.start("/usr/bin/setpriv --reuid=\(nobody.0) --regid=\(nobody.1) --clear-groups /usr/bin/sway -c '\(config.path)'",
                         log: log, environment: environment)
        let socket = waylandDisplay
        try folder.wait(for: "sway did not start", timeout: 10, log: log, poll: 50_000) {
            FileManager.default.fileExists(atPath: socket)
        }
    }

    deinit { stop() }

    public func stop() { folder.stop() }

    /// Starts a Wayland client of this sway on `sessionBus`, its output in a log
    /// of its own (returned, to show when the client fails).
    @discardableResult
    public func launch(_ path: String, _ args: [String], sessionBus: String, environment extra: [String: String] = [:]) throws -> URL {
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = waylandDisplay
        environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus
        // A home of their own: Plasma writes its applets' settings there.
        let clients = folder.dir.appendingPathComponent("clients")
        let runtime = clients.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        environment.merge(DesktopFolder.environment(home: clients, runtime: runtime)) { _, b in b }
        environment.removeValue(forKey: "DISPLAY")
        environment.merge(extra) { _, b in b }
        let log = folder.dir.appendingPathComponent("\((path as NSString).lastPathComponent)-\(folder.processes.count).log")
        let command = ([path] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        try folder.start(command, log: log, environment: environment)
        return log
    }
}
