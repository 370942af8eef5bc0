import XCTest
@testable import ReelCore

/// The tracker against sample sequences recorded from mpv on real sound servers.
final class PositionTrackerTests: XCTestCase {
    /// (ms since the restart, time-pos in ms) as mpv reported them on PulseAudio
    /// at a first start: a stray 15 ms, then 0.1 s for 1.4 s, then the audio.
    let pulseFirstStart: [(Double, Double)] = [
        (15.3, 15.1), (248.5, 100.0), (1472.1, 15.6), (1522.4, 65.9), (1593.7, 137.2), (1654.1, 197.6),
    ]

    func ms(_ value: Double) -> Int64 { Int64((value * 1000).rounded()) }

    /// A start from 0 fed `samples` (ms since the restart, sample in ms) until one starts the
    /// estimate; it must hold at 0 before. Returns the tracker and when it started.
    func start(_ samples: [(Double, Double)]) -> (PositionTracker, startedAt: Double?) {
        var tracker = PositionTracker()
        tracker.runWhenHeard(from: 0, now: 0)
        for (t, sample) in samples {
            XCTAssertEqual(tracker.position(at: ms(t)), 0, "held at \(t) ms: nothing heard yet")
            if tracker.observe(ms(sample), at: ms(t)) { return (tracker, t) }
        }
        return (tracker, nil)
    }

    func testAtAStartThePositionHoldsUntilTwoSamplesAgreeOnWhenTheAudioStarted() {
        let (tracker, startedAt) = start(pulseFirstStart)
        XCTAssertEqual(startedAt, 1522.4, "the first two samples that agree")
        XCTAssertFalse(tracker.awaitingAudio)
        // The audio started 1456.5 ms after the restart; the estimate runs from there.
        XCTAssertEqual(tracker.position(at: ms(1654.1)), ms(197.6), accuracy: 200)
    }

    /// On a suspended PulseAudio sink (2026-12-03, ../shared/repro/pulse-cold-start.sh): two
    /// samples of one moment, 51 µs apart, that agree; then 100 ms in 229 ms; the sink wakes
    /// 1.5 s later and the samples start again from 0.
    let suspendedSinkStart: [(Double, Double)] = [
        (16.8, 17.0), (16.85, 17.05), (245.7, 100.0), (1717.2, 0.85), (1777.1, 60.7), (1827.1, 110.7), (1897.2, 180.9),
    ]

    func testSamplesOfOneMomentDoNotConfirmAStart() {
        let (tracker, startedAt) = start(suspendedSinkStart)
        XCTAssertEqual(startedAt, 1827.1, "confirmed by samples 50 ms apart, after the sink woke")
        XCTAssertEqual(tracker.position(at: ms(1897.2)), ms(180.9), accuracy: 1_000)
    }

    func testHeldPositionNeverRunsAheadOfWhatIsHeard() {
        var tracker = PositionTracker()
        tracker.runWhenHeard(from: 0, now: 0)
        var last: Int64 = 0
        for (t, sample) in pulseFirstStart {
            _ = tracker.observe(ms(sample), at: ms(t))
            let estimate = tracker.position(at: ms(t))
            XCTAssertLessThanOrEqual(estimate, ms(sample) + 1_000, "at \(t) ms")
            XCTAssertGreaterThanOrEqual(estimate, last, "never backwards")
            last = estimate
        }
    }

    func testSteadyJitterMovesNothingAndAStallDoes() {
        var tracker = PositionTracker()
        tracker.run(PositionAnchor(position: 0, at: 0, rate: 1, running: true))
        var changes = 0
        // 30 s of samples every 50 ms with ±15 ms of jitter, never three beyond 8 ms on one side.
        let pattern: [Int64] = [3_000, -15_000, 12_000, -2_000, 15_000, -9_000, 0, 9_000, -14_000, 5_000]
        for i in 1...600 {
            let t = Int64(i) * 50_000
            if tracker.observe(t + pattern[i % pattern.count], at: t) { changes += 1 }
        }
        XCTAssertEqual(changes, 0)
        // The audio stops for 200 ms: every sample from then on is 200 ms behind.
        var moved = 0
        for i in 601...610 {
            let t = Int64(i) * 50_000
            if tracker.observe(t - 200_000, at: t) { moved += 1 }
        }
        XCTAssertEqual(moved, 1)
        XCTAssertEqual(tracker.position(at: 610 * 50_000), 610 * 50_000 - 200_000)
    }

    func testAServerClockSettlingSlowlyIsNotADeparture() {
        // As recorded on PipeWire: the audio clock fell 13 ms behind CLOCK_MONOTONIC
        // over a stream's first five seconds, then kept pace.
        var tracker = PositionTracker()
        tracker.run(PositionAnchor(position: 0, at: 0, rate: 1, running: true))
        var changes = 0
        for i in 1...300 {
            let t = Int64(i) * 60_000
            let lag = min(t, 5_000_000) * 13_000 / 5_000_000
            if tracker.observe(t - lag, at: t) { changes += 1 }
        }
        XCTAssertEqual(changes, 0)
    }

