import Foundation
import ReelDBus

/// GNOME Shell 43, headless, on a given session bus: its media card (the
/// MPRIS section of the date menu) is read and clicked through
/// `org.gnome.Shell.Eval`, which `--unsafe-mode` allows. Its login manager
/// wants a system bus: it gets a private one.
public final class GnomeShell: @unchecked Sendable {
    // @unchecked: driven from the test thread only; its folder and processes are never shared.
    private let folder: DesktopFolder
    private let connection: Connection

    public init(sessionBus: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gnome-shell") else {
            throw HarnessError("gnome-shell is not installed (make test-desktops installs it)")
        }
        folder = try DesktopFolder("gnome")
        let dir = folder.dir
        let systemBus = dir.appendingPathComponent("system_bus")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(systemBus.path)</listen>
              <auth>EXTERNAL</auth>
              <!-- A system bus denies what it does not allow, replies included: allow everything. -->
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/><allow receive_sender="*"/><allow eavesdrop="true"/>
                <allow own="*"/><allow user="*"/>
              </policy>
            </busconfig>
            """.write(to: dir.appendingPathComponent("system.conf"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = sessionBus
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(systemBus.path)"
        environment.merge(DesktopFolder.environment(home: folder.home, runtime: folder.runtime)) { _, b in b }
        try folder.spawn("/usr/bin/dbus-daemon", ["--config-file=\(dir.path)/system.conf", "--nofork"], environment: environment)
        let deadline = Date().addingTimeInterval(5)
        while !FileManager.default.fileExists(atPath: systemBus.path), Date() < deadline { usleep(20_000) }
        // Its output goes to a log in its folder, shown when it fails to start.
        let log = dir.appendingPathComponent("gnome-shell.log")
        try folder.start("/usr/bin/gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 --unsafe-mode",
                         log: log, environment: environment)
        connection = try Connection(address: sessionBus)
        try folder.wait(for: "gnome-shell did not start on its private buses", timeout: 60, log: log, poll: 200_000) {
            (try? eval("1 + 1")) == "2"
        }
    }

    deinit { stop() }

    public func stop() { folder.stop() }

    /// Runs JavaScript in the shell; its result as text.
    public func eval(_ script: String) throws -> String {
        let reply = try connection.callMethod("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell", "Eval", [.string(script)],
                                              timeoutMs: 5_000)
        guard reply.first?.bool == true, let result = reply.last?.string else {
            throw HarnessError("Eval failed: \(reply.last?.string ?? "no answer")")
        }
        return result
    }

    /// What the media card shows: one entry per player it shows.
    public struct Card: Decodable, Equatable {
        public var title: String
        public var artists: [String]
        public var status: String
        public init(title: String, artists: [String], status: String) {
            self.title = title
            self.artists = artists
            self.status = status
        }
    }

    private static let section = "Main.panel.statusArea.dateMenu._messageList._mediaSection"

    /// The players the media card shows now (GNOME shows a player only while it can play).
    public func cards() throws -> [Card] {
        let text = try eval("""
            const s = \(Self.section);
            JSON.stringify([...s._players.values()].filter(p => p._visible)
                .map(p => ({title: p.trackTitle ?? '', artists: p.trackArtists ?? [], status: p.status ?? ''})))
            """)
        // Eval returns the JSON as a JavaScript string literal.
        let json = try JSONDecoder().decode(String.self, from: Data(text.utf8))
        return try JSONDecoder().decode([Card].self, from: Data(json.utf8))
    }

    /// Presses a button of the first card: "playPause", "next" or "previous".
    public func press(_ button: String) throws {
        _ = try eval("[...\(Self.section)._players.values()].filter(p => p._visible)[0].\(button)()")
    }
}
