import Foundation
import ReelCore
@testable import ReelMPD
import XCTest

final class DatabaseCommandTests: XCTestCase {
    /// Three local albums under /music and one remote episode.
    func stocked() -> Conversation {
        let c = Conversation()
        c.library.add("/music/Abba/Gold/01 Dancing Queen.ogg", title: "Dancing Queen", artist: "Abba", album: "Gold")
        c.library.add("/music/Abba/Gold/02 Waterloo.ogg", title: "Waterloo", artist: "Abba", album: "Gold", seconds: 120)
        c.library.add("/music/Abba/Arrival/01 Money.ogg", title: "Money, Money, Money", artist: "Abba", album: "Arrival")
        c.library.add("/music/ACDC/Back in Black/01 Hells Bells.ogg", title: "Hells Bells", artist: "AC/DC", album: "Back in Black")
        c.library.add("https://pod.example/ep1.mp3", title: "Episode 1", artist: "Pod")
        c.settle()
        return c
    }

    func lines(_ c: Conversation, _ command: String, _ key: String) -> [String] {
        c.send(command).split(separator: "\n").filter { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) }
    }

    func testLsinfoWalksFoldersUnderTheMusicDirectory() {
        let c = stocked()
        XCTAssertEqual(lines(c, "lsinfo", "directory"), ["@remote", "ACDC", "Abba"])
        XCTAssertEqual(lines(c, #"lsinfo "/""#, "directory"), ["@remote", "ACDC", "Abba"])
        XCTAssertEqual(lines(c, "lsinfo Abba", "directory"), ["Abba/Arrival", "Abba/Gold"])
        XCTAssertEqual(lines(c, "lsinfo Abba/Gold/", "file"), ["Abba/Gold/01 Dancing Queen.ogg", "Abba/Gold/02 Waterloo.ogg"])
        XCTAssertEqual(lines(c, "lsinfo @remote", "file"), ["https://pod.example/ep1.mp3"])
        XCTAssertEqual(lines(c, #"lsinfo "Abba/Gold/02 Waterloo.ogg""#, "Title"), ["Waterloo"])
        XCTAssertEqual(c.send("lsinfo Nope"), "ACK [50@0] {lsinfo} No such directory\n")
    }

    /// A folder's songs are found by binary search in byte order: folders that share its name's
    /// start ("Abba 2", "Abba0", "Abb") and a song named as the folder are not in it.
    func testAFolderHoldsOnlyWhatIsBelowItAmongNamesThatShareItsStart() {
        let c = Conversation()
        for path in ["Abb/x.ogg", "Abba/Gold/01.ogg", "Abba/z.ogg", "Abba 2/01.ogg", "Abba0/01.ogg", "Abba.ogg", "Abba-/01.ogg"] {
            c.library.add("/music/" + path, title: path, artist: "A", album: "B")
        }
        c.settle()
        XCTAssertEqual(lines(c, "listall Abba", "file"), ["Abba/Gold/01.ogg", "Abba/z.ogg"])
        XCTAssertEqual(lines(c, "lsinfo Abba", "directory"), ["Abba/Gold"])
        XCTAssertEqual(lines(c, "lsinfo Abba", "file"), ["Abba/z.ogg"])
        XCTAssertEqual(lines(c, "lsinfo Abba.ogg", "file"), ["Abba.ogg"])
        XCTAssertEqual(lines(c, "lsinfo Abba0", "file"), ["Abba0/01.ogg"])
        XCTAssertEqual(c.send("lsinfo Abba/Gol"), "ACK [50@0] {lsinfo} No such directory\n")
        XCTAssertEqual(c.send("lsinfo Abba/z.og"), "ACK [50@0] {lsinfo} No such directory\n")
    }

    func testListallGivesEveryFolderOnceBeforeItsSongs() {
        let c = stocked()
        XCTAssertEqual(c.send("listall Abba"), """
            directory: Abba
            directory: Abba/Arrival
            file: Abba/Arrival/01 Money.ogg
            directory: Abba/Gold
            file: Abba/Gold/01 Dancing Queen.ogg
            file: Abba/Gold/02 Waterloo.ogg
            OK

            """)
        XCTAssertEqual(lines(c, "listallinfo", "Title").count, 5)
    }

    func testFindIsExactSearchIsNotAndBothSortAndWindow() {
        let c = stocked()
        XCTAssertEqual(lines(c, "find artist abba", "Title"), [])
        XCTAssertEqual(lines(c, "search artist abba", "Title").count, 3)
        XCTAssertEqual(lines(c, #"find "(album == \"Gold\")" sort -title"#, "Title"), ["Waterloo", "Dancing Queen"])
        XCTAssertEqual(lines(c, #"search "(artist contains \"a\")" sort title window 1:3"#, "Title"),
                       ["Hells Bells", "Money, Money, Money"])
        XCTAssertEqual(lines(c, #"find "(base \"Abba/Gold\")""#, "file").count, 2)
    }

    func testFindaddAndSearchaddQueueWhatTheyFind() {
        let c = stocked()
        c.send("add /elsewhere.ogg")
        XCTAssertEqual(c.send("findadd album Gold"), "OK\n")
        XCTAssertEqual(c.send(#"searchadd "(title contains \"bells\")" position 0"#), "OK\n")
        XCTAssertEqual(c.session.queue.entries.map(\.uri), [
            "file:///music/ACDC/Back in Black/01 Hells Bells.ogg", "file:///elsewhere.ogg",
            "file:///music/Abba/Gold/01 Dancing Queen.ogg", "file:///music/Abba/Gold/02 Waterloo.ogg",
        ])
        XCTAssertNotNil(c.session.queue.entries[0].itemID, "queued as the library's item")
    }

    func testAddTakesSongsAndFoldersAsTheDatabaseNamesThem() {
        let c = stocked()
        XCTAssertEqual(c.send(#"add "Abba/Gold/02 Waterloo.ogg""#), "OK\n")
        XCTAssertEqual(c.send("add Abba/Arrival"), "OK\n")
        XCTAssertEqual(c.send("add @remote"), "OK\n")
        XCTAssertEqual(c.session.queue.entries.map(\.uri), [
            "file:///music/Abba/Gold/02 Waterloo.ogg", "file:///music/Abba/Arrival/01 Money.ogg", "https://pod.example/ep1.mp3",
        ])
        XCTAssertEqual(c.send("clear"), "OK\n")
        XCTAssertEqual(c.send("add /"), "OK\n")
        XCTAssertEqual(c.session.queue.count, 5, "the whole database, as in MPD")
        XCTAssertEqual(c.send("addid Abba"), "ACK [50@0] {addid} No such song or directory: Abba\n", "addid takes one song")
        XCTAssertEqual(c.send("add Nowhere/x.ogg"), "ACK [50@0] {add} No such song or directory: Nowhere/x.ogg\n")
    }

    /// `list` with no group or one (counted from the tree's columns) and with two (walked): the
    /// same rows in MPD's byte order, each once, songs of several genres under each of them.
    func testListsOfOneGroupAndOfTwoAgree() {
        let c = Conversation()
        let genres = ["Rock;Pop", "Pop", nil, "Émo", "rock"]
        for i in 0..<40 {
            c.library.add("/music/a/\(i).ogg", title: "T\(i)", artist: ["Zed", "abba", "Abba", "Ärzte"][i % 4],
                          album: i % 5 == 0 ? nil : "Album \(i % 3)", genre: genres[i % genres.count])
        }
        c.settle()
        XCTAssertEqual(lines(c, "list genre", "Genre"), ["", "Pop", "Rock", "rock", "Émo"], "byte order, the empty value first")
        let one = c.send("list genre group artist")
        let two = c.send("list genre group artist group album")
        // Two groups, with the album lines taken out and each artist's genres merged, give one group's rows.
        var merged: [String: Set<String>] = [:]
        var artist = ""
        for line in two.split(separator: "\n") {
            if line.hasPrefix("Artist: ") { artist = String(line.dropFirst(8)) }
            if line.hasPrefix("Genre: ") { merged[artist, default: []].insert(String(line.dropFirst(7))) }
        }
        let expected = merged.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.flatMap { artist in
            ["Artist: \(artist)"] + merged[artist]!.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { "Genre: \($0)" }
        }
        XCTAssertEqual(one.split(separator: "\n").map(String.init), expected + ["OK"])
        XCTAssertEqual(lines(c, "list genre group artist", "Artist"), ["Abba", "Zed", "abba", "Ärzte"])
        XCTAssertEqual(lines(c, #"list genre "(artist == \"Zed\")" group artist"#, "Genre"), ["", "Pop", "Rock", "rock", "Émo"])
    }

    func testCountAndListWithGroups() {
        let c = stocked()
        XCTAssertEqual(c.send("count album Gold"), "songs: 2\nplaytime: 180\nOK\n")
        XCTAssertEqual(c.send(#"count "(artist == \"Abba\")" group album"#),
                       "Album: Arrival\nsongs: 1\nplaytime: 60\nAlbum: Gold\nsongs: 2\nplaytime: 180\nOK\n")
        XCTAssertEqual(lines(c, "list artist", "Artist"), ["AC/DC", "Abba", "Pod"])
        XCTAssertEqual(c.send("list album group artist"), """
            Artist: AC/DC
            Album: Back in Black
            Artist: Abba
            Album: Arrival
            Album: Gold
            Artist: Pod
            Album: 
            OK

            """, "a song without the tag is listed with it empty, as MPD does")
        XCTAssertEqual(lines(c, "list album artist Abba", "Album"), ["Arrival", "Gold"])
        XCTAssertEqual(c.send("list mood"), "Mood: \nOK\n", "a tag of MPD's that reel keeps no values for: empty")
        XCTAssertEqual(c.send("list nonsense"), "ACK [2@0] {list} Unknown tag type: nonsense\n")
        // As in MPD, a song without AlbumArtist is listed and found under its Artist.
        XCTAssertEqual(lines(c, "list albumartist", "AlbumArtist"), ["AC/DC", "Abba", "Pod"])
        XCTAssertEqual(lines(c, "find albumartist Abba", "Title").count, 3)
        XCTAssertEqual(lines(c, #"lsinfo "Abba/Gold/02 Waterloo.ogg""#, "AlbumArtist"), [], "but not shown as its own")
    }

    func testUpdatesQueueAsMPDsDoAndTheDatabaseIdleComesOnceWhenSomethingChanged() {
        let c = stocked()
        XCTAssertEqual(c.send("update"), "updating_db: 1\nOK\n")
        XCTAssertEqual(c.library.rescans, [false])
        XCTAssertEqual(c.pairs("status")["updating_db"], "1")
        XCTAssertEqual(c.send("update Abba"), "updating_db: 2\nOK\n", "queued behind the first, as MPD 0.23 does")
        XCTAssertEqual(c.library.imports, [["/music"], ["/music/Abba"]])
        _ = c.endTurn()
        XCTAssertEqual(c.send("idle database update"), "changed: update\nOK\n", "the start, kept for the client's next idle")
        XCTAssertEqual(c.send("idle database update"), "")
        c.library.finishNextImport()   // it found nothing changed
        XCTAssertEqual(c.endTurn(), "changed: update\nOK\n", "a job ended; nothing changed, so no database")
        XCTAssertEqual(c.pairs("status")["updating_db"], "2")
        XCTAssertEqual(c.send("idle database"), "")
        c.library.add("/music/Abba/New/1.ogg", title: "New")   // what the second writes as it goes
        XCTAssertEqual(c.endTurn(), "", "clients hear of it when the scan ends, not at each batch")
        c.library.finishNextImport()
        XCTAssertEqual(c.endTurn(), "changed: database\nOK\n")
        XCTAssertNil(c.pairs("status")["updating_db"])
        XCTAssertEqual(c.send("rescan Abba/Gold"), "updating_db: 3\nOK\n")
        XCTAssertEqual(c.library.imports.last, ["/music/Abba/Gold"])
        XCTAssertEqual(c.library.rescans.last, true, "rescan reads everything again")
        for i in 4...35 { XCTAssertEqual(c.send("update"), "updating_db: \(i)\nOK\n") }
        XCTAssertEqual(c.send("update"), "ACK [54@0] {update} Update queue is full\n", "one running and 32 waiting, as MPD")
    }

    func testChangesMadeElsewhereWakeDatabaseAndStoredPlaylistIdles() {
        let c = stocked()
        _ = c.endTurn()
        XCTAssertEqual(c.send("idle database stored_playlist"), "")
        c.library.add("/music/New/1.ogg", title: "New")   // an import by reel's CLI
        XCTAssertEqual(c.endTurn(), "changed: database\nOK\n")
        XCTAssertEqual(c.send("idle database stored_playlist"), "")
        _ = try? c.library.savePlaylist("from MPRIS")
        XCTAssertEqual(c.endTurn(), "changed: stored_playlist\nOK\n")
    }

    func testStoredPlaylists() {
        let c = stocked()
        c.send("findadd album Gold")
        XCTAssertEqual(c.send("save Best"), "OK\n")
        XCTAssertEqual(c.send("save Best"), "ACK [56@0] {save} Playlist already exists\n")
        XCTAssertEqual(c.send("save a/b"), "ACK [2@0] {save} Bad playlist name\n")
        XCTAssertEqual(c.send("listplaylists"), "playlist: Best\nLast-Modified: 2026-01-01T00:00:00Z\nOK\n")
        XCTAssertEqual(lines(c, "listplaylist Best", "file"), ["Abba/Gold/01 Dancing Queen.ogg", "Abba/Gold/02 Waterloo.ogg"])
        XCTAssertEqual(lines(c, "listplaylistinfo Best", "Title"), ["Dancing Queen", "Waterloo"])
        XCTAssertEqual(c.send("load Best 1:2"), "OK\n")
        XCTAssertEqual(c.session.queue.count, 3, "load appends")
        XCTAssertEqual(c.send("rename Best Better"), "OK\n")
        XCTAssertEqual(c.send("load Best"), "ACK [50@0] {load} No such playlist\n")
        XCTAssertEqual(c.send("rm Better"), "OK\n")
        XCTAssertEqual(c.send("listplaylists"), "OK\n")
        _ = c.endTurn()
        XCTAssertEqual(c.send("idle stored_playlist"), "changed: stored_playlist\nOK\n")
    }

    func testAlbumartComesInChunksOfTheBinaryLimit() throws {
        let c = stocked()
        let cover = FileManager.default.temporaryDirectory.appendingPathComponent("reel-mpd-cover-\(getpid()).png")
        let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (8..<200).map { UInt8($0) }   // a PNG by its first bytes
        try Data(bytes).write(to: cover)
        defer { try? FileManager.default.removeItem(at: cover) }
        c.session.covers["/music/Abba/Gold/02 Waterloo.ogg"] = cover.absoluteString
        c.send("binarylimit 64")
        var received: [UInt8] = []
        while received.count < 200 {
            let reply = c.answer(#"albumart "Abba/Gold/02 Waterloo.ogg" \#(received.count)"#)
            let header = "size: 200\nbinary: \(min(64, 200 - received.count))\n"
            XCTAssertEqual(Array(reply.prefix(header.utf8.count)), Array(header.utf8))
            let chunk = reply.dropFirst(header.utf8.count).dropLast(4)   // "\nOK\n"
            received += chunk
            XCTAssertEqual(Array(reply.suffix(4)), Array("\nOK\n".utf8))
        }
        XCTAssertEqual(received, bytes)
        XCTAssertTrue(c.send(#"readpicture "Abba/Gold/02 Waterloo.ogg" 0"#).contains("type: image/png"))
        XCTAssertEqual(c.send(#"albumart "Abba/Gold/01 Dancing Queen.ogg" 0"#), "ACK [50@0] {albumart} No file exists\n")
        XCTAssertEqual(c.send(#"readpicture "Abba/Gold/01 Dancing Queen.ogg" 0"#), "OK\n")
        XCTAssertEqual(c.send(#"albumart "Abba/Gold/02 Waterloo.ogg" 500"#), "ACK [2@0] {albumart} Offset too large\n")
    }

    func testWithoutALibraryTheDatabaseSaysWhy() throws {
        let session = ScriptedSession()
        let client = ClientProtocol(commands: try MPDCommands(session: session, library: nil, password: nil), authorized: true)
        _ = client.takeOutput()
        client.receive("lsinfo")
        XCTAssertEqual(String(decoding: client.takeOutput(), as: UTF8.self), "ACK [52@0] {lsinfo} reel runs without a library\n")
    }

    func testDatesAreISO8601InUTC() {
        XCTAssertEqual(UTCTime.iso8601(0), "1970-01-01T00:00:00Z")
        XCTAssertEqual(UTCTime.iso8601(951_782_400), "2000-02-29T00:00:00Z")
        XCTAssertEqual(UTCTime.iso8601(1_796_083_199), "2026-11-30T23:59:59Z")
        XCTAssertEqual(UTCTime.iso8601(-1), "1969-12-31T23:59:59Z")
    }

    func testMPDsTagsWithoutValuesFilterListAndGroupAsEmpty() {
        // ncmpcpp sends these, and looped on their refusal (issue 31).
        let c = stocked()
        XCTAssertEqual(lines(c, #"find "(Date == \"\")""#, "Title").count, 5, "every song has no date")
        XCTAssertEqual(lines(c, #"find Date """#, "Title").count, 5)
        XCTAssertEqual(lines(c, #"find disc "2""#, "Title"), [])
        XCTAssertEqual(c.send("list date"), "Date: \nOK\n")
        XCTAssertEqual(lines(c, "list album group date", "Album"), ["", "Arrival", "Back in Black", "Gold"])
        XCTAssertEqual(lines(c, "list album group date", "Date"), [""])
        // A hostile list: the same multi-valued tag grouped again and again would multiply the rows without end.
        XCTAssertEqual(c.send("list title" + String(repeating: " group genre", count: 40)),
                       "ACK [2@0] {list} Conflicting group\n")
        XCTAssertEqual(c.send(#"find Nonsense "x""#), "ACK [2@0] {find} Unknown filter type: Nonsense\n")
        XCTAssertEqual(lines(c, #"find album """#, "Title"), ["Episode 1"], "a song without an album has it empty")
    }

    func testOldFormsCountWithoutAFilterAndStats() {
        let c = stocked()
        XCTAssertEqual(lines(c, #"list album "Abba""#, "Album"), ["Arrival", "Gold"], "list album ARTIST, the old form")
        XCTAssertEqual(c.send("count group artist"), """
            Artist: AC/DC
            songs: 1
            playtime: 60
            Artist: Abba
            songs: 3
            playtime: 240
            Artist: Pod
            songs: 1
            playtime: 60
            OK

            """)
        let stats = c.pairs("stats")
        XCTAssertEqual(stats["songs"], "5")
        XCTAssertGreaterThan(Int64(stats["db_update"] ?? "") ?? 0, 1_600_000_000, "cantata loads no library without it: \(stats)")
    }

    func testStoredPlaylistsAreEditedInPlace() {
        let c = stocked()
        XCTAssertEqual(c.send(#"playlistadd Mix "Abba/Gold/02 Waterloo.ogg""#), "OK\n", "makes the playlist")
        XCTAssertEqual(c.send("playlistadd Mix ACDC"), "OK\n", "a folder adds its songs")
        XCTAssertEqual(c.send(#"playlistadd Mix "Abba/Arrival/01 Money.ogg" 0"#), "OK\n")
        XCTAssertEqual(lines(c, "listplaylist Mix", "file"),
                       ["Abba/Arrival/01 Money.ogg", "Abba/Gold/02 Waterloo.ogg", "ACDC/Back in Black/01 Hells Bells.ogg"])
        XCTAssertEqual(c.send("playlistmove Mix 0 2"), "OK\n")
        XCTAssertEqual(lines(c, "listplaylistinfo Mix", "Title"), ["Waterloo", "Hells Bells", "Money, Money, Money"])
        XCTAssertEqual(c.send("playlistdelete Mix 1"), "OK\n")
        XCTAssertEqual(lines(c, "listplaylistinfo Mix", "Title"), ["Waterloo", "Money, Money, Money"])
        XCTAssertEqual(c.send("playlistdelete Mix 5"), "ACK [2@0] {playlistdelete} Bad song index\n")
        XCTAssertEqual(c.send("playlistdelete None 0"), "ACK [50@0] {playlistdelete} No such playlist\n")
        XCTAssertEqual(c.send("playlistadd Mix /etc/passwd"), "ACK [50@0] {playlistadd} No such song or directory: /etc/passwd\n")
        XCTAssertEqual(c.send(#"searchaddpl Mix title "bells""#), "OK\n")
        XCTAssertEqual(lines(c, "listplaylistinfo Mix", "Title"), ["Waterloo", "Money, Money, Money", "Hells Bells"])
        XCTAssertEqual(c.send("playlistclear Mix"), "OK\n")
        XCTAssertEqual(c.send("listplaylist Mix"), "OK\n")
        XCTAssertEqual(c.send("playlistadd a/b ACDC"), "ACK [2@0] {playlistadd} Bad playlist name\n")
        _ = c.endTurn()
        XCTAssertEqual(c.send("idle stored_playlist"), "changed: stored_playlist\nOK\n")
    }

    func testACompilationGroupsUnderItsAlbumArtistWithTrackDiscAndDate() {
        let c = Conversation()
        for (n, artist) in ["Singer", "Band"].enumerated() {
            var info = ProbedItem(title: "Song \(n + 1)", artist: artist, album: "Hits", duration: 60_000_000,
                                  localPath: "/music/Hits/\(n + 1).ogg")
            (info.albumArtist, info.track, info.disc, info.date) = ("Various", n + 1, 2, "1976")
            (info.modified, info.format) = (1_767_225_600, "44100:16:2")
            c.library.items.append(LibraryItem(id: Int64(n + 1), info: info))
        }
        c.settle()
        XCTAssertEqual(c.send("list album group albumartist"), "AlbumArtist: Various\nAlbum: Hits\nOK\n",
                       "a compilation under its album artist, not its track artists")
        XCTAssertEqual(lines(c, "find albumartist Various", "Title"), ["Song 1", "Song 2"])
        XCTAssertEqual(lines(c, "find albumartist Singer", "Title"), [])
        XCTAssertEqual(c.send("list date"), "Date: 1976\nOK\n")
        XCTAssertEqual(lines(c, #"find disc "2""#, "Title").count, 2)
        let song = c.send(#"lsinfo "Hits/2.ogg""#)
        XCTAssertTrue(song.hasPrefix("file: Hits/2.ogg\nLast-Modified: 2026-01-01T00:00:00Z\nFormat: 44100:16:2\nArtist: Band\n"),
                      "in MPD's order: \(song)")
        for line in ["Artist: Band", "AlbumArtist: Various", "Track: 2", "Date: 1976", "Disc: 2"] {
            XCTAssertTrue(song.contains(line + "\n"), "\(line) not in \(song)")
        }
    }
}


final class LibraryTreeTests: XCTestCase {
    func testTheDatabaseIsWhatLiesInTheMusicFolderAndTheRemoteOnes() {
        let items = [
            LibraryItem(id: 1, info: ProbedItem(localPath: "/m/x/1.ogg")),
            LibraryItem(id: 2, info: ProbedItem(localPath: "/m/x/y/2.ogg")),
            LibraryItem(id: 3, info: ProbedItem(localPath: "/m/xy/3.ogg")),
            LibraryItem(id: 4, info: ProbedItem(localPath: "/etc/passwd")),
            LibraryItem(id: 5, info: ProbedItem(remoteURL: "https://example.org/5.mp3")),
        ]
        XCTAssertEqual(LibraryTree(items, root: "/m/x").songs.map(\.file), ["1.ogg", "https://example.org/5.mp3", "y/2.ogg"],
                       "an item outside the music folder is not in the database, nor does it move it")
        XCTAssertEqual(LibraryTree(items, root: nil).songs.map(\.file), ["https://example.org/5.mp3"])
        XCTAssertEqual(LibraryTree(items, root: "/").songs.count, 5)
    }

    func testAPlainNameStaysInsideItsFolder() {
        for name in ["", "a", "a/b", "a b/c.ogg", "..a", "a..", ".hidden"] { XCTAssertTrue(LibraryTree.isPlainName(name), name) }
        for name in ["..", "../x", "a/../../x", "a/./b", "./a", "a//b", "a/", "/a"] { XCTAssertFalse(LibraryTree.isPlainName(name), name) }
    }

    func testTheDatabaseIsBuiltAgainOnlyWhenTheLibraryChanged() {
        let c = Conversation()
        c.library.add("/music/a.ogg", title: "A")
        XCTAssertEqual(c.send("list title"), "Title: A\nOK\n")
        c.library.add("/music/b.ogg", title: "B")
        XCTAssertEqual(c.send("list title"), "Title: A\nTitle: B\nOK\n")
    }
}
