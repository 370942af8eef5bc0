import Foundation

/// Where the built executables are: beside the running test bundle or benchmark.
public enum Binaries {
    public static let dir: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug").standardized,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("reeld").path) }
            ?? candidates[1]
    }()
    public static var reeld: URL { dir.appendingPathComponent("reeld") }
    public static var reel: URL { dir.appendingPathComponent("reel") }
    public static var reelScan: URL { dir.appendingPathComponent("reel-scan") }
    /// The project's scripts (the collection generator).
    public static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts").standardized
}

/// A process started with a private bus and XDG dirs under `home` in its
/// environment, its output captured in a file.
public final class ChildProcess {
    public let process = Process()
    private let output: URL

    public init(_ executable: URL, _ args: [String], busAddress: String?, home: URL,
                environment extra: [String: String] = [:]) throws {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        output = home.appendingPathComponent("output-\(UUID().uuidString.prefix(6)).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = executable
        process.arguments = args
        // Its working directory is its home, so that anything it writes there stays in the test.
        process.currentDirectoryURL = home
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        if busAddress == nil { env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS") }
        env["XDG_DATA_HOME"] = home.appendingPathComponent("data").path
        env["XDG_CACHE_HOME"] = home.appendingPathComponent("cache").path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_RUNTIME_DIR"] = home.path
        env.merge(extra) { _, new in new }
        process.environment = env
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    public var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    /// Waits for exit (at most `timeout` s) and returns the status, or nil if it is still running.
    public func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if waitForExit(timeout: 5) == nil { kill(process.processIdentifier, SIGKILL) }
    }
}
