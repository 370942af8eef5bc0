import ReelCore
import ReelDBus
import XCTest
import ReelMPRIS

final class MetadataMapTests: XCTestCase {
    func pairs(_ value: DBusValue) -> [String: DBusValue] {
        Dictionary((value.dictionary ?? [:]).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// The types bluez's AVRCP bridge and KDE require.
    func testTagsHaveTheTypesDesktopClientsRequire() {
        let metadata = TrackMetadata(title: "T", artists: ["A"], album: "B", genres: ["Jazz", "Blues"], trackNumber: 3,
                                     length: 61_000_000, artURL: "file:///c.png")
        let map = pairs(MetadataMap.of(QueueEntry(id: EntryID(7), uri: "file:///m/t.ogg", metadata: metadata)))
        XCTAssertEqual(map["mpris:trackid"], .objectPath(TrackID.path(EntryID(7))))
        XCTAssertEqual(map["xesam:title"], .string("T"))
        XCTAssertEqual(map["xesam:artist"], .strings(["A"]))
        XCTAssertEqual(map["xesam:album"], .string("B"))
        XCTAssertEqual(map["xesam:genre"], .strings(["Jazz", "Blues"]))
        XCTAssertEqual(map["xesam:trackNumber"], .int32(3))
        XCTAssertEqual(map["mpris:length"], .int64(61_000_000))
        XCTAssertEqual(map["mpris:artUrl"], .string("file:///c.png"))
    }

    func testAnICYTitleIsSplitIntoArtistAndTitle() {
        var metadata = TrackMetadata()
        metadata.streamTitle = "Band - Song"
        metadata.station = "Radio"
        let map = pairs(MetadataMap.of(QueueEntry(id: EntryID(1), uri: "http://r.example/live", metadata: metadata)))
        XCTAssertEqual(map["xesam:artist"], .strings(["Band"]))
        XCTAssertEqual(map["xesam:title"], .string("Song"))
        XCTAssertEqual(map["reel:station"], .string("Radio"))
    }

    func testNoEntryIsTheNoTrackPath() {
        XCTAssertEqual(pairs(MetadataMap.of(nil))["mpris:trackid"], .objectPath(MPRIS.noTrack))
    }

    func testURIProblemsKeepTheirDBusNames() {
        XCTAssertEqual(MPRISService.busError(SessionError(URIProblem.invalid("x"))).name, MPRIS.errorInvalidURI)
        XCTAssertEqual(MPRISService.busError(SessionError(URIProblem.noSuchFile("y"))).name, MPRIS.errorNoSuchFile)
        XCTAssertEqual(MPRISService.busError(SessionError(URIProblem.noSuchFile("y"))).message, "y")
    }

    func testSessionErrorsKeepTheirDBusNames() {
        let names: [(SessionError.Kind, String)] = [
            (.invalidArgument, "org.freedesktop.DBus.Error.InvalidArgs"), (.invalidURI, MPRIS.errorInvalidURI),
            (.noSuchFile, MPRIS.errorNoSuchFile), (.noSuchItem, MPRIS.errorNoSuchItem), (.noLibrary, MPRIS.errorNoLibrary),
            (.failed, "org.freedesktop.DBus.Error.Failed"),
        ]
        for (kind, name) in names {
            let error = MPRISService.busError(SessionError(kind, "why"))
            XCTAssertEqual(error.name, name)
            XCTAssertEqual(error.message, "why")
        }
    }

    func testAnEntryNotInTheQueueIsNamedByItsTrackPath() {
        let error = MPRISService.busError(SessionError(CommandError.noSuchTrack(EntryID(3))))
        XCTAssertEqual(error.name, MPRIS.errorNoSuchTrack)
        XCTAssertEqual(error.message, "no track \(TrackID.path(EntryID(3))) in the queue")
    }
}
