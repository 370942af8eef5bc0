import XCTest
import ReelCore

final class ContainerTagsTests: XCTestCase {
    func testKeysAreReadWhateverTheirCase() {
        let tags = ContainerTags(["TITLE": "T", "Artist": "A", "ALBUM": "B", "Genre": "Jazz;Blues", "TRACKNUMBER": "03"])
        var metadata = TrackMetadata()
        tags.apply(to: &metadata)
        XCTAssertEqual(metadata.title, "T")
        XCTAssertEqual(metadata.artists, ["A"])
        XCTAssertEqual(metadata.album, "B")
        XCTAssertEqual(metadata.genres, ["Jazz", "Blues"])
        XCTAssertEqual(metadata.trackNumber, 3)
    }

    func testTheArtistFallsBackToAPerformerThenTheAlbumArtist() {
        XCTAssertEqual(ContainerTags(["performer": "P", "album_artist": "AA"]).artist, "P")
        XCTAssertEqual(ContainerTags(["album_artist": "AA"]).artist, "AA")
        XCTAssertEqual(ContainerTags(["albumartist": "AA"]).albumArtist, "AA")
        XCTAssertNil(ContainerTags(["artist": ""]).artist, "an empty tag is no tag")
    }

    func testALaterLayerWins() {
        let tags = ContainerTags(layers: [["ARTIST": "stream", "title": "only here"], ["artist": "container"]])
        XCTAssertEqual(tags.artist, "container")
        XCTAssertEqual(tags.title, "only here")
    }

    func testTrackNumbersOfEveryShape() {
        XCTAssertEqual(ContainerTags(["track": "3/12"]).trackNumber, 3)
        XCTAssertNil(ContainerTags(["track": "side A"]).trackNumber)
    }

    func testDiscAndDateAsMPDsClientsReadThem() {
        let tags = ContainerTags(["DISCNUMBER": "2/3", "DATE": "1976-10-11", "album_artist": "Various"])
        XCTAssertEqual(tags.disc, 2)
        XCTAssertEqual(tags.date, "1976-10-11")
        var metadata = TrackMetadata()
        tags.apply(to: &metadata)
        XCTAssertEqual(metadata.disc, 2)
        XCTAssertEqual(metadata.date, "1976-10-11")
        XCTAssertEqual(metadata.albumArtists, ["Various"])
        XCTAssertEqual(ContainerTags(["disc": "1"]).disc, 1)
        XCTAssertEqual(ContainerTags(["year": "1999"]).date, "1999")
        XCTAssertNil(ContainerTags(["disc": "A"]).disc)
    }
}