    /// mpv's samples on PulseAudio around a change of rate from 1 to 1.5 (2026-12-05, µs since the
    /// change, µs of the file): the sound already handed over plays out at rate 1 for 0.5 s while
    /// the samples scale it by 1.5, so they start 278 ms below the estimate; after that they run
    /// 15.04 ms above what the first correction left, just beyond the steady tolerance.
    let pulseRateChange: [(MonotonicTime, MediaTime)] = [
        (13_406, 24_034_559), (93_462, 24_154_910), (194_380, 24_321_173), (243_214, 24_394_406), (294_470, 24_471_287),
        (373_199, 24_589_379), (433_158, 24_679_468), (493_446, 24_769_703), (544_794, 24_846_637), (613_538, 24_949_948),
        (673_550, 25_039_996), (733_590, 25_129_961), (783_243, 25_204_313), (833_506, 25_279_786), (893_601, 25_370_017),
    ]

    func testAfterAChangeOfRateTheEstimateMeetsTheSamplesAgain() {
        var tracker = PositionTracker()
        tracker.run(PositionAnchor(position: 24_292_266, at: 0, rate: 1, running: true))
        tracker.setRate(1.5, now: 0)
        var changes = 0
        for (t, sample) in pulseRateChange where tracker.observe(sample, at: t) { changes += 1 }
        let (t, sample) = pulseRateChange.last!
        XCTAssertEqual(tracker.position(at: t), sample, accuracy: 3_000)
        XCTAssertEqual(changes, 2, "the transient, then the 15 ms it left")
        // Met: steady jitter moves nothing again.
        for i in 1...20 {
            let at = t + MonotonicTime(i) * 50_000
            XCTAssertFalse(tracker.observe(tracker.position(at: at) + (i % 2 == 0 ? 5_000 : -5_000), at: at))
        }
    }

    func testWithoutAChangeOfRateAFifteenMillisecondDepartureStays() {
        var tracker = PositionTracker()
        tracker.run(PositionAnchor(position: 0, at: 0, rate: 1.5, running: true))
        for i in 1...20 {
            let at = MonotonicTime(i) * 50_000
            XCTAssertFalse(tracker.observe(MediaTime(Double(at) * 1.5) + 15_000, at: at))
        }
    }

    func testRateScalesTheImpliedStart() {
        var tracker = PositionTracker(rate: 2)
        tracker.runWhenHeard(from: 10_000_000, now: 0)
        XCTAssertFalse(tracker.observe(10_040_000, at: 50_000))   // started at 30 ms
        XCTAssertTrue(tracker.observe(10_140_000, at: 100_000))
        XCTAssertEqual(tracker.anchor.at, 30_000)
        XCTAssertEqual(tracker.position(at: 130_000), 10_200_000)
    }

    func testAHeldPositionIgnoresStraySamples() {
        var tracker = PositionTracker()
        tracker.hold(at: 30_000_000, now: 0)
        XCTAssertFalse(tracker.observe(0, at: 10), "mpv reads 0 as a file opens")
        XCTAssertEqual(tracker.position(at: 1_000_000), 30_000_000)
    }

    /// Behind snapserver: after a seek to 20 s, the samples climb from about 19 s at the
    /// rate, and tell when the rooms will reach 20 s before they do.
    func testSamplesClimbingToTheTargetPredictWhenItIsHeard() {
        var tracker = PositionTracker()
        tracker.predictsStart = true
        let t0: MonotonicTime = 10_000_000
        tracker.runWhenHeard(from: 20_000_000, now: t0)
        XCTAssertFalse(tracker.observe(18_900_000, at: t0))
        XCTAssertFalse(tracker.observe(18_950_000, at: t0 + 50_000))
        XCTAssertNil(tracker.predictedStart, "two samples make one climb: it needs a second to agree")
        XCTAssertFalse(tracker.observe(19_000_000, at: t0 + 100_000))
        XCTAssertEqual(tracker.predictedStart, t0 + 1_100_000)
        XCTAssertEqual(tracker.position(at: t0 + 1_000_000), 20_000_000, "held until then")
        XCTAssertFalse(tracker.startIfDue(now: t0 + 1_099_000))
        XCTAssertTrue(tracker.startIfDue(now: t0 + 1_105_000))
        XCTAssertEqual(tracker.position(at: t0 + 1_200_000), 20_100_000)
    }

    func testSamplesThatSitStillBelowTheTargetPredictNothing() {
        var tracker = PositionTracker()
        tracker.predictsStart = true
        tracker.runWhenHeard(from: 5_000_000, now: 0)
        for i in 1...10 { XCTAssertFalse(tracker.observe(4_900_000, at: MonotonicTime(i) * 50_000)) }
        XCTAssertNil(tracker.predictedStart)
        XCTAssertTrue(tracker.awaitingAudio)
    }

    func testASoundServersSamplesBelowTheTargetPredictNothing() {
        var tracker = PositionTracker()
        tracker.runWhenHeard(from: 20_000_000, now: 0)
        XCTAssertFalse(tracker.observe(19_000_000, at: 50_000))
        XCTAssertFalse(tracker.observe(19_050_000, at: 100_000))
        XCTAssertNil(tracker.predictedStart, "only samples past the position count there")
    }

}
