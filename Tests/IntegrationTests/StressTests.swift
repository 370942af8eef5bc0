import Foundation
import ReelCore
import ReelDBus
import ReelHarness
import ReelLibrary
import ReelMPRIS
import XCTest

/// The daemon under load and abuse. `make test` runs the short forms;
/// `make stress` sets REEL_STRESS=1 for the long ones.
final class StressTests: DaemonTestCase {
    static let long = ProcessInfo.processInfo.environment["REEL_STRESS"] != nil

    // MARK: Fuzz

    /// Random and malformed calls to every interface from 4 clients at once:
    /// each gets a reply or an error, and the daemon stays whole.
    func testRandomAndMalformedCallsFromFourClientsAllGetAnAnswer() throws {
        try startDaemon([media.tones[0], media.tones[1]], ["--paused"])
        let xml = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../dbus/org.mpris.MediaPlayer2.reel.xml").standardized, encoding: .utf8)
        let fuzz = Fuzzer(interfaces: InterfaceSpec.parse(xml), files: media.tones.map(\.absoluteString))
        let perClient = Self.long ? 2_500 : 250
        let tally = Tally()
        let address = bus.address
        Self.together(4) { client in
            guard let connection = try? Connection(address: address) else { return tally.fail("cannot connect") }
            var rng = SplitMix64(seed: UInt64(client) &* 0x9E37_79B9 &+ 1)
            for _ in 0..<perClient {
                let message = fuzz.call(using: &rng)
                do {
                    _ = try connection.call(message, timeoutMs: 10_000)
                    tally.count(error: false)
                } catch let error as BusError where error.name != "org.freedesktop.DBus.Error.NoReply"
                                                  && error.name != "org.freedesktop.DBus.Error.Timeout" {
                    tally.count(error: true)
                } catch {
                    tally.fail("\(message.interface ?? "-").\(message.member ?? "-"): \(error)")
                }
            }
        }
        XCTAssertEqual(tally.failures, [], "calls without an answer")
        XCTAssertEqual(tally.answered, 4 * perClient)
        XCTAssertGreaterThan(tally.errors, tally.answered / 4, "the fuzz mostly gets errors, as it should")
        XCTAssertTrue(daemon!.process.isRunning, daemon!.text)
        // Still whole: it answers, its state reads, and the queue pages.
        try call("org.freedesktop.DBus.Peer", "Ping")
        XCTAssertNotNil(try client.getAllProperties(Self.name, MPRIS.objectPath, MPRIS.player)["PlaybackStatus"])
        let page = try call(MPRIS.reel, "QueuePage", [.uint32(0), .int32(-1)])
        XCTAssertEqual(Int(page[0].int64 ?? -1), page[2].array?.count)
    }

    // MARK: Many clients

    /// Many clients at once, half over MPRIS and half over the MPD protocol,
    /// each with calls whose results it can check: its own entries (added,
    /// removed, read back), and one client's settings.
    /// Every call is answered, the queue ends as the clients' models say, and
    /// memory stays flat once warm.
    func testManyClientsWithMixedCallsAgreeWithTheirModels() throws {
        try startWithMPD([media.long[0], media.long[1]])
        let initial = Set(try queueIDs())
        let clients = Self.long ? 16 : 4
        let seconds = Self.long ? 30.0 : 5.0
        let tally = Tally()
        let models = Models()
        let address = bus.address
        let file = media.tones[0].absoluteString
        let pid = daemon!.process.processIdentifier
        let socket = socketPath
        let warm = Tally()   // counts the RSS sample, taken once warm
        Self.together(clients + 1) { client in
            guard client < clients else {
                Thread.sleep(forTimeInterval: seconds / 3)
                return warm.note(DaemonTestCase.memory("VmRSS", of: pid))
            }
            var rng = SplitMix64(seed: UInt64(client) + 7)
            let deadline = Date().addingTimeInterval(seconds)
            if client % 2 == 1 {
                guard let mpd = try? MPDMixedClient(socket: socket, file: file) else { return tally.fail("cannot connect to MPD") }
                while Date() < deadline {
                    do { try mpd.step(using: &rng); tally.count(error: false) } catch { tally.fail("MPD client \(client): \(error)") }
                }
                return models.add(mpd.own)
            }
            guard let connection = try? Connection(address: address) else { return tally.fail("cannot connect") }
            let mix = MixedClient(connection: connection, name: Self.name, file: file, settings: client == 0)
            while Date() < deadline {
                do { try mix.step(using: &rng); tally.count(error: false) } catch { tally.fail("client \(client): \(error)") }
            }
            models.add(mix.own)
        }
        XCTAssertEqual(tally.failures, [], "calls that failed or went unanswered")
        XCTAssertEqual(Set(try queueIDs()), initial.union(models.all), "the queue is what the clients did to it")
        XCTAssertTrue(daemon!.process.isRunning)
        let grown = DaemonTestCase.memory("VmRSS", of: pid) - warm.noted
        print("\(clients) clients for \(Int(seconds)) s: \(tally.answered) calls answered; RSS grew \(grown / 1024) KiB after warm-up")
        if ProcessInfo.processInfo.environment["REEL_SANITIZED"] != nil {
            print("sanitized build: RSS holds the sanitizer's quarantine, so it is not checked")
        } else {
            XCTAssertLessThanOrEqual(grown, 5 * 1024, "RSS grew \(grown) KiB after warm-up")
        }
    }

