@testable import ReelMPD
import XCTest

/// Password guessing over TCP: locked out by address and overall, the lockout doubling while it
/// goes on, forgiven after long quiet.
final class PasswordGuardTests: XCTestCase {
    let minute: Int64 = 60_000_000

    func testFiveWrongPasswordsInAMinuteLockAnAddressOutAndTheNextLockoutIsTwiceAsLong() {
        var guard_ = PasswordGuard()
        var now: Int64 = 1_000_000
        for n in 1...4 {
            XCTAssertNil(guard_.failed(from: "10.0.0.5", now: now), "guess \(n)")
            now += 1_000_000
        }
        XCTAssertNil(guard_.refusal(for: "10.0.0.5", now: now))
        XCTAssertEqual(guard_.failed(from: "10.0.0.5", now: now),
                       "5 wrong passwords within a minute from 10.0.0.5: its connections refused for 1:00")
        XCTAssertNotNil(guard_.refusal(for: "10.0.0.5", now: now + minute - 1))
        XCTAssertNil(guard_.refusal(for: "10.0.0.6", now: now), "another address is not locked out")
        XCTAssertNil(guard_.refusal(for: "10.0.0.5", now: now + minute))
        // Guessing goes on after the lockout: the next one is twice as long.
        now += minute
        for _ in 1...4 { XCTAssertNil(guard_.failed(from: "10.0.0.5", now: now)); now += 1 }
        XCTAssertEqual(guard_.failed(from: "10.0.0.5", now: now),
                       "5 wrong passwords within a minute from 10.0.0.5: its connections refused for 2:00")
    }

    func testGuessesSpreadOverAMinuteOrMoreAreNotLockedOut() {
        var guard_ = PasswordGuard()
        for n in 0..<20 { XCTAssertNil(guard_.failed(from: "10.0.0.5", now: Int64(n) * 16_000_000)) }
        XCTAssertNil(guard_.refusal(for: "10.0.0.5", now: 20 * 16_000_000))
    }

    func testASprayFromManyAddressesLocksOutEveryPasswordLogin() {
        var guard_ = PasswordGuard()
        var said: [String] = []
        for n in 0..<PasswordGuard.overall {
            if let line = guard_.failed(from: "10.1.\(n / 250).\(n % 250)", now: 1_000 + Int64(n)) { said.append(line) }
        }
        XCTAssertEqual(said, ["20 wrong passwords within a minute from all addresses (the last from 10.1.0.19): "
                              + "password logins over TCP refused for 1:00; the Unix socket stays open"])
        XCTAssertEqual(guard_.refusal(for: "192.168.1.1", now: 2_000), "password logins over TCP are locked out")
        XCTAssertNil(guard_.refusal(for: "192.168.1.1", now: 2_000 + minute))
    }

    func testTheLockoutStopsDoublingAtAnHourAndIsForgivenAfterAnHourOfQuiet() {
        var guard_ = PasswordGuard()
        var now: Int64 = 0
        var lengths: [String] = []
        for _ in 0..<9 {
            for _ in 0..<PasswordGuard.perAddress { if let line = guard_.failed(from: "a", now: now) { lengths.append(line) }; now += 1 }
            now += PasswordGuard.longestLockout + 10
        }
        XCTAssertEqual(lengths.map { $0.components(separatedBy: " for ").last! },
                       ["1:00", "2:00", "4:00", "8:00", "16:00", "32:00", "1:00:00", "1:00:00", "1:00:00"])
        now += 2 * PasswordGuard.longestLockout
        for _ in 0..<PasswordGuard.perAddress - 1 { _ = guard_.failed(from: "a", now: now) }
        XCTAssertTrue(guard_.failed(from: "a", now: now)?.hasSuffix("refused for 1:00") == true, "forgiven")
    }

    func testOnlyAFewThousandAddressesAreFollowed() {
        var guard_ = PasswordGuard()
        for n in 0..<(PasswordGuard.followed + 10) {
            _ = guard_.failed(from: "addr\(n)", now: Int64(n) * PasswordGuard.window)
        }
        XCTAssertNil(guard_.refusal(for: "addr0", now: 0))
    }
}
