import ReelCore
import XCTest

final class SampleSmootherTests: XCTestCase {
    /// Samples 50 ms apart on a line, each off by up to ±10 ms.
    private func jittered(_ count: Int, from start: MediaTime, at t0: MonotonicTime) -> [(MonotonicTime, MediaTime)] {
        var rng = SplitMix64(seed: 7)
        return (0..<count).map { i in
            let t = t0 + MonotonicTime(i) * 50_000
            return (t, start + MediaTime(i) * 50_000 + MediaTime(rng.next() % 20_001) - 10_000)
        }
    }

    func testJitteredSamplesComeOutOnTheirLineAndAgreeOnTheStart() {
        var smoother = SampleSmoother()
        let samples = jittered(60, from: -1_000_000, at: 5_000_000)
        let out = samples.map { smoother.smooth($0.1, at: $0.0, rate: 1) }
        // After it has settled, each is within 3 ms of the true line, and implied starts agree within 3 ms.
        for (i, value) in out.enumerated().dropFirst(20) {
            let truth = -1_000_000 + MediaTime(i) * 50_000
            XCTAssertLessThanOrEqual(abs(value - truth), 3_000, "sample \(i)")
        }
        let implied = zip(samples, out).dropFirst(20).map { $0.0.0 - $0.1 }
        XCTAssertLessThanOrEqual((implied.max() ?? 0) - (implied.min() ?? 0), 3_000)
    }

    func testAJumpStartsANewLineAtOnce() {
        var smoother = SampleSmoother()
        _ = smoother.smooth(1_000_000, at: 0, rate: 1)
        _ = smoother.smooth(1_050_000, at: 50_000, rate: 1)
        XCTAssertEqual(smoother.smooth(20_000_000, at: 100_000, rate: 1), 20_000_000, "a seek")
        XCTAssertEqual(smoother.smooth(20_050_000, at: 150_000, rate: 1), 20_050_000)
        XCTAssertEqual(smoother.smooth(20_050_000, at: 2_150_000, rate: 1), 20_050_000, "a resume after a pause")
    }

    func testTheLineRunsAtTheRateAndTakesTheMeanOfItsFirstSamples() {
        var smoother = SampleSmoother()
        _ = smoother.smooth(0, at: 0, rate: 2)
        XCTAssertEqual(smoother.smooth(104_000, at: 50_000, rate: 2), 102_000, "half of it: the mean of two")
        XCTAssertEqual(smoother.smooth(205_000, at: 100_000, rate: 2), 203_000, "a third of it")
    }
}
