import Foundation

/// A desktop program's private folder (a runtime directory and a home) and
/// the processes started in it, stopped and removed together: what
/// `GnomeShell` and `Sway` share. Used from the test thread only.
final class DesktopFolder {
    let dir: URL
    let runtime: URL
    let home: URL
    private(set) var processes: [SpawnedProcess] = []

    init(_ name: String) throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("reel-\(name)-\(UUID().uuidString.prefix(6))")
        runtime = dir.appendingPathComponent("run")
        home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    }

    /// HOME, the XDG directories under it, and XDG_RUNTIME_DIR.
    static func environment(home: URL, runtime: URL) -> [String: String] {
        ["HOME": home.path, "XDG_RUNTIME_DIR": runtime.path,
         "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
         "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
         "XDG_CACHE_HOME": home.appendingPathComponent(".cache").path]
    }

    /// Starts `path` with `args`.
    func spawn(_ path: String, _ args: [String], environment: [String: String]) throws {
        processes.append(try SpawnedProcess(path, args, environment: environment))
    }

    /// Starts a shell command line with its output in `log`.
    func start(_ command: String, log: URL, environment: [String: String]) throws {
        try spawn("/bin/sh", ["-c", "exec \(command) >'\(log.path)' 2>&1"], environment: environment)
    }

    /// Waits until `ready` while the last process started runs; else stops
    /// everything and throws with the end of its log.
    func wait(for what: String, timeout: Double, log: URL, poll: useconds_t, until ready: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !ready() {
            guard Date() < deadline, processes.last?.isRunning == true else {
                let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                stop()
                throw HarnessError("\(what):\n\(said.suffix(3000))")
            }
            usleep(poll)
        }
    }

    func stop() {
        for process in processes.reversed() { process.stop() }
        processes = []
        try? FileManager.default.removeItem(at: dir)
    }
}
