import Foundation
import ReelCore
import ReelHarness
import ReelLibrary
import ReelMPRIS
import ReelSystem
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

    /// bluez's AVRCP bridge and KDE take only these types; GENRE tags of Ogg and FLAC become xesam:genre.
    func testTheTypesBluezAndKDERequireAndGenreFromOggAndFLAC() throws {
        let ogg = home.appendingPathComponent("genre.ogg"), flac = home.appendingPathComponent("genre.flac")
        let tags = ["title": "Tagged", "artist": "Someone", "album": "Record", "track": "4"]
        try Tones.make(ogg, frequency: 440, seconds: 5, tags: tags.merging(["genre": "Jazz;Blues"]) { a, _ in a })
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=5"]
                         + (tags.merging(["genre": "Folk"]) { a, _ in a }).sorted(by: { $0.key < $1.key }).flatMap { ["-metadata", "\($0.key)=\($0.value)"] }
                         + ["-c:a", "flac", flac.path])
        try startPlaying([ogg])
        var m = try metadata()
        XCTAssertEqual(m["xesam:genre"], .strings(["Jazz", "Blues"]))
        let required = ["xesam:title": "s", "xesam:artist": "as", "xesam:album": "s", "xesam:genre": "as",
                        "mpris:length": "x", "xesam:trackNumber": "i"]
        for (key, type) in required { XCTAssertEqual(m[key]?.signature, type, key) }
        XCTAssertEqual(try get("Position").signature, "x")
        try player("OpenUri", [.string(flac.absoluteString)])
        let changed = waitForSignal { $0.changedProperties?["Metadata"]?.dictionary?["xesam:genre"]?.stringArray == ["Folk"] }
        XCTAssertNotNil(changed, "no genre for the FLAC file")
        m = try metadata()
        for (key, type) in required { XCTAssertEqual(m[key]?.signature, type, "FLAC: \(key)") }
    }

    func testUntaggedFilesAreTitledByNameAndCoverBesideThemIsTheArt() throws {
        try startPlaying([media.withCover])
        let m = try metadata()
        XCTAssertEqual(m["xesam:title"], .string("untagged song.ogg"))
        XCTAssertEqual(m["mpris:artUrl"], .string(media.cover.absoluteString))
        XCTAssertNil(m["xesam:artist"])
    }

    func testADeletedFolderCoverIsNoLongerPublished() throws {
        let folder = home.appendingPathComponent("album")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let song = folder.appendingPathComponent("song.ogg"), cover = folder.appendingPathComponent("cover.png")
        try Tones.make(song, frequency: 440, seconds: 5)
        try Tones.image(cover)
        try startPlaying([song])
        XCTAssertEqual(try metadata()["mpris:artUrl"], .string(cover.absoluteString))
        try player("Stop")
        try FileManager.default.removeItem(at: cover)
        // Played again: the library remembers the cover, which is gone.
        try player("OpenUri", [.string(song.absoluteString)])
        try waitForStart()
        listen(for: 0.3)
        XCTAssertNil(try metadata()["mpris:artUrl"], "a deleted cover is still published")
        // A new cover is found again.
        try Tones.image(folder.appendingPathComponent("folder.jpg"))
        try player("OpenUri", [.string(song.absoluteString)])
        try waitForStart()
        listen(for: 0.3)
        XCTAssertEqual(try metadata()["mpris:artUrl"], .string(folder.appendingPathComponent("folder.jpg").absoluteString))
    }

    func testEmbeddedArtIsExtractedOnceIntoTheCache() throws {
        try startDaemon([media.embeddedArt])
        let url = try XCTUnwrap(URL(string: try waitForArt()))
        XCTAssertTrue(url.path.hasPrefix(home.appendingPathComponent("cache/reel/art").path), url.path)
        let image = try Data(contentsOf: url)
        XCTAssertEqual(Array(image.prefix(2)), [0xFF, 0xD8], "a JPEG")
        let item = try call(MPRIS.reel, "LibrarySearch", [.string("embedded"), .uint32(0), .int32(-1)]).first?.array?.first?.dictionary
        XCTAssertEqual(item?["cover"]?.string, url.path, "the library keeps the extracted cover")
        // Played again, the same extracted file is used.
        let made = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        try player("OpenUri", [.string(media.embeddedArt.absoluteString)])
        XCTAssertEqual(try waitForArt(), url.absoluteString)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date, made)
    }

    /// Waits for the Metadata change that brings cover art.
    func waitForArt() throws -> String {
        while let changed = waitForChange("Metadata") {
            if let art = changed["Metadata"]?.dictionary?["mpris:artUrl"]?.string { return art }
        }
        throw TestFailure("no cover art was announced")
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

    func testEveryQueuedEntryHasItsTagsWithinTwoSeconds() throws {
        try startDaemon([media.tones[0]], ["--paused"])
        let added = monotonicNow()
        try call(MPRIS.reel, "Add", [.strings(media.tones[1...3].map(\.absoluteString)), .boolean(false)])
        var titles: [String] = []
        while monotonicNow() - added < 2_000_000 {
            let maps = try call(MPRIS.trackList, "GetTracksMetadata", [.objectPaths(try tracks())]).first?.array ?? []
            titles = maps.compactMap { $0.dictionary?["xesam:title"]?.string }
            if titles == ["Tone 1", "Tone 2", "Tone 3", "Tone 4"] { break }
            listen(for: 0.05)
        }
        XCTAssertEqual(titles, ["Tone 1", "Tone 2", "Tone 3", "Tone 4"], "titles 2 s after adding")
        // Each entry's tags came as one TrackMetadataChanged, with its length.
        let changed = timeline.filter { $0.message.member == "TrackMetadataChanged" }.map(\.message)
        for title in ["Tone 2", "Tone 3", "Tone 4"] {
            let matching = changed.filter { $0.arguments.last?.dictionary?["xesam:title"]?.string == title }
            XCTAssertEqual(matching.count, 1, title)
            XCTAssertEqual(matching.first?.arguments.last?.dictionary?["mpris:length"], .int64(8_000_000))
        }
        let (_, queue) = try reel("queue")
        XCTAssertTrue(queue.contains("Tone 3") && queue.contains("Reel Test"), queue)
    }
}

extension MetadataTests {
    /// The library (ffprobe) and playback (mpv) read a file's tags one way: a
    /// file with a performer and an album artist but no artist has the
    /// performer as its artist in both (they used to disagree).
    func testAFileReadsAlikeProbedForTheLibraryAndOpenedForPlayback() throws {
        for format in ["flac", "ogg"] {
            let file = home.appendingPathComponent("performer.\(format)")
            try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-metadata", "title=Both Ways",
                              "-metadata", "performer=Player", "-metadata", "album_artist=Band", "-metadata", "album=Same",
                              "-metadata", "genre=Folk", "-c:a", format == "ogg" ? "libvorbis" : "flac", file.path])
            let probed = try Probe.file(file.path).metadata
            XCTAssertEqual(probed.artists, ["Player"], format)
            try startPlaying([file])
            let m = try metadata()
            XCTAssertEqual(m["xesam:title"]?.string, probed.title, format)
            XCTAssertEqual(m["xesam:artist"]?.stringArray, probed.artists, format)
            XCTAssertEqual(m["xesam:album"]?.string, probed.album, format)
            XCTAssertEqual(m["xesam:genre"]?.stringArray, probed.genres, format)
            killDaemon()
        }
    }
}
