@testable import ReelCache
import FoundationEssentials
import XCTest

/// A live stream's one connection, decided without a socket: held while its reader has enough,
/// closed when nobody listens, reconnected after a drop, given up with a reason.
final class LiveStateTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func live(readers: Int = 1, connecting: Bool = true) -> LiveState {
        LiveState(url: "http://radio.test/stream", settings: CacheSettings(), readers: readers,
                  holdExpiry: now.addingTimeInterval(10), connecting: connecting)
    }

    func audio(_ count: Int) -> [UInt8] { [UInt8](repeating: 1, count: count) }

    func testHeldWhileTheReaderHasEnoughAndClosedWhenNobodyListens() {
        var state = live()
        XCTAssertEqual(state.steer(now: now), .go)
        _ = audio(LiveBuffer.capacity).withUnsafeBytes { state.buffer.push($0) }
        XCTAssertEqual(state.steer(now: now), .pause)
        state.closeReader()
        XCTAssertEqual(state.buffer.count, 0, "the next listener hears what is live then")
        XCTAssertEqual(state.steer(now: now), .stop, "nobody listens, and the probe's hold is over")
        XCTAssertFalse(state.connectsAgain(now: now))
    }

    func testAProbesConnectionWaitsForItsReader() {
        var state = live(readers: 0)
        XCTAssertEqual(state.steer(now: now), .go)
        XCTAssertEqual(state.steer(now: now.addingTimeInterval(11)), .stop)
        XCTAssertFalse(state.openReader(), "the reader takes the connection that runs")
    }

    func testADropReconnectsBackingOffAndGivesUpWithTheReason() {
        var state = live()
        XCTAssertEqual(state.ended(.failed("reset"), now: now), now.addingTimeInterval(0.5))
        XCTAssertEqual(state.ended(.failed("reset"), now: now), now.addingTimeInterval(1))
        XCTAssertEqual(state.ended(.failed("reset"), now: now), now.addingTimeInterval(2))
        XCTAssertNil(state.ended(.failed("reset"), now: now))
        XCTAssertEqual(state.failure?.reason, "the stream from radio.test dropped: reset")
        XCTAssertFalse(state.connectsAgain(now: now))
        XCTAssertEqual(state.steer(now: now), .stop)
    }

    func testAudioHeardCountsAsProgress() {
        var state = live()
        _ = state.ended(.failed("reset"), now: now)
        _ = state.ended(.failed("reset"), now: now)
        _ = audio(100).withUnsafeBytes { state.buffer.push($0) }
        _ = state.ended(.completed, now: now)
        XCTAssertEqual(state.attempts, 1)
    }

    func testARefusalOrSilenceFailsAtOnceAndANewListenerTriesAgain() {
        var refused = live()
        XCTAssertNil(refused.ended(.status(403), now: now))
        XCTAssertEqual(refused.failure, FetchFailure("HTTP 403 from radio.test", status: 403))

        var silent = live()
        XCTAssertNil(silent.ended(.timedOut(answered: true), now: now))
        XCTAssertEqual(silent.failure?.reason, "no audio from radio.test in 15 s")
        XCTAssertFalse(silent.connectsAgain(now: now))
        XCTAssertTrue(silent.openReader(), "a new listener connects again")
        XCTAssertNil(silent.failure)
    }
}
