import ReelCore
@testable import ReelMPD
import XCTest

final class QueueCommandTests: XCTestCase {
    /// The files of the queue, in order.
    func files(_ c: Conversation) -> [String] {
        c.send("playlist").split(separator: "\n").dropLast().map { String($0[$0.range(of: ":file: ")!.upperBound...]) }
    }

    func filled(_ names: String...) -> Conversation {
        let c = Conversation()
        for name in names { XCTAssertEqual(c.send("add /\(name)"), "OK\n") }
        return c
    }

    func testAddPutsSongsAtAbsoluteAndRelativePositions() {
        let c = filled("a", "b", "c")
        XCTAssertEqual(c.send("add /x 0"), "OK\n")
        XCTAssertEqual(c.send("add /y 4"), "OK\n")
        XCTAssertEqual(files(c), ["/x", "/a", "/b", "/c", "/y"])
        XCTAssertEqual(c.send("add /z 6"), "ACK [2@0] {add} Bad song index\n")
        c.send("play 1")
        XCTAssertEqual(c.send("add /r +0"), "OK\n")
        XCTAssertEqual(c.send("add /s -0"), "OK\n")
        XCTAssertEqual(files(c), ["/x", "/s", "/a", "/r", "/b", "/c", "/y"])
    }

    func testRelativePositionsNeedACurrentSong() {
        XCTAssertEqual(Conversation().send("add /z +0"), "ACK [55@0] {add} No current song\n")
    }

    func testAddidAnswersTheNewId() {
        let c = filled("a")
        let pairs = c.pairs("addid /b")
        let id = try! XCTUnwrap(pairs["Id"])
        XCTAssertEqual(c.pairs("playlistid \(id)")["file"], "/b")
        XCTAssertEqual(c.send("addid /missing.ogg"), "ACK [50@0] {addid} no such file: /missing.ogg\n")
    }

    func testMoveARunToAnEarlierOrALaterPlace() {
        let c = filled("a", "b", "c", "d", "e")
        XCTAssertEqual(c.send("move 3:5 0"), "OK\n")
        XCTAssertEqual(files(c), ["/d", "/e", "/a", "/b", "/c"])
        XCTAssertEqual(c.send("move 0:2 3"), "OK\n")
        XCTAssertEqual(files(c), ["/a", "/b", "/c", "/d", "/e"])
        XCTAssertEqual(c.send("move 0 4"), "OK\n")
        XCTAssertEqual(files(c), ["/b", "/c", "/d", "/e", "/a"])
        XCTAssertEqual(c.send("move 0:2 4"), "ACK [2@0] {move} Bad song index\n")
        XCTAssertEqual(files(c), ["/b", "/c", "/d", "/e", "/a"], "a refused move changes nothing")
    }

    func testMoveidSwapAndSwapidKeepIds() {
        let c = filled("a", "b", "c")
        let idOfA = c.pairs("playlistinfo 0")["Id"]!
        XCTAssertEqual(c.send("moveid \(idOfA) 2"), "OK\n")
        XCTAssertEqual(files(c), ["/b", "/c", "/a"])
        XCTAssertEqual(c.pairs("playlistinfo 2")["Id"], idOfA)
        XCTAssertEqual(c.send("swap 0 2"), "OK\n")
        XCTAssertEqual(files(c), ["/a", "/c", "/b"])
        let idOfB = c.pairs("playlistinfo 2")["Id"]!
        XCTAssertEqual(c.send("swapid \(idOfA) \(idOfB)"), "OK\n")
        XCTAssertEqual(files(c), ["/b", "/c", "/a"])
        XCTAssertEqual(c.send("moveid 999 0"), "ACK [50@0] {moveid} No such song\n")
    }

