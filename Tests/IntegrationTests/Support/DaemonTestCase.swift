import Foundation
import ReelCore
import ReelHarness
import ReelDBus
import ReelMPRIS
import ReelSystem
import XCTest

/// Each test gets a private bus, a client connection that records every
/// signal from the daemon, and (after `startDaemon`) a real reeld with ao=null.
class DaemonTestCase: XCTestCase {
    static let name = MPRIS.busName
    var bus: PrivateBus!
    var client: Connection!
    var daemon: ChildProcess?
    var home: URL { bus.dir }
    var media: Media { Media.shared }
    /// Signals received and not yet consumed, with their arrival times.
    private var inbox: [(message: Message, at: Int64)] = []
    /// Every signal received, consumed or not, for replaying into a widget model.
    private var received: [(message: Message, at: Int64)] = []
    /// `received`, after taking the signals libdbus kept aside while a call
    /// waited for its reply (they came before that reply).
    var timeline: [(message: Message, at: Int64)] {
        receive(timeoutMs: 0)
        return received
    }
    /// A widget fed from `timeline` (see Widget.swift).
    var widget = WidgetModel()
    var widgetApplied = 0

    override func setUpWithError() throws {
        bus = try PrivateBus()
        client = try Connection(address: bus.address)
        try client.addMatch("type='signal',path='\(MPRIS.objectPath)'")
        try client.addMatch("type='signal',interface='org.freedesktop.DBus',member='NameOwnerChanged'")
    }

    override func tearDown() {
        daemon?.stop()
        // (hasSucceeded is false until the run stops, which is after tearDown.)
        if let daemon, (testRun?.totalFailureCount ?? 0) > 0 { print("reeld output:\n\(daemon.text)") }
        daemon = nil
        client = nil
        bus = nil
    }

    // MARK: Daemon

    /// Starts reeld and waits until it owns its name.
    @discardableResult
    /// `wrapper`: a program and its arguments that run reeld (given as the rest), as unshare does.
    func startDaemon(_ files: [URL] = [], _ extra: [String] = [], environment: [String: String] = [:],
                     wrapper: [String] = []) throws -> ChildProcess {
        // The test media's folder is MPD's music folder, unless `extra` says another; it is not followed
        // (a followed folder is imported at start) unless `extra` says --watch yes.
        let args = ["--ao", "null", "--music-dir", Media.folder.path, "--watch", "no"] + extra + files.map(\.path)
        let child = try wrapper.isEmpty
            ? ChildProcess(Binaries.reeld, args, busAddress: bus.address, home: home, environment: environment)
            : ChildProcess(URL(fileURLWithPath: wrapper[0]), wrapper.dropFirst() + [Binaries.reeld.path] + args,
                           busAddress: bus.address, home: home, environment: environment)
        daemon = child
        let owned = waitForSignal(timeout: 20) {
            $0.member == "NameOwnerChanged" && $0.arguments.first?.string == Self.name && $0.arguments.last?.string != ""
        }
        if owned == nil { throw TestFailure("reeld did not take its name:\n\(child.text)") }
        return child
    }

    /// Kills reeld with SIGKILL (no chance to save anything) and waits for it to be gone.
    func killDaemon() {
        guard let child = daemon else { return }
        kill(child.process.processIdentifier, SIGKILL)
        _ = child.waitForExit()
        _ = waitForSignal(timeout: 5) {
            $0.member == "NameOwnerChanged" && $0.arguments.first?.string == Self.name && $0.arguments.last?.string == ""
        }
    }

    /// The daemon's library file under this test's XDG_DATA_HOME.
    var libraryPath: String { home.appendingPathComponent("data/reel/library.sqlite3").path }

    /// Starts reeld on the files and waits until the first is really playing.
    func startPlaying(_ files: [URL]) throws {
        try startDaemon(files)
        try waitForStart()
    }

    /// Waits for the Seeked that marks the start of a load, and returns its position.
    @discardableResult
    func waitForStart(timeout: Double = 10) throws -> Int64 {
        guard let seeked = waitForSignal(timeout: timeout, where: { $0.member == "Seeked" }) else {
            throw TestFailure("playback did not start")
        }
        return seeked.arguments.first?.int64 ?? -1
    }

    // MARK: Calls

    @discardableResult
    func call(_ interface: String, _ method: String, _ args: [DBusValue] = []) throws -> [DBusValue] {
        try client.callMethod(Self.name, MPRIS.objectPath, interface, method, args)
    }

    func player(_ method: String, _ args: [DBusValue] = []) throws {
        try call(MPRIS.player, method, args)
    }

    func get(_ property: String, _ interface: String = MPRIS.player) throws -> DBusValue {
        try client.getProperty(Self.name, MPRIS.objectPath, interface, property)
    }

    func set(_ property: String, _ value: DBusValue, _ interface: String = MPRIS.player) throws {
        try client.setProperty(Self.name, MPRIS.objectPath, interface, property, value)
    }

