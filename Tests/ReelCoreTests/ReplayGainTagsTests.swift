import ReelCore
import XCTest

final class ReplayGainTagsTests: XCTestCase {
    private let tagged = ReplayGainTags(trackGain: -6, trackPeak: 0.25, albumGain: -3, albumPeak: 0.5)

    func testEachModeTakesItsOwnGain() {
        XCTAssertEqual(tagged.factor(.track), 0.501, accuracy: 0.001)
        XCTAssertEqual(tagged.factor(.album), 0.708, accuracy: 0.001)
        XCTAssertEqual(tagged.factor(.off), 1)
    }

    func testAModeFallsBackToTheOtherGainWithItsPeak() {
        let trackOnly = ReplayGainTags(trackGain: 12, trackPeak: 0.5)
        XCTAssertEqual(trackOnly.factor(.album), 2, accuracy: 0.0001, "+12 dB held to the track's peak")
        let albumOnly = ReplayGainTags(albumGain: -6)
        XCTAssertEqual(albumOnly.factor(.track), 0.501, accuracy: 0.001)
    }

    func testThePeakKeepsAGainFromClipping() {
        XCTAssertEqual(ReplayGainTags(trackGain: 6, trackPeak: 0.9).factor(.track), 1 / 0.9, accuracy: 0.0001)
        XCTAssertEqual(ReplayGainTags(trackGain: 6, trackPeak: 0.25).factor(.track), 1.995, accuracy: 0.001)
    }

    func testNoTagsOrNonsensePlayAsTheFileIs() {
        XCTAssertEqual(ReplayGainTags().factor(.track), 1)
        XCTAssertEqual(ReplayGainTags(trackGain: .nan).factor(.track), 1)
        XCTAssertEqual(ReplayGainTags(trackGain: .infinity).factor(.album), 1)
        XCTAssertEqual(ReplayGainTags(trackGain: -6, trackPeak: 0).factor(.track), 0.501, accuracy: 0.001, "a peak of 0 is ignored")
    }

    func testAHostileGainIsBounded() {
        XCTAssertEqual(ReplayGainTags(trackGain: 1000).factor(.track), 10, accuracy: 0.0001, "at most +20 dB")
        XCTAssertEqual(ReplayGainTags(trackGain: 1000, trackPeak: 1e-12).factor(.track), 10, accuracy: 0.0001)
        XCTAssertEqual(ReplayGainTags(trackGain: -1000).factor(.track), 0.001, accuracy: 0.00001, "at least −60 dB")
    }
}
