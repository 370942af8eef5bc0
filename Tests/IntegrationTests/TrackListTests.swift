import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

final class TrackListTests: DaemonTestCase {
    @discardableResult
    func trackList(_ method: String, _ args: [DBusValue]) throws -> [DBusValue] {
        try call(MPRIS.trackList, method, args)
    }

    func testTracksHaveUniqueIdsOutsideOrgMprisEvenForTheSameFile() throws {
        try startDaemon([media.tones[0], media.tones[0]])
        let ids = try tracks()
        XCTAssertEqual(ids.count, 2)
        XCTAssertNotEqual(ids[0], ids[1])
        XCTAssertTrue(ids.allSatisfy { !$0.hasPrefix("/org/mpris") })
        XCTAssertEqual(try get("CanEditTracks", MPRIS.trackList).bool, true)
    }

    func testAddTrackPlacesAfterTheGivenTrackOrFirstAndSignals() throws {
        try startDaemon([media.tones[0], media.tones[1]])
        let before = try tracks()
        drainSignals()
        try trackList("AddTrack", [.string(media.tones[2].absoluteString), .objectPath(before[0]), .boolean(false)])
        XCTAssertNotNil(waitForSignal {
            $0.member == "PropertiesChanged" && $0.arguments.first?.string == MPRIS.trackList
                && $0.arguments[2].stringArray == ["Tracks"]
        }, "Tracks is announced as invalidated")
        let added = try XCTUnwrap(waitForSignal { $0.member == "TrackAdded" })
        XCTAssertEqual(added.arguments[1].string, before[0])
        let newID = try XCTUnwrap(added.arguments[0].dictionary?["mpris:trackid"]?.string)
        XCTAssertEqual(added.arguments[0].dictionary?["xesam:url"]?.string, media.tones[2].absoluteString)
        XCTAssertEqual(try tracks(), [before[0], newID, before[1]])
        try trackList("AddTrack", [.string(media.tones[3].absoluteString), .objectPath(MPRIS.noTrack), .boolean(false)])
        XCTAssertEqual(waitForSignal { $0.member == "TrackAdded" }?.arguments[1].string, MPRIS.noTrack)
        XCTAssertEqual(try tracks().count, 4)
        XCTAssertEqual(try tracks()[1], before[0])
    }

    func testAddTrackWithSetAsCurrentPlaysIt() throws {
        try startDaemon([media.tones[0]])
        try trackList("AddTrack", [.string(media.tones[1].absoluteString), .objectPath(try tracks()[0]), .boolean(true)])
        try waitForTitle("Tone 2")
        try waitForStart()
        XCTAssertEqual(try status(), "Playing")
    }

    func testRemoveTrackAndGoTo() throws {
        try startPlaying([media.tones[0], media.tones[1], media.tones[2]])
        let ids = try tracks()
        drainSignals()
        try trackList("RemoveTrack", [.objectPath(ids[1])])
        XCTAssertEqual(waitForSignal { $0.member == "TrackRemoved" }?.arguments.first?.string, ids[1])
        XCTAssertEqual(try tracks(), [ids[0], ids[2]])
        try trackList("GoTo", [.objectPath(ids[2])])
        try waitForTitle("Tone 3")
        XCTAssertEqual(try trackID(), ids[2])
        // Removing the current track moves on; the removed id is never reused.
        try trackList("RemoveTrack", [.objectPath(ids[2])])
        try trackList("AddTrack", [.string(media.tones[3].absoluteString), .objectPath(MPRIS.noTrack), .boolean(false)])
        XCTAssertFalse(try tracks().contains(ids[2]))
        XCTAssertFalse(try tracks().contains(ids[1]))
    }

    func testUnknownTracksGetAnError() throws {
        try startDaemon([media.tones[0]])
        assertError(MPRIS.errorNoSuchTrack) { _ = try trackList("GoTo", [.objectPath("/dev/reel/Track/99")]) }
        assertError(MPRIS.errorNoSuchTrack) { _ = try trackList("RemoveTrack", [.objectPath("/dev/reel/Track/99")]) }
        assertError(MPRIS.errorNoSuchTrack) {
            _ = try trackList("AddTrack", [.string(media.tones[1].absoluteString), .objectPath("/x/1"), .boolean(false)])
        }
        XCTAssertEqual(try tracks().count, 1)
    }

    func testGetTracksMetadataAnswersInTheOrderAskedAndSkipsUnknownIds() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        let ids = try tracks()
        let reply = try trackList("GetTracksMetadata", [.objectPaths([ids[1], "/dev/reel/Track/999", ids[0]])])
        let maps = try XCTUnwrap(reply.first?.array?.compactMap(\.dictionary))
        XCTAssertEqual(maps.map { $0["mpris:trackid"]?.string }, [ids[1], ids[0]])
        XCTAssertEqual(maps[1]["xesam:title"]?.string, "Tone 1")
    }

    func testTagsArrivingAreAnnouncedAsTrackMetadataChanged() throws {
        try startDaemon([media.tones[0]])
        let changed = try XCTUnwrap(waitForSignal { $0.member == "TrackMetadataChanged" })
        XCTAssertEqual(changed.arguments.first?.string, try tracks()[0])
        XCTAssertEqual(changed.arguments[1].dictionary?["xesam:title"]?.string, "Tone 1")
    }

    func testClearReplacesTheTrackList() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try call(MPRIS.reel, "Clear")
        let replaced = try XCTUnwrap(waitForSignal { $0.member == "TrackListReplaced" })
        XCTAssertEqual(replaced.arguments.first?.array, [])
        XCTAssertEqual(replaced.arguments[1].string, MPRIS.noTrack)
        XCTAssertEqual(try status(), "Stopped")
        XCTAssertEqual(try get("CanPlay").bool, false)
    }

    func testExtensionAddIsAllOrNothing() throws {
        try startDaemon([media.tones[0]])
        assertError(MPRIS.errorNoSuchFile) {
            _ = try call(MPRIS.reel, "Add", [.strings([media.tones[1].absoluteString, "file:///nope.ogg"]), .boolean(false)])
        }
        XCTAssertEqual(try tracks().count, 1)
        let ids = try call(MPRIS.reel, "Add", [.strings([media.tones[1].path, media.tones[2].absoluteString]), .boolean(false)])
        XCTAssertEqual(ids.first?.array?.count, 2)
        XCTAssertEqual(try tracks().count, 3)
    }
}