    func testShuffleReordersTheListOrAPartOfIt() {
        let c = filled("a", "b", "c", "d", "e", "f", "g", "h")
        XCTAssertEqual(c.send("shuffle 2:8"), "OK\n")
        XCTAssertEqual(Array(files(c).prefix(2)), ["/a", "/b"])
        XCTAssertEqual(Set(files(c)), Set(["/a", "/b", "/c", "/d", "/e", "/f", "/g", "/h"]))
        XCTAssertEqual(c.send("shuffle"), "OK\n")
        XCTAssertEqual(files(c).count, 8)
        XCTAssertEqual(c.send("shuffle 7:20"), "OK\n", "a range past the end is cut at it")
        XCTAssertEqual(c.send("shuffle 9:10"), "ACK [2@0] {shuffle} Bad song index\n")
    }

    func testDeleteOneARangeOrAnOpenRange() {
        let c = filled("a", "b", "c", "d", "e")
        XCTAssertEqual(c.send("delete 1"), "OK\n")
        XCTAssertEqual(c.send("delete 1:3"), "OK\n")
        XCTAssertEqual(files(c), ["/a", "/e"])
        XCTAssertEqual(c.send("delete 1:"), "OK\n")
        XCTAssertEqual(files(c), ["/a"])
        XCTAssertEqual(c.send("delete 5"), "ACK [2@0] {delete} Bad song index\n")
        XCTAssertEqual(c.send("delete 2:1"), "ACK [2@0] {delete} Bad range: 2:1\n")
    }

    func testPlchangesGivesEveryPositionThatChangedSinceAVersion() {
        let c = filled("a", "b", "c", "d")
        _ = c.endTurn()
        let version = c.pairs("status")["playlist"]!
        XCTAssertEqual(c.send("plchanges \(version)"), "OK\n", "nothing changed since")
        c.send("delete 2")
        _ = c.endTurn()
        let changed = c.send("plchangesposid \(version)")
        XCTAssertEqual(changed.split(separator: "\n").filter { $0.hasPrefix("cpos") }, ["cpos: 2"])
        XCTAssertEqual(c.send("plchanges 0").split(separator: "\n").filter { $0.hasPrefix("file") }.count, 3,
                       "a version older than the queue gives everything")
    }

    func testTheVersionMovesWithinACommandList() {
        let c = filled("a", "b")
        _ = c.endTurn()
        let before = c.pairs("status")["playlist"]!
        let reply = c.send("command_list_begin", "delete 0", "status", "plchangesposid \(before)", "command_list_end")
        XCTAssertFalse(reply.contains("playlist: \(before)\n"), reply)
        XCTAssertTrue(reply.contains("cpos: 0\n"), reply)
        XCTAssertEqual(c.endTurn(), "", "nobody idles")
        XCTAssertEqual(c.send("idle playlist"), "changed: playlist\nOK\n", "and the change is still news for idle")
    }

    func testPlaylistinfoShowsTagsAndLengthsAsMPDDoes() {
        let c = filled("a")
        let id = c.session.queue.entries[0].id
        c.session.learn(TrackMetadata(title: "Song\nTwo lines", artists: ["A", "B"], album: "Al", genres: ["Jazz"],
                                      trackNumber: 3, length: 61_499_000), at: 0)
        XCTAssertEqual(c.send("playlistinfo"), """
            file: /a
            Artist: A
            Artist: B
            Album: Al
            Title: Song Two lines
            Track: 3
            Genre: Jazz
            Time: 61
            duration: 61.499
            Pos: 0
            Id: \(id.raw)
            OK

            """)
        c.send("tagtypes clear", "tagtypes enable title composer")
        XCTAssertEqual(c.send("playlistinfo 0").split(separator: "\n").filter { $0.contains("Artist") || $0.contains("Title") },
                       ["Title: Song Two lines"])
        XCTAssertEqual(c.send("tagtypes enable bogus"), "ACK [2@0] {tagtypes} Unknown tag type: bogus\n")
        c.send("tagtypes all", "tagtypes disable album disc")
        XCTAssertEqual(c.send("tagtypes").split(separator: "\n").map(String.init),
                       ["Artist", "AlbumArtist", "Title", "Track", "Name", "Genre", "Date"].map { "tagtype: \($0)" } + ["OK"],
                       "each tag has a bit of its own")
    }

