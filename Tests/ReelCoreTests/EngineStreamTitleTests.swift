import ReelCore
import XCTest

/// Live streams' ICY titles: shown for the entry playing, replaced at once, dropped when the stream reopens.
final class EngineStreamTitleTests: XCTestCase {
    func testTheTitleOfThePlayingStreamIsKeptApartFromItsTags() {
        var h = Harness(uris: ["http://radio.example/live", "file:///2.ogg"], play: true)
        h.finishLoad(title: nil)
        let token = h.token
        let tagged = h.engine.queue[token.entry]?.metadata.title
        h.event(.streamTitle(token, title: "Band - Song", station: "Radio"))
        XCTAssertEqual(h.effects, [.announce(.trackMetadataChanged(token.entry)), .store(.learned(token.entry))])
        let metadata = h.engine.queue[token.entry]?.metadata
        XCTAssertEqual(metadata?.streamTitle, "Band - Song")
        XCTAssertEqual(metadata?.station, "Radio")
        XCTAssertEqual(metadata?.title, tagged, "a stream title is not a tag: the library never stores it")

        h.event(.streamTitle(token, title: "Band - Song", station: "Radio"))
        XCTAssertEqual(h.effects, [], "an unchanged title announces nothing")
        h.event(.streamTitle(LoadToken(entry: h.id(2), serial: 99), title: "Stale", station: nil))
        XCTAssertEqual(h.engine.queue[token.entry]?.metadata.streamTitle, "Band - Song", "events of other loads are dropped")
    }

    func testReopeningTheStreamClearsTheOldTitle() {
        var h = Harness(uris: ["http://radio.example/live"], play: true)
        h.finishLoad(title: nil)
        h.event(.streamTitle(h.token, title: "Old Song", station: "Radio"))
        h.command(.stop)
        h.command(.play)
        h.event(.loaded(h.token, TrackMetadata(), seekable: false))
        XCTAssertNil(h.engine.queue[h.token.entry]?.metadata.streamTitle)
    }

    func testATitleThatComesBeforeTheStreamCountsAsLoadedStays() {
        var h = Harness(uris: ["http://radio.example/live"], play: true)
        // mpv reads the ICY headers, and so the first title, before it says the file is loaded.
        h.event(.streamTitle(h.token, title: "First Song", station: "Radio"))
        h.event(.loaded(h.token, TrackMetadata(), seekable: false))
        XCTAssertEqual(h.engine.queue[h.token.entry]?.metadata.streamTitle, "First Song",
                       "a title that never changes would otherwise never be shown")
    }
}

extension EngineStreamTitleTests {
    func testAStationQueuedNextKeepsTheTitleItHeardBeforeItStarted() throws {
        var h = Harness(uris: ["file:///song.mp3", "http://radio.example/live"], play: true)
        h.finishLoad(title: "Song")
        let queued = try XCTUnwrap(h.backend.queued)
        // Its stream opens ahead of its start (gapless): the title comes long before it plays.
        h.event(.streamTitle(queued.token, title: "Band - Tune", station: "Radio"))
        h.playIntoQueued()
        h.tick(ms: 400)
        XCTAssertEqual(h.currentID, h.id(2))
        XCTAssertEqual(h.engine.snapshot.current?.metadata.streamTitle, "Band - Tune",
                       "a title that never changes would otherwise never be shown")
    }

    func testAStationQueuedAgainLosesTheTitleOfItsLastPlay() throws {
        var h = Harness(uris: ["http://radio.example/live", "file:///song.mp3"], play: true)
        h.finishLoad(title: nil)
        h.event(.streamTitle(h.token, title: "Last Week", station: "Radio"))
        h.command(.setLoop(.playlist))
        h.command(.next)
        h.finishLoad(title: "Song")
        XCTAssertEqual(h.backend.queued?.uri, "http://radio.example/live")
        XCTAssertNil(h.engine.queue[h.id(1)]?.metadata.streamTitle, "a title from an earlier play of the station")
    }
}
