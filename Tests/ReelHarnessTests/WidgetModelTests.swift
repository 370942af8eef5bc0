import ReelCore
import ReelDBus
import XCTest
import ReelHarness
import ReelMPRIS

final class WidgetModelTests: XCTestCase {
    func signal(_ interface: String, _ member: String, _ args: [DBusValue]) throws -> Message {
        try Message.signal(path: MPRIS.objectPath, interface: interface, member: member, args)
    }

    func changed(_ pairs: [(String, DBusValue)]) throws -> Message {
        try signal(MPRIS.properties, "PropertiesChanged", [.string(MPRIS.player), .vardict(pairs), .strings([])])
    }

    func testFollowsStatusRateSeekedAndTrackChanges() throws {
        var w = WidgetModel()
        w.reset(properties: ["PlaybackStatus": .string("Playing"), "Rate": .double(1), "Position": .int64(1_000_000)], at: 0)
        XCTAssertEqual(w.estimate(at: 500_000), 1_500_000)
        w.apply(try changed([("Rate", .double(2)), ("Position", .int64(1_400_000))]), at: 500_000)
        XCTAssertEqual(w.estimate(at: 600_000), 1_600_000, "the reported position wins, then rate 2")
        w.apply(try changed([("PlaybackStatus", .string("Paused"))]), at: 700_000)
        XCTAssertEqual(w.estimate(at: 9_000_000), 1_800_000)
        w.apply(try signal(MPRIS.player, "Seeked", [.int64(5_000_000)]), at: 800_000)
        XCTAssertEqual(w.estimate(at: 900_000), 5_000_000)
        w.apply(try changed([("PlaybackStatus", .string("Playing")),
                             ("Metadata", .vardict([("mpris:trackid", .objectPath("/dev/reel/Track/2"))]))]), at: 1_000_000)
        XCTAssertEqual(w.estimate(at: 1_100_000), 200_000, "a new track starts from 0, at rate 2")
    }

    func testPlayerctlStyleIgnoresRate() throws {
        var w = WidgetModel(usesRate: false)
        w.reset(properties: ["PlaybackStatus": .string("Playing"), "Rate": .double(2), "Position": .int64(0)], at: 0)
        XCTAssertEqual(w.estimate(at: 1_000_000), 1_000_000)
    }

    func testTrackIDsRoundTrip() {
        XCTAssertEqual(TrackID.entry(TrackID.path(EntryID(42))), EntryID(42))
        XCTAssertNil(TrackID.entry("/org/mpris/MediaPlayer2/TrackList/NoTrack"))
        XCTAssertNil(TrackID.entry("/dev/reel/Track/x"))
    }
}
