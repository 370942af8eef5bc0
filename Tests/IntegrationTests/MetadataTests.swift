import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

final class MetadataTests: DaemonTestCase {
    func testTagsBecomeMetadataWithTheSpecTypes() throws {
        try startPlaying([media.tones[1]])
        let m = try metadata()
        XCTAssertTrue(try XCTUnwrap(m["mpris:trackid"]?.string).hasPrefix("/dev/reel/Track/"))
        XCTAssertEqual(m["mpris:trackid"]?.signature, "o")
        XCTAssertEqual(m["mpris:length"], .int64(8_000_000))
        XCTAssertEqual(m["xesam:title"], .string("Tone 2"))
        XCTAssertEqual(m["xesam:artist"], .strings(["Reel Test"]))
        XCTAssertEqual(m["xesam:albumArtist"], .strings(["Reel Ensemble"]))
        XCTAssertEqual(m["xesam:album"], .string("Tones"))
        XCTAssertEqual(m["xesam:trackNumber"], .int32(2))
        XCTAssertEqual(m["xesam:url"], .string(media.tones[1].absoluteString))
        XCTAssertNil(m["mpris:artUrl"], "no cover for this one")
    }

    func testUntaggedFilesAreTitledByNameAndCoverBesideThemIsTheArt() throws {
        try startPlaying([media.withCover])
        let m = try metadata()
        XCTAssertEqual(m["xesam:title"], .string("untagged song.ogg"))
        XCTAssertEqual(m["mpris:artUrl"], .string(media.cover.absoluteString))
        XCTAssertNil(m["xesam:artist"])
    }

    func testMetadataIsAnnouncedOncePerChangeNotPerTag() throws {
        try startDaemon([media.tones[0], media.tones[1]])
        try waitForStart()
        drainSignals()
        let mark = timeline.count
        try player("Next")
        try waitForStart()
        let changes = timeline[mark...].filter {
            $0.message.member == "PropertiesChanged" && $0.message.changedProperties?["Metadata"] != nil
        }
        // One for the new entry, one when its tags were read: never one per tag.
        XCTAssertLessThanOrEqual(changes.count, 2)
        XCTAssertGreaterThanOrEqual(changes.count, 1)
    }
}
