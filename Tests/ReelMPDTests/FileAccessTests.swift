import Foundation
import ReelCore
import ReelSystem
@testable import ReelMPD
import XCTest

/// MPD's rule for files: the Unix socket's client (the user) may name any
/// of their files; every other client sees, queues and reads only the music
/// folder's, and nothing it names opens anything that could block.
final class FileAccessTests: XCTestCase {
    var top: URL!
    var music: URL { top.appendingPathComponent("music") }
    var outside: URL { top.appendingPathComponent("outside") }
    var covers: URL { top.appendingPathComponent("covers") }

    override func setUpWithError() throws {
        top = FileManager.default.temporaryDirectory.appendingPathComponent("reel-files-\(UUID().uuidString.prefix(8))")
        for dir in [music.appendingPathComponent("Album"), music.appendingPathComponent("Odd"), outside, covers] {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
        try Data("secret".utf8).write(to: outside.appendingPathComponent("id_rsa"))
        try Data([1, 2, 3]).write(to: outside.appendingPathComponent("cover.jpg"))
        // Images by their first bytes (GIF's are text): a cover is served only when it is one.
        try Data("GIF89a\u{7}\u{7}".utf8).write(to: music.appendingPathComponent("Album/cover.jpg"))
        try Data("GIF87a\u{9}".utf8).write(to: covers.appendingPathComponent("extracted.jpg"))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: top) }

    func conversation(local: Bool) -> Conversation {
        let c = Conversation(local: local, musicFolder: music.path, coverFolder: covers.path)
        c.library.add(music.appendingPathComponent("Album/a.ogg").path, title: "A")
        c.library.add(music.appendingPathComponent("Odd/b.ogg").path, title: "B")
        c.library.add(outside.appendingPathComponent("c.ogg").path, title: "C")   // queued once over MPRIS
        return c
    }

