import Glibc
import ReelCore
@testable import ReelSnapcast
import ReelSystem
import XCTest

/// The relay between two real FIFOs: the one mpv writes, and snapserver's,
/// read here as snapserver reads it (every 20 ms, without blocking).
final class PCMRelayTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = "/tmp/reel-relay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        XCTAssertEqual(mkdir(folder, 0o700), 0)
    }

    override func tearDown() {
        for name in ["in.pcm", "snapfifo", "file"] { unlink(folder + "/" + name) }
        rmdir(folder)
    }

    /// What the relay reported, in order.
    final class Reports: @unchecked Sendable {
        // @unchecked: `items` is only touched under `lock`.
        private let lock = Lock()
        private var items: [String?] = []
        func add(_ item: String?) { lock.withLock { items.append(item) } }
        var all: [String?] { lock.withLock { items } }
        /// Waits until `done` holds of the reports.
        func wait(timeout: Double = 5, until done: ([String?]) -> Bool) -> [String?] {
            let end = monotonicNow() + MonotonicTime(timeout * 1e6)
            while !done(all), monotonicNow() < end { usleep(5_000) }
            return all
        }
        var lastIsBack: Bool { all.last == .some(nil) }
    }

    /// Reads a FIFO as snapserver does: opened without blocking, 3840 bytes every 20 ms.
    final class FakeServer: @unchecked Sendable {
        // @unchecked: `data`, `running` and `holding` are only touched under `lock`.
        private let lock = Lock()
        private var data: [UInt8] = []
        private var running = true
        private var holding = false
        let path: String
        init(_ path: String) {
            self.path = path
            if access(path, F_OK) != 0 { mkfifo(path, 0o600) }
            let fd = open(path, O_RDONLY | O_NONBLOCK)
            Threads.start(name: "fake-snapserver") { [self] in
                var buffer = [UInt8](repeating: 0, count: 3840)
                while lock.withLock({ running }) {
                    let n = lock.withLock { holding } ? 0 : read(fd, &buffer, buffer.count)
                    if n > 0 { lock.withLock { data += buffer[0..<n] } }
                    usleep(20_000)
                }
                close(fd)
            }
        }
        func stop() {
            lock.withLock { running = false }
            usleep(60_000)
        }
        /// Stops reading (true) or reads again, as a snapserver that falls behind.
        func hold(_ held: Bool) { lock.withLock { holding = held } }
        /// Everything that arrived, silence too.
        var raw: [UInt8] { lock.withLock { data } }
        /// What arrived, but the silence of the relay's probes.
        var received: [UInt8] { raw.filter { $0 != 0 } }
        func waitFor(_ count: Int, timeout: Double = 5) -> [UInt8] {
            let end = monotonicNow() + MonotonicTime(timeout * 1e6)
            while received.count < count, monotonicNow() < end { usleep(5_000) }
            return received
        }
    }

    private func relay(to target: String, reports: Reports) throws -> PCMRelay {
        let relay = try PCMRelay(target: .pipe(target), fifoPath: folder + "/in.pcm", serverBuffer: 1_000_000)
        relay.onChange = { reports.add($0) }
        relay.start()
        return relay
    }

    /// Writes as mpv does: blocking, as fast as the FIFO takes it; bytes 1...250 in turn.
    private func feed(_ count: Int) { Self.feed(count, into: folder + "/in.pcm") }

    /// Writes silence without waiting until the pipes take no more, as mpv does
    /// while paused; how much was written.
    private func fillWithSilence() -> Int {
        let writer = open(folder + "/in.pcm", O_WRONLY | O_NONBLOCK)
        defer { close(writer) }
        let zeros = [UInt8](repeating: 0, count: 960)
        var total = 0
        var stalls = 0
        // The relay moves what it can into snapserver's pipe in between: full is when
        // several writes a few ms apart were all refused.
        while stalls < 10 {
            let n = write(writer, zeros, zeros.count)
            if n > 0 { total += n; stalls = 0 } else { stalls += 1; usleep(2_000) }
        }
        return total
    }

    private static func feed(_ count: Int, into path: String) {
        let writer = open(path, O_WRONLY)
        defer { close(writer) }
        let bytes = (0..<count).map { UInt8($0 % 250 + 1) }
        var done = 0
        while done < count {
            let n = bytes[done...].withUnsafeBytes { write(writer, $0.baseAddress, min(960, count - done)) }
            guard n > 0 else { return }
            done += n
        }
    }

    func testBytesPassThroughInOrderAtTheReadersPace() throws {
        let server = FakeServer(folder + "/snapfifo")
        defer { server.stop() }
        let reports = Reports()
        _ = try relay(to: server.path, reports: reports)
        let start = monotonicNow()
        feed(96_000)   // 0.5 s of audio
        let received = server.waitFor(96_000)
        XCTAssertEqual(received, (0..<96_000).map { UInt8($0 % 250 + 1) })
        // The relay holds little: the writer waited for the reader.
        XCTAssertGreaterThan(monotonicNow() - start, 400_000)
        XCTAssertEqual(reports.all, [nil], "a reader that is there: only the first connection is told")
    }

    func testTheDelayCountsWhatWaitsInThePipes() throws {
        let path = folder + "/snapfifo"
        mkfifo(path, 0o600)
        let reports = Reports()
        let relay = try relay(to: path, reports: reports)
        // Nobody reads: after its probe, the relay says so, and nothing waits but snapserver's buffer.
        XCTAssertEqual(reports.wait { !$0.isEmpty }.first??.contains("not reading"), true, "\(reports.all)")
        XCTAssertEqual(relay.delay(), relay.serverBuffer)
        let writer = open(folder + "/in.pcm", O_WRONLY | O_NONBLOCK)
        defer { close(writer) }
        XCTAssertGreaterThan(relay.nominalDelay, relay.serverBuffer)
        XCTAssertLessThan(relay.nominalDelay - relay.serverBuffer, 100_000, "at most 100 ms between reel and snapserver")
    }

    func testAMissingReaderIsReportedAndAudioFlowsOnceItComes() throws {
        let reports = Reports()
        _ = try relay(to: folder + "/snapfifo", reports: reports)
        XCTAssertEqual(reports.wait { !$0.isEmpty }.first??.contains("does not exist"), true, "\(reports.all)")
        let server = FakeServer(folder + "/snapfifo")
        defer { server.stop() }
        XCTAssertTrue(reports.wait { _ in reports.lastIsBack }.last == .some(nil), "coming back is reported: \(reports.all)")
        feed(19_200)
        XCTAssertEqual(server.waitFor(19_200).count, 19_200)
    }

    func testAReaderThatLeavesIsReportedAndFoundAgain() throws {
        var server = FakeServer(folder + "/snapfifo")
        let reports = Reports()
        _ = try relay(to: server.path, reports: reports)
        feed(19_200)
        XCTAssertEqual(server.waitFor(19_200).count, 19_200)
        XCTAssertEqual(reports.all, [nil], "the first connection is told")
        server.stop()   // snapserver stops, while mpv goes on writing
        let input = folder + "/in.pcm"
        Threads.start(name: "feeder") { Self.feed(192_000, into: input) }
        XCTAssertEqual(reports.wait { $0.count > 1 }.dropFirst().first??.contains("reading"), true, "\(reports.all)")
        server = FakeServer(folder + "/snapfifo")   // and starts again
        defer { server.stop() }
        XCTAssertTrue(reports.wait { _ in reports.lastIsBack }.last == .some(nil), "\(reports.all)")
        XCTAssertFalse(server.waitFor(9_600).isEmpty, "audio flows again")
    }

    func testAtAResumeTheSilenceOfThePauseIsDroppedAndTheSoundGoesFirst() throws {
        let server = FakeServer(folder + "/snapfifo")
        defer { server.stop() }
        let reports = Reports()
        let relay = try relay(to: server.path, reports: reports)
        XCTAssertEqual(reports.wait { !$0.isEmpty }, [nil], "connected")
        // Paused: mpv writes silence, and it waits in every pipe while snapserver is between reads.
        server.hold(true)
        let before = server.raw.count
        XCTAssertGreaterThan(fillWithSilence(), Int(PCMRelay.pipeSize), "the pipes took silence")
        relay.dropSilence()
        feed(3_840)
        server.hold(false)
        let sound = server.waitFor(3_840)
        XCTAssertTrue(sound == (0..<3_840).map { UInt8($0 % 250 + 1) }, "\(sound.count) of 3840 bytes arrived")
        // What snapserver read after the pause: at most the end of the chunk the relay was writing, then the sound.
        let after = server.raw[before...]
        let silenceFirst = after.prefix { $0 == 0 }.count
        XCTAssertLessThanOrEqual(silenceFirst, PCMRelay.chunk, "\(silenceFirst) bytes of the pause's silence were read before the resume")
        XCTAssertEqual(reports.all, [nil], "nothing was taken for snapserver leaving")
    }

    func testSoundNotYetHeardIsNeverDropped() throws {
        let server = FakeServer(folder + "/snapfifo")
        defer { server.stop() }
        let reports = Reports()
        let relay = try relay(to: server.path, reports: reports)
        feed(38_400)   // 0.2 s: the pipes are full of sound when it ends
        relay.dropSilence()
        let received = server.waitFor(38_400)
        XCTAssertTrue(received == (0..<38_400).map { UInt8($0 % 250 + 1) }, "\(received.count) of 38400 bytes arrived")
    }

    func testARegularFileIsNeverWrittenTo() throws {
        let path = folder + "/file"
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        let reports = Reports()
        _ = try relay(to: path, reports: reports)
        let input = folder + "/in.pcm"
        Threads.start(name: "feeder") { Self.feed(9_600, into: input) }
        XCTAssertEqual(reports.wait { !$0.isEmpty }.first??.contains("is not a FIFO"), true, "\(reports.all)")
        var info = stat()
        stat(path, &info)
        XCTAssertEqual(info.st_size, 0)
    }

    func testReelsOwnFIFOIsPrivateAndNothingElseIsTakenForIt() throws {
        let relay = try PCMRelay(target: .pipe(folder + "/snapfifo"), fifoPath: folder + "/in.pcm", serverBuffer: 0)
        var info = stat()
        XCTAssertEqual(stat(relay.fifoPath, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let path = folder + "/file"
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        XCTAssertThrowsError(try PCMRelay(target: .pipe(folder + "/snapfifo"), fifoPath: path, serverBuffer: 0))
    }
}
