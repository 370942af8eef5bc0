import ReelCore
@testable import ReelMPV
import XCTest

/// The lead of mpv 0.35's tempo filter over what is heard, as the rate changes.
final class TempoLeadTests: XCTestCase {
    func testAtRateOneThereIsNoFilterAndNoLead() {
        var tempo = TempoLead()
        XCTAssertEqual(tempo.lead, 0)
        tempo.setRate(1.5)
        tempo.setRate(1)
        XCTAssertEqual(tempo.lead, 0)
    }

    func testAFreshFilterLeadsByItsCentreAndOneHopAtTheRate() {
        var tempo = TempoLead()
        tempo.setRate(1.5)
        XCTAssertEqual(tempo.lead, 40_000)
        tempo.setRate(1)
        tempo.setRate(2)
        XCTAssertEqual(tempo.lead, 45_000)
        tempo.setRate(0.75)
        XCTAssertEqual(tempo.lead, 32_500 + 15_625, "the filter is kept: its centre jumped back to 3/8 of where it was")
    }

    func testAChangeBetweenRatesOtherThanOneCarriesUntilTheFilterStartsAgain() {
        var tempo = TempoLead()
        tempo.setRate(0.75)
        tempo.setRate(1.5)
        XCTAssertEqual(tempo.lead, 40_000 - 25_000)
        tempo.restart()   // a seek, or the next file
        XCTAssertEqual(tempo.lead, 40_000)
        tempo.setRate(1)
        tempo.setRate(1.25)
        tempo.setRate(1.5)
        tempo.setRate(2)
        XCTAssertEqual(Double(tempo.lead), 45_000 - 5_000 - 25_000.0 / 3, accuracy: 1)
    }
}