    func testOnlyTheUnixSocketsClientQueuesFilesByPath() {
        let tcp = conversation(local: false)
        XCTAssertEqual(tcp.send("add /etc/shadow"), "ACK [50@0] {add} No such song\n")
        XCTAssertEqual(tcp.send("add /proc/self/environ"), "ACK [50@0] {add} No such song\n")
        XCTAssertEqual(tcp.send("addid file:///home/u/private.m3u"),
                       "ACK [4@0] {addid} Access denied: local files only through the Unix socket\n")
        XCTAssertEqual(tcp.send(#"add "\#(outside.appendingPathComponent("c.ogg").path)""#), "ACK [50@0] {add} No such song\n")
        XCTAssertEqual(tcp.session.queue.count, 0)
        XCTAssertEqual(tcp.send("add Album/a.ogg"), "OK\n", "a song of the database")
        XCTAssertEqual(tcp.send("add https://radio.example/stream"), "OK\n", "a remote URL, as MPD allows")
        let local = conversation(local: true)
        XCTAssertEqual(local.send("add /elsewhere/song.ogg"), "OK\n")
    }

    func testAnItemOutsideTheMusicFolderMovesNothing() {
        let c = conversation(local: false)
        let listing = c.send("lsinfo").split(separator: "\n")
        XCTAssertEqual(listing.filter { !$0.hasPrefix("Last-Modified: ") }, ["directory: Album", "directory: Odd", "OK"])
        XCTAssertEqual(listing.filter { $0.hasPrefix("Last-Modified: ") }.count, 2, "each folder with its time, as MPD")
        XCTAssertEqual(c.send("lsinfo Album").components(separatedBy: "\n").first, "file: Album/a.ogg")
        XCTAssertTrue(c.send("listall").components(separatedBy: "\n").allSatisfy { !$0.contains("c.ogg") })
    }

    func testUpdateStaysInsideTheMusicFolder() {
        let c = conversation(local: false)
        for name in ["../outside", "Album/../../outside", "/../outside", "./Album"] {
            XCTAssertEqual(c.send(#"update "\#(name)""#), "ACK [2@0] {update} Malformed path\n", name)
        }
        XCTAssertEqual(c.library.imports, [])
        XCTAssertEqual(c.send("update /Album/"), "updating_db: 1\nOK\n", "a folder of it, with the slashes clients write")
        XCTAssertEqual(c.library.imports, [[music.appendingPathComponent("Album").path]])
        // A path elsewhere imports nothing and says so, whoever asks; the owner may name one inside by its path.
        let local = conversation(local: true)
        for c in [c, local] {
            for name in ["/etc", outside.path, "/no/such/place", music.path + "/../outside"] {
                XCTAssertEqual(c.send(#"update "\#(name)""#), "ACK [2@0] {update} Malformed path\n", name)
            }
        }
        XCTAssertEqual(c.send(#"update "\#(music.path)/Album""#), "ACK [2@0] {update} Malformed path\n", "a path is the owner's to name")
        XCTAssertEqual(local.send(#"update "\#(music.path)/Album""#), "updating_db: 1\nOK\n")
        XCTAssertEqual(local.send(#"rescan "\#(music.path)""#), "updating_db: 2\nOK\n")
        XCTAssertEqual(local.library.imports, [[music.appendingPathComponent("Album").path], [music.path]])
    }

    func testCoversOutsideTheMusicFolderAreNotServedToTCPClients() throws {
        let c = conversation(local: false)
        let a = music.appendingPathComponent("Album/a.ogg").path
        c.session.covers[a] = music.appendingPathComponent("Album/cover.jpg").absoluteString
        XCTAssertEqual(c.send("albumart Album/a.ogg 0"), "size: 8\nbinary: 8\nGIF89a\u{7}\u{7}\nOK\n")
        XCTAssertEqual(c.send("albumart Album 0"), "size: 8\nbinary: 8\nGIF89a\u{7}\u{7}\nOK\n", "a folder's cover, as MPD serves it")
        // An absolute path names no song for this client.
        c.session.covers[outside.appendingPathComponent("x.ogg").path] = outside.appendingPathComponent("cover.jpg").absoluteString
        XCTAssertEqual(c.send(#"albumart "\#(outside.appendingPathComponent("x.ogg").path)" 0"#), "ACK [50@0] {albumart} No file exists\n")
        // A cover.jpg in the library that links to a secret.
        let b = music.appendingPathComponent("Odd/b.ogg").path
        let link = music.appendingPathComponent("Odd/cover.jpg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside.appendingPathComponent("id_rsa"))
        c.session.covers[b] = link.absoluteString
        XCTAssertEqual(c.send("albumart Odd/b.ogg 0"), "ACK [50@0] {albumart} No file exists\n")
        XCTAssertEqual(c.send("readpicture Odd/b.ogg 0"), "OK\n")
        // What reel extracted itself is served.
        c.session.covers[b] = covers.appendingPathComponent("extracted.jpg").absoluteString
        XCTAssertEqual(c.send("albumart Odd/b.ogg 0"), "size: 7\nbinary: 7\nGIF87a\u{9}\nOK\n")
        // Nor to the user's own socket: no link out of the music folder is followed for a cover.
        let local = conversation(local: true)
        local.session.covers[b] = link.absoluteString
        XCTAssertEqual(local.send("albumart Odd/b.ogg 0"), "ACK [50@0] {albumart} No file exists\n")
    }

    func testOnlyImagesAreServedAndTheOwnerGetsACoverBesideAFileOfItsOwn() throws {
        let local = conversation(local: true), tcp = conversation(local: false)
        let song = outside.appendingPathComponent("c.ogg").path
        // A file of the user's outside the music folder, with an image beside it.
        try Data("GIF89a\u{5}".utf8).write(to: outside.appendingPathComponent("cover.jpg"))
        local.session.covers[song] = outside.appendingPathComponent("cover.jpg").absoluteString
        XCTAssertEqual(local.send(#"albumart "\#(song)" 0"#), "size: 7\nbinary: 7\nGIF89a\u{5}\nOK\n")
        // A cover.jpg in the music folder that is no image, for anyone: a key, a text, an empty file.
        // (Each its own name: what was read is kept a moment for the next client.)
        let a = music.appendingPathComponent("Album/a.ogg").path
        for (n, bytes) in ["-----BEGIN OPENSSH PRIVATE KEY-----", "just text", ""].enumerated() {
            let cover = music.appendingPathComponent("Album/cover\(n).jpg")
            try Data(bytes.utf8).write(to: cover)
            for c in [local, tcp] {
                c.session.covers[a] = cover.absoluteString
                XCTAssertEqual(c.send("albumart Album/a.ogg 0"), "ACK [50@0] {albumart} No file exists\n", bytes)
            }
        }
        // A link to an image elsewhere inside the music folder is followed; its type is what it is.
        try Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8).write(to: music.appendingPathComponent("Odd/art.webp"))
        let linked = music.appendingPathComponent("Album/linked.jpg")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: music.appendingPathComponent("Odd/art.webp"))
        tcp.session.covers[a] = linked.absoluteString
        XCTAssertEqual(tcp.send("albumart Album/a.ogg 0"), "size: 16\nbinary: 16\nRIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 \nOK\n")
        XCTAssertEqual(ImageSniff.type(of: Array("\u{89}PNG".utf8)), nil, "not PNG's magic: 0x89 is one byte")
        XCTAssertEqual(ImageSniff.type(of: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "image/png")
        XCTAssertEqual(ImageSniff.type(of: [0xFF, 0xD8, 0xFF, 0xE0]), "image/jpeg")
        XCTAssertNil(ImageSniff.type(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)), "a WAV is RIFF too")
    }

    func testACoverThatIsNoRegularFileIsNeverOpenedToWait() throws {
        let c = conversation(local: true)
        let fifo = music.appendingPathComponent("Album/cover.jpg")
        try FileManager.default.removeItem(at: fifo)
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        c.session.covers[music.appendingPathComponent("Album/a.ogg").path] = fifo.absoluteString
        XCTAssertEqual(c.send("albumart Album/a.ogg 0"), "ACK [50@0] {albumart} No file exists\n",
                       "a FIFO answers at once, with no file")
        c.session.covers[music.appendingPathComponent("Album/a.ogg").path] = music.appendingPathComponent("Album").absoluteString
        XCTAssertEqual(c.send("albumart Album/a.ogg 0"), "ACK [50@0] {albumart} No file exists\n", "nor a folder")
    }

    func testACoverOnADiskThatHangsHoldsOnlyItsOwnClient() throws {
        let c = conversation(local: false)
        c.session.covers[music.appendingPathComponent("Album/a.ogg").path] = music.appendingPathComponent("Album/cover.jpg").absoluteString
        // A disk that hangs in open(2) or read(2) until it is let go.
        let disk = DispatchSemaphore(value: 0)
        c.commands.covers = try CoverReader(read: { request in
            disk.wait()
            return CoverReader.read(request)
        })
        let other = ClientProtocol(commands: c.commands, authorized: true)
        _ = other.takeOutput()

        c.client.receive("command_list_ok_begin")
        c.client.receive("ping")
        c.client.receive("albumart Album/a.ogg 0")
        c.client.receive("ping")
        c.client.receive("command_list_end")
        c.client.proceed(outputLimit: .max, deadline: .max)
        XCTAssertTrue(c.client.isWaiting)
        XCTAssertEqual(String(decoding: c.client.takeOutput(), as: UTF8.self), "list_OK\n", "what ran before the cover")

        // Meanwhile the loop serves everyone else, covers' folders included.
        other.receive("status")
        XCTAssertTrue(String(decoding: other.takeOutput(), as: UTF8.self).hasSuffix("OK\n"))
        other.receive("lsinfo Album")
        XCTAssertTrue(String(decoding: other.takeOutput(), as: UTF8.self).contains("file: Album/a.ogg"))

        disk.signal()
        c.commands.covers.finish()
        XCTAssertEqual(c.commands.covers.news.take().count, 1, "the loop is woken")
        c.client.resume()
        c.client.proceed(outputLimit: .max, deadline: .max)
        XCTAssertFalse(c.client.isWaiting || c.client.isBusy)
        XCTAssertEqual(String(decoding: c.client.takeOutput(), as: UTF8.self), "size: 8\nbinary: 8\nGIF89a\u{7}\u{7}\nlist_OK\nlist_OK\nOK\n")
    }

    func testAWaitingCoverAnswersAsAnyCommandDoes() {
        let c = conversation(local: false)
        c.session.covers[music.appendingPathComponent("Album/a.ogg").path] = music.appendingPathComponent("Album/cover.jpg").absoluteString
        XCTAssertEqual(c.send("readpicture Odd/b.ogg 0"), "OK\n", "none: nothing, as MPD answers")
        XCTAssertEqual(c.send("albumart Album/a.ogg 9"), "ACK [2@0] {albumart} Offset too large\n")
        XCTAssertEqual(c.send("command_list_begin", "albumart Album/a.ogg 0", "albumart Odd/b.ogg 0", "ping", "command_list_end"),
                       "size: 8\nbinary: 8\nGIF89a\u{7}\u{7}\nACK [50@1] {albumart} No file exists\n", "an error names its place after a wait")
    }

    func testAPictureInTheSongIsServedBeforeTheSongHasPlayed() throws {
        let c = conversation(local: false)
        let extracted = LockedList()
        // The daemon's extractor: the picture goes into reel's cover folder.
        c.commands.covers = try CoverReader(extract: { [covers] song in
            extracted.append(song)
            return song.hasSuffix("a.ogg") ? covers.appendingPathComponent("extracted.jpg").path : nil
        })
        XCTAssertEqual(c.send("readpicture Album/a.ogg 0"), "size: 7\ntype: image/gif\nbinary: 7\nGIF87a\u{9}\nOK\n")
        XCTAssertEqual(c.send("readpicture Odd/b.ogg 0"), "OK\n", "no picture: nothing, as MPD answers")
        XCTAssertEqual(extracted.items, [music.appendingPathComponent("Album/a.ogg").path, music.appendingPathComponent("Odd/b.ogg").path])
        // An extractor's image outside the allowed folders is not served to TCP.
        c.commands.covers = try CoverReader(extract: { [outside] _ in outside.appendingPathComponent("id_rsa").path })
        XCTAssertEqual(c.send("albumart Album/a.ogg 0"), "ACK [50@0] {albumart} No file exists\n")
    }
}

/// Strings appended from any thread.
final class LockedList: @unchecked Sendable {
    // @unchecked: `list` is only touched under `lock`.
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ item: String) { lock.withLock { list.append(item) } }
    var items: [String] { lock.withLock { list } }
}