    /// SetPosition on the current track, waiting until the seek has landed (its Seeked).
    func seekCurrent(to micros: Int64, file: StaticString = #filePath, line: UInt = #line) throws {
        try player("SetPosition", [.objectPath(try trackID()), .int64(micros)])
        XCTAssertNotNil(waitForSignal { $0.member == "Seeked" }, "no Seeked after SetPosition", file: file, line: line)
    }

    func position() throws -> Int64 { try XCTUnwrap(get("Position").int64) }

    /// Position now, and when it held: halfway through the call.
    func timedPosition() throws -> PositionReading {
        let t0 = monotonicNow()
        let p = try position()
        return ((t0 + monotonicNow()) / 2, p)
    }

    /// Position readings for `seconds`, `interval` apart (signals are taken in between).
    func readPositions(for seconds: Double, every interval: Double = 0.05, into readings: inout [PositionReading]) throws {
        let end = monotonicNow() + MonotonicTime(seconds * 1e6)
        while monotonicNow() < end {
            readings.append(try timedPosition())
            listen(for: interval)
        }
    }
    func status() throws -> String { try XCTUnwrap(get("PlaybackStatus").string) }
    func metadata() throws -> [String: DBusValue] { try XCTUnwrap(get("Metadata").dictionary) }
    func trackID() throws -> String { try XCTUnwrap(metadata()["mpris:trackid"]?.string) }
    func tracks() throws -> [String] { try XCTUnwrap(get("Tracks", MPRIS.trackList).array?.compactMap(\.string)) }

    /// Asserts that a call fails with the given D-Bus error name, and returns the message.
    @discardableResult
    func assertError(_ name: String, file: StaticString = #filePath, line: UInt = #line,
                     _ body: () throws -> Void) -> String {
        do {
            try body()
            XCTFail("expected \(name), the call succeeded", file: file, line: line)
        } catch let error as BusError {
            XCTAssertEqual(error.name, name, error.message, file: file, line: line)
            XCTAssertFalse(error.message.isEmpty, "error without a message", file: file, line: line)
            return error.message
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
        }
        return ""
    }

    // MARK: Signals

    /// Forgets every signal received so far.
    func drainSignals() {
        receive(timeoutMs: 0)
        inbox.removeAll()
    }

    private func receive(timeoutMs: Int32) {
        var arrived: [(Message, Int64)] = []
        if let m = client.nextMessage(timeoutMs: timeoutMs) { arrived.append((m, monotonicNow())) }
        while let m = client.popMessage() { arrived.append((m, monotonicNow())) }
        inbox += arrived
        received += arrived
    }

    /// Lets time pass while still stamping signals as they arrive.
    func listen(for seconds: Double) {
        _ = waitForTimedSignal(timeout: seconds) { _ in false }
    }

    /// Waits for the first signal that matches, consuming it and everything before it.
    func waitForSignal(timeout: Double = 10, where match: (Message) -> Bool) -> Message? {
        waitForTimedSignal(timeout: timeout, where: match)?.message
    }

    func waitForTimedSignal(timeout: Double = 10, where match: (Message) -> Bool) -> (message: Message, at: Int64)? {
        let deadline = monotonicNow() + Int64(timeout * 1_000_000)
        while true {
            if let i = inbox.firstIndex(where: { match($0.message) }) {
                let hit = inbox[i]
                inbox.removeFirst(i + 1)
                return hit
            }
            let left = deadline - monotonicNow()
            if left <= 0 { return nil }
            receive(timeoutMs: Int32(min(left / 1000 + 1, 1000)))
        }
    }

    /// All signals that arrived so far and were not consumed.
    func pendingSignals() -> [Message] {
        receive(timeoutMs: 0)
        return inbox.map(\.message)
    }

    /// The next PropertiesChanged for the Player interface that has `property`.
    func waitForChange(_ property: String, timeout: Double = 10) -> [String: DBusValue]? {
        waitForSignal(timeout: timeout) {
            $0.member == "PropertiesChanged" && $0.arguments.first?.string == MPRIS.player
                && $0.arguments[1].dictionary?[property] != nil
        }?.changedProperties
    }

    /// Waits until Metadata announces this title (tags arrive once the file is open).
    func waitForTitle(_ title: String, timeout: Double = 10) throws {
        while let changed = waitForChange("Metadata", timeout: timeout) {
            if changed["Metadata"]?.dictionary?["xesam:title"]?.string == title { return }
        }
        throw TestFailure("Metadata never announced \(title)")
    }

    /// Returns at once when the status is already `status` (its change may have come with another property's).
    func waitForStatus(_ status: String, timeout: Double = 10) throws {
        if try self.status() == status { return }
        while let changed = waitForChange("PlaybackStatus", timeout: timeout) {
            if changed["PlaybackStatus"]?.string == status { return }
        }
        throw TestFailure("PlaybackStatus never became \(status)")
    }
}

extension Message {
    var changedProperties: [String: DBusValue]? { arguments.dropFirst().first?.dictionary }
}

/// A Position read over D-Bus, with the moment it held.
typealias PositionReading = (at: MonotonicTime, position: MediaTime)
