import Foundation
import ReelHarness

/// Running MPD clients against the test's reeld.
extension DaemonTestCase {
    /// The MPD protocol's socket under this test's XDG_RUNTIME_DIR.
    var socketPath: String { home.appendingPathComponent("reel/mpd.socket").path }

    /// Starts reeld and waits until its MPD listeners are open (after its bus name).
    func startWithMPD(_ files: [URL] = [], _ extra: [String] = [], environment: [String: String] = [:]) throws {
        let child = try startDaemon(files, extra, environment: environment)
        guard waitForOutput(child, "MPD protocol on") != nil else { throw TestFailure("no MPD listener:\n\(child.text)") }
    }

    /// Writes reeld.conf in this test's config folder.
    func writeConfig(_ text: String) throws {
        let config = home.appendingPathComponent("config/reel")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try text.write(to: config.appendingPathComponent("reeld.conf"), atomically: true, encoding: .utf8)
    }

    /// Starts reeld listening on TCP too (127.0.0.1, a free port), with a
    /// password unless it is nil, and returns the port.
    func startWithTCP(_ files: [URL] = [], _ extra: [String] = [], password: String? = "open sesame",
                      config: String = "") throws -> UInt16 {
        try writeConfig("mpd-listen = 127.0.0.1:0\n" + (password.map { "mpd-password = \($0)\n" } ?? "") + config)
        try startWithMPD(files, extra)
        let log = daemon?.text ?? ""
        guard let port = log.range(of: #"127\.0\.0\.1:\d+"#, options: .regularExpression)
            .flatMap({ UInt16(log[$0].split(separator: ":")[1]) }) else { throw TestFailure("no TCP port in:\n\(log)") }
        return port
    }

    /// Runs mpc on the daemon's socket; its output, or an error when it fails.
    @discardableResult
    func mpc(_ args: String...) throws -> String {
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/mpc"), args, busAddress: bus.address, home: home,
                                     environment: ["MPD_HOST": socketPath])
        guard let status = child.waitForExit(timeout: 20) else { child.stop(); throw TestFailure("mpc \(args) hung") }
        let out = child.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw TestFailure("mpc \(args) failed (\(status)): \(out)") }
        return out
    }

    /// mpc's standard output alone, as bytes (a cover is binary).
    func mpcFile(_ args: String...) throws -> Data {
        let out = home.appendingPathComponent("mpc-out-\(UUID().uuidString.prefix(6))")
        let shell = (["/usr/bin/mpc"] + args).map { "'\($0)'" }.joined(separator: " ") + " > '\(out.path)'"
        let child = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", shell], busAddress: bus.address, home: home,
                                     environment: ["MPD_HOST": socketPath])
        guard child.waitForExit(timeout: 20) == 0 else { throw TestFailure("mpc \(args) failed: \(child.text)") }
        return try Data(contentsOf: out)
    }

    /// Runs a python-mpd script with `client` connected; returns what it prints.
    func pythonMPD(_ body: String, extra: [String] = []) throws -> String {
        let script = """
            import mpd, sys
            client = mpd.MPDClient()
            client.timeout = 10
            client.connect(sys.argv[1])
            \(body)
            """
        let child = try ChildProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, socketPath] + extra,
                                     busAddress: bus.address, home: home)
        guard let status = child.waitForExit(timeout: 20) else { child.stop(); throw TestFailure("python-mpd hung") }
        guard status == 0 else { throw TestFailure("python-mpd failed (\(status)):\n\(child.text)") }
        return child.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
