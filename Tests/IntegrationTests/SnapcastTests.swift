import Foundation
import ReelCore
import ReelHarness
import ReelMPRIS
import XCTest

/// reeld as a Snapcast source: a private snapserver reading its pipe, and
/// snapclients (the rooms) playing the stream into what the tests record.
final class SnapcastTests: DaemonTestCase {
    private var server: SnapServer?

    override func tearDown() {
        server?.stop(removing: true)
        server = nil
        super.tearDown()
    }

    /// A snapserver with one room recording, and reeld playing `files` into it.
    private func play(_ files: [URL], _ extra: [String] = [], controlScript: String? = nil) throws -> (SnapServer, Recording) {
        let server = try SnapServer(controlScript: controlScript)
        self.server = server
        let room = try server.room("kitchen")
        try room.waitUntilRunning()
        try startDaemon(files, ["--output", "snapcast:\(server.fifo)", "--snapcast-buffer", String(server.buffer), "--fresh"] + extra,
                        environment: ["REEL_TRACE": "1"])
        return (server, room)
    }

    /// Waits for Metadata to announce `title`; returns when it arrived.
    private func titleChange(_ title: String, timeout: Double = 10) throws -> MonotonicTime {
        while let (message, at) = waitForTimedSignal(timeout: timeout, where: {
            $0.member == "PropertiesChanged" && $0.changedProperties?["Metadata"] != nil
        }) {
            if message.changedProperties?["Metadata"]?.dictionary?["xesam:title"]?.string == title { return at }
        }
        throw TestFailure("Metadata never announced \(title)")
    }

    func testTracksFollowEachOtherInTheRoomsWithoutAGapAndTheTitleChangesWhenTheyHearIt() throws {
        let files = try XCTUnwrap(media.gapless["flac"])
        let (_, room) = try play(files)
        let second = try titleChange("Gapless 2")
        let third = try titleChange("Gapless 3")
        try waitForStatus("Stopped", timeout: 10)
        listen(for: 1.5)   // the rooms play on for snapserver's buffer
        room.stop()
        XCTAssertEqual(try get("LastError", MPRIS.reel).string, "")
        let heard = try XCTUnwrap(room.sounds().first?.start, "the room heard nothing")
        let longest = room.gaps().first
        func ms(_ t: MonotonicTime?) -> String { t.map { "\(($0 - heard) / 1000) ms" } ?? "never" }
        XCTAssertLessThanOrEqual(longest?.length ?? 0, 10_000, "\(longest?.length ?? 0) µs of silence in the room at \(ms(longest?.at))")
        let onset2 = try XCTUnwrap(room.onset(of: Media.gaplessFrequencies[1], after: heard), "track 2 was not heard")
        let onset3 = try XCTUnwrap(room.onset(of: Media.gaplessFrequencies[2], after: heard), "track 3 was not heard")
        print("snapcast: track 2 announced \((second - onset2) / 1000) ms from its onset in the room, track 3 \((third - onset3) / 1000) ms")
        XCTAssertLessThanOrEqual(abs(second - onset2), 50_000, "Metadata changed \((second - onset2) / 1000) ms from when the room heard track 2")
        XCTAssertLessThanOrEqual(abs(third - onset3), 50_000, "Metadata changed \((third - onset3) / 1000) ms from when the room heard track 3")
    }

    func testPositionIsWhatTheRoomsHear() throws {
        let (_, room) = try play([media.long[0]])
        var readings: [(at: MonotonicTime, position: MediaTime)] = []
        let deadline = Date().addingTimeInterval(10)
        while try position() < 500_000, Date() < deadline { listen(for: 0.05) }
        let end = monotonicNow() + 6_000_000
        while monotonicNow() < end {
            let t0 = monotonicNow()
            let p = try position()
            readings.append(((t0 + monotonicNow()) / 2, p))
            listen(for: 0.1)
        }
        room.stop()
        let offs = readings.compactMap { r in room.heard(by: r.at).map { r.position - $0 } }
        let worst = offs.map(abs).max() ?? .max
        print("snapcast: Position against the room, \(offs.count) readings: \(offs.min().map { $0 / 1000 } ?? 0)..\(offs.max().map { $0 / 1000 } ?? 0) ms")
        XCTAssertLessThanOrEqual(worst, 50_000, "Position was \(worst / 1000) ms off what the room played")
    }
}