    /// Runs `body` on `count` threads at once (concurrentPerform would run
    /// only as many at once as there are cores) and waits for them all.
    static func together(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for n in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(n)
                group.leave()
            }
        }
        group.wait()
    }

    func queueIDs() throws -> [UInt64] {
        try call(MPRIS.reel, "QueuePage", [.uint32(0), .int32(-1)])[2].array?.compactMap {
            if case .structure(let fields) = $0 { fields.first?.int64.map(UInt64.init) } else { nil }
        } ?? []
    }

    // MARK: Kills

    /// kill -9 at random moments while it plays, seeks, changes track and
    /// imports: every time the library is sound and the queue comes back.
    func testKillsAtRandomMomentsDuringPlaybackAndImportLeaveASoundLibraryAndQueue() throws {
        let folder = home.appendingPathComponent("import")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<40 { try FileManager.default.linkItem(at: media.tones[i % 4], to: folder.appendingPathComponent("t\(i).ogg")) }
        try startPlaying([media.long[0], media.long[1], media.tones[0], media.tones[1]])
        let expected = try queueIDs()
        var rng = SystemRandomNumberGenerator()
        for round in 0..<(Self.long ? 50 : 8) {
            // Keep it writing: an import, seeks and track changes store items, positions and queue state.
            if round % 2 == 0 {
                let message = try Message.methodCall(destination: Self.name, path: MPRIS.objectPath, interface: MPRIS.reel,
                                                     member: "LibraryAdd", [.strings([folder.path])])
                _ = client.send(message)
            }
            if round % 3 == 0 { try? player("Next") }
            if round % 3 == 1 { try? player("Seek", [.int64(1_000_000)]) }
            listen(for: Double(UInt64.random(in: 0...300, using: &rng)) / 1000)
            killDaemon()
            XCTAssertEqual(try Library(path: libraryPath).integrityCheck(), "ok", "after kill \(round + 1)")
            try startDaemon()
            XCTAssertEqual(try queueIDs(), expected, "the queue after kill \(round + 1)")
            if round % 2 == 0 { try? player("Play") }
        }
    }
}

/// Counts answers and collects failures from many threads.
final class Tally: @unchecked Sendable {
    // @unchecked: the counts are only touched under `lock`.
    private let lock = NSLock()
    private(set) var answered = 0
    private(set) var errors = 0
    private(set) var failures: [String] = []

    func count(error: Bool) {
        lock.lock(); defer { lock.unlock() }
        answered += 1
        if error { errors += 1 }
    }

    private(set) var noted = 0

    func note(_ value: Int) {
        lock.lock(); defer { lock.unlock() }
        noted = value
    }

    func fail(_ what: String) {
        lock.lock(); defer { lock.unlock() }
        if failures.count < 20 { failures.append(what) }
    }
}

/// The entries each client holds at the end.
final class Models: @unchecked Sendable {
    // @unchecked: the models are only touched under `lock`.
    private let lock = NSLock()
    private(set) var all = Set<UInt64>()

    func add(_ ids: Set<UInt64>) {
        lock.lock(); defer { lock.unlock() }
        all.formUnion(ids)
    }
}