    func testPlaylistfindAndPlaylistsearch() {
        let c = filled("a", "b")
        for (i, artist) in ["AC/DC", "Abba"].enumerated() {
            c.session.learn(TrackMetadata(artists: [artist]), at: i)
        }
        XCTAssertEqual(c.send("playlistfind artist abba").contains("file"), false, "find is exact")
        XCTAssertEqual(c.send("playlistsearch artist abba").contains("file: /b"), true, "search ignores case")
        XCTAssertEqual(c.send(#"playlistfind "(artist == \"AC/DC\")""#).contains("file: /a"), true)
        XCTAssertEqual(c.send(#"playlistfind "(artist == \"AC/DC\")""#).contains("file: /b"), false)
    }

    func testQueuedSongsAreNamedAsTheDatabaseNamesThem() {
        let c = Conversation()
        c.library.add("/music/Abba/Gold/02 Waterloo.ogg", title: "Waterloo")
        XCTAssertEqual(c.send(#"add "Abba/Gold/02 Waterloo.ogg""#), "OK\n")
        XCTAssertEqual(c.send("add /elsewhere/x.ogg"), "OK\n", "the Unix socket's client may queue any file")
        // As MPD writes them: `0:file: NAME`, the database's name for a song in the music folder.
        XCTAssertEqual(c.send("playlist"), "0:file: Abba/Gold/02 Waterloo.ogg\n1:file: /elsewhere/x.ogg\nOK\n")
        XCTAssertEqual(c.pairs("playlistinfo 0")["file"], "Abba/Gold/02 Waterloo.ogg")
        XCTAssertEqual(c.pairs("playlistid \(c.session.queue.entries[0].id.raw)")["file"], "Abba/Gold/02 Waterloo.ogg")
        XCTAssertTrue(c.send("plchanges 0").contains("file: Abba/Gold/02 Waterloo.ogg\n"))
        XCTAssertTrue(c.send(#"playlistfind file "Abba/Gold/02 Waterloo.ogg""#).contains("Pos: 0"))
        c.send("play 0")
        XCTAssertEqual(c.pairs("currentsong")["file"], "Abba/Gold/02 Waterloo.ogg")
    }
}

extension QueueCommandTests {
    /// A client names a queued stream's station and show, as MPD lets it; a file's tags stay its own.
    func testAddtagidAndCleartagidEditAQueuedStreamOnly() {
        let c = filled("local.ogg")
        XCTAssertEqual(c.send("addid https://radio.example/live"), "Id: 2\nOK\n")
        XCTAssertEqual(c.send("addtagid 2 Name \"Radio Example\""), "OK\n")
        XCTAssertEqual(c.send("addtagid 2 Artist A"), "OK\n")
        XCTAssertEqual(c.send("addtagid 2 artist B"), "OK\n")
        XCTAssertEqual(c.send("addtagid 2 Track 7"), "OK\n")
        let song = c.send("playlistid 2")
        for line in ["Name: Radio Example", "Artist: A", "Artist: B", "Track: 7"] { XCTAssertTrue(song.contains(line + "\n"), song) }
        XCTAssertEqual(c.send("cleartagid 2 Artist"), "OK\n")
        XCTAssertFalse(c.send("playlistid 2").contains("Artist:"))
        XCTAssertEqual(c.send("cleartagid 2"), "OK\n")
        XCTAssertFalse(c.send("playlistid 2").contains("Name:"), "every tag cleared")
        XCTAssertEqual(c.send("addtagid 1 Title X"), "ACK [4@0] {addtagid} Cannot edit tags of local file\n")
        XCTAssertEqual(c.send("addtagid 9 Title X"), "ACK [50@0] {addtagid} No such song\n")
        XCTAssertEqual(c.send("addtagid 2 Flavour X"), "ACK [2@0] {addtagid} Unknown tag type: Flavour\n")
        XCTAssertEqual(c.send("addtagid 2 Composer X"), "ACK [2@0] {addtagid} reel keeps no Composer tags\n")
        XCTAssertEqual(c.send("addtagid 2 Track seven"), "ACK [2@0] {addtagid} reel keeps Track as a number, not seven\n")
        XCTAssertEqual(c.send("cleartagid 2 Composer"), "OK\n", "nothing to clear")
    }
}
