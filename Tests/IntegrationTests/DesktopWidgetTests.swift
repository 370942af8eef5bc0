import Foundation
import ReelDBus
import ReelHarness
import ReelMPRIS
import XCTest

/// The desktops' own media widgets as clients: GNOME Shell 43's media card,
/// headless on the test's bus; KDE Plasma 5.27's media controller and
/// waybar under headless sway, read through AT-SPI as a screen reader reads
/// them. Run by `make test-desktops`, which installs the desktops
/// (REEL_DESKTOPS=1); `make test` skips them.
final class DesktopWidgetTests: DaemonTestCase {
    override func setUpWithError() throws {
        guard ProcessInfo.processInfo.environment["REEL_DESKTOPS"] != nil else {
            throw XCTSkip("desktop widgets run under make test-desktops")
        }
        try super.setUpWithError()
    }

    /// Polls `read` until `match` holds or `timeout` passes; the last value read.
    func eventually<T>(_ read: () throws -> T, until match: (T) -> Bool, timeout: Double = 10) rethrows -> T {
        let deadline = Date().addingTimeInterval(timeout)
        var value = try read()
        while !match(value), Date() < deadline {
            listen(for: 0.1)
            value = try read()
        }
        return value
    }

    func testGNOMEShellsMediaCardShowsReelAndItsButtonsDriveIt() throws {
        let shell = try GnomeShell(sessionBus: bus.address)
        defer { shell.stop() }
        try startPlaying([media.tones[0], media.tones[1]])
        let shown = try eventually({ try shell.cards() }, until: { $0.first?.title == "Tone 1" })
        XCTAssertEqual(shown, [GnomeShell.Card(title: "Tone 1", artists: ["Reel Test"], status: "Playing")])

        try shell.press("playPause")
        try waitForStatus("Paused")
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { $0.first?.status == "Paused" }).first?.status, "Paused")
        try shell.press("playPause")
        try waitForStatus("Playing")

        try shell.press("next")
        try waitForTitle("Tone 2")
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { $0.first?.title == "Tone 2" }).first?.title, "Tone 2")

        // A cleared queue cannot play: GNOME hides the card.
        XCTAssertEqual(try reel("clear").0, 0)
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { $0.isEmpty }), [])
        // Something queued again brings it back.
        XCTAssertEqual(try reel("add", media.tones[2].path).0, 0)
        XCTAssertEqual(try eventually({ try shell.cards() }, until: { !$0.isEmpty }).count, 1)
    }

    // MARK: KDE Plasma

    /// What Plasma's media controller shows: its labels and its slider.
    struct PlasmaApplet {
        var labels: [String] = []
        /// The slider's value (µs), and the labels beside it: elapsed and remaining.
        var slider: Double?
        var elapsed = ""
        var remaining = ""
        var buttons: [String] = []

        init(_ nodes: [Accessibility.Node]) {
            labels = nodes.filter { $0.role == "label" }.map(\.name)
            buttons = nodes.filter { $0.role == "push button" }.map(\.name)
            guard let at = nodes.firstIndex(where: { $0.role == "slider" }) else { return }
            slider = nodes[at].value
            elapsed = nodes[..<at].last { $0.role == "label" }?.name ?? ""
            remaining = nodes[(at + 1)...].first { $0.role == "label" }?.name ?? ""
        }

        func sliderOff(from micros: Int64) -> Double { abs((slider ?? .infinity) - Double(micros)) }
    }

    func testKDEPlasmasMediaControllerFollowsSeeksAndPausesAndItsButtonsDriveReel() throws {
        let sway = try Sway()
        defer { sway.stop() }
        try Accessibility.start(sessionBus: bus.address)
        try startPlaying([media.long[0], media.long[1]])
        let log = try sway.launch("/usr/bin/plasmawindowed", ["org.kde.plasma.mediacontroller"], sessionBus: bus.address,
                                  environment: ["QT_QPA_PLATFORM": "wayland", "QT_QUICK_BACKEND": "software",
                                                "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1"])
        func applet() throws -> PlasmaApplet { PlasmaApplet(try Accessibility.nodes(of: "plasmawindowed", sessionBus: bus.address)) }
        let shown = try eventually({ try applet() }, until: { $0.labels.contains("Long 1") && $0.slider != nil }, timeout: 30)
        XCTAssertTrue(shown.labels.contains("Long 1") && shown.labels.contains("Reel Test"),
                      "Plasma shows \(shown.labels); its log: \((try? String(contentsOf: log, encoding: .utf8))?.suffix(2000) ?? "")")

        // Paused, then sought: the applet shows exactly where reel is (its Seeked).
        try player("Pause")
        try waitForStatus("Paused")
        try seekCurrent(to: 30_000_000)
        var seen = try eventually({ try applet() }, until: { $0.elapsed == "0:30" && $0.sliderOff(from: 30_000_000) < 1_000 })
        XCTAssertEqual(seen.elapsed, "0:30")
        XCTAssertEqual(seen.remaining, "-0:30")
        XCTAssertLessThan(seen.sliderOff(from: 30_000_000), 1_000, "the slider at \(seen.slider ?? -1) µs, reel at 30 s")
        XCTAssertTrue(seen.buttons.contains("Play"), "paused, the applet offers Play: \(seen.buttons)")

        // A seek while playing, then a pause: the slider stops where reel stopped.
        try player("Play")
        try waitForStatus("Playing")
        try player("Seek", [.int64(10_000_000)])
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" })
        listen(for: 0.5)
        try player("Pause")
        try waitForStatus("Paused")
        let stopped = try position()
        // KDE reads Position when the status changes: it shows reel's to the µs.
        seen = try eventually({ try applet() }, until: { $0.sliderOff(from: stopped) < 1_000 })
        XCTAssertLessThan(seen.sliderOff(from: stopped), 1_000, "the slider at \(seen.slider ?? -1) µs, reel paused at \(stopped)")
        // KDE rounds to the nearest second.
        XCTAssertEqual(seen.elapsed, "0:\((stopped + 500_000) / 1_000_000)")
        listen(for: 1.5)
        XCTAssertEqual(try applet().elapsed, seen.elapsed, "paused, the applet's position does not run on")

        // Its buttons drive reel.
        try Accessibility.press("Play", in: "plasmawindowed", sessionBus: bus.address)
        try waitForStatus("Playing")
        try Accessibility.press("Next Track", in: "plasmawindowed", sessionBus: bus.address)
        try waitForTitle("Long 2")
        XCTAssertTrue(try eventually({ try applet() }, until: { $0.labels.contains("Long 2") }).labels.contains("Long 2"))
    }

    // MARK: waybar

    /// waybar 0.9.17 as Debian builds it has no mpris module: its users show
    /// what plays with its `mpd` module (libmpdclient, here on reel's MPD
    /// socket) or with a `custom` module that follows playerctl, as waybar's
    /// wiki suggests. Both, in one bar, as its labels read.
    func testWaybarsMPDAndPlayerctlModulesFollowReel() throws {
        let sway = try Sway()
        defer { sway.stop() }
        try Accessibility.start(sessionBus: bus.address)
        try startWithMPD([media.tones[0], media.tones[1]])
        try waitForStart()
        let config = home.appendingPathComponent("waybar.json"), style = home.appendingPathComponent("waybar.css")
        let bar: [String: Any] = [
            "layer": "top", "position": "top", "height": 30, "modules-left": ["mpd", "custom/media"],
            "mpd": ["server": socketPath, "interval": 1, "format": "mpd {stateIcon} {artist} - {title}",
                    "format-paused": "mpd {stateIcon} {artist} - {title}", "format-stopped": "mpd stopped",
                    "format-disconnected": "mpd disconnected", "state-icons": ["playing": "playing", "paused": "paused"]],
            "custom/media": ["exec": "playerctl --player=reel --follow metadata --format 'mpris {{lc(status)}} {{artist}} - {{title}}'"],
        ]
        try JSONSerialization.data(withJSONObject: bar).write(to: config)
        try "* { font-family: sans-serif; font-size: 12px; }\n".write(to: style, atomically: true, encoding: .utf8)
        let log = try sway.launch("/usr/bin/waybar", ["-c", config.path, "-s", style.path], sessionBus: bus.address)
        func labels() throws -> [String] {
            try Accessibility.nodes(of: "waybar", sessionBus: bus.address).filter { $0.role == "label" }.map(\.name)
        }
        func shows(_ expected: [String]) throws -> [String] {
            try eventually({ try labels() }, until: { shown in expected.allSatisfy(shown.contains) }, timeout: 20)
        }
        var shown = try shows(["mpd playing Reel Test - Tone 1", "mpris playing Reel Test - Tone 1"])
        XCTAssertTrue(shown.contains("mpd playing Reel Test - Tone 1") && shown.contains("mpris playing Reel Test - Tone 1"),
                      "waybar shows \(shown); its log: \((try? String(contentsOf: log, encoding: .utf8))?.suffix(2000) ?? "")")
        try player("Pause")
        shown = try shows(["mpd paused Reel Test - Tone 1", "mpris paused Reel Test - Tone 1"])
        XCTAssertTrue(shown.contains("mpd paused Reel Test - Tone 1") && shown.contains("mpris paused Reel Test - Tone 1"), "\(shown)")
        try player("Next")
        try waitForTitle("Tone 2")
        try player("Play")
        shown = try shows(["mpd playing Reel Test - Tone 2", "mpris playing Reel Test - Tone 2"])
        XCTAssertTrue(shown.contains("mpd playing Reel Test - Tone 2") && shown.contains("mpris playing Reel Test - Tone 2"), "\(shown)")
    }
}
