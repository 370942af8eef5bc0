import Foundation
import ReelHarness
import XCTest

/// Cantata 2.5 (Qt) under Xvfb, pointed at reel's MPD socket, read from its screen: its library
/// shows each album with its year and album artist (the compilation under "Various Artists",
/// not its track artists), and each album's cover: a folder's cover.jpg (albumart) and a
/// picture embedded in a song that has never played (readpicture). Before reel had `db_update`
/// in `stats`, Cantata's library stayed empty.
final class CantataTests: DaemonTestCase {
    private var cantata: ChildProcess?

    override func tearDown() {
        cantata?.stop()
        super.tearDown()
    }

    func testTheLibraryShowsAlbumsWithTheirYearsAlbumArtistsAndCovers() throws {
        for tool in ["/usr/bin/cantata", "/usr/bin/tesseract", "/usr/bin/import", "/usr/bin/Xvfb"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed (make deps)")
        }
        let music = home.appendingPathComponent("music")
        try makeTaggedLibrary(music)
        try Tones.image(music.appendingPathComponent("Abba/Gold/cover.jpg"), colour: "red")
        let blue = home.appendingPathComponent("blue.jpg")
        try Tones.image(blue, colour: "blue")
        let one = music.appendingPathComponent("Various/Hits/01 One.mp3")
        let withPicture = home.appendingPathComponent("one.mp3")
        try Tones.ffmpeg(["-i", one.path, "-i", blue.path, "-map", "0:a", "-map", "1:v", "-c", "copy", "-id3v2_version", "3",
                          "-disposition:v", "attached_pic", withPicture.path])
        try FileManager.default.removeItem(at: one)
        try FileManager.default.moveItem(at: withPicture, to: one)
        try startWithMPD([], ["--music-dir", music.path])
        try updateAndWait(try connect(socketPath))

        // Cantata's settings as its first-run wizard would leave them, albums at the top of the
        // library. Its music folder is a URL that answers nothing, so that every cover comes
        // over the protocol rather than from the disk.
        let folder = home.appendingPathComponent("config/cantata")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
            [General]
            version=2.5.0

            [Connection]
            host=\(socketPath)
            dir=http://127.0.0.1:1/nowhere/

            [LibraryPage]
            grouping=album
            """.write(to: folder.appendingPathComponent("cantata.conf"), atomically: true, encoding: .utf8)
        let display = try VirtualDisplay(size: "1280x800x24")
        cantata = try ChildProcess(URL(fileURLWithPath: "/usr/bin/cantata"), [], busAddress: bus.address, home: home,
                                   environment: ["DISPLAY": display.display, "QT_QPA_PLATFORM": "xcb", "HOME": home.path])

        let (shown, words) = try screen(of: display, showing: ["Gold", "(1992)", "Abba", "Hits", "(2001)", "Various", "Artists"])
        XCTAssertFalse(words.contains { $0.text == "Zed" || $0.text == "Ärzte" },
                       "the compilation is shown under its track artists: \(kept(shown.file))")
        // The cover is the square left of the album's name: red for Gold (cover.jpg), blue for Hits (embedded).
        func cover(beside album: String) throws -> (r: UInt8, g: UInt8, b: UInt8) {
            let word = try XCTUnwrap(words.first { $0.text == album })
            return shown.pixel(word.x - 16, word.y + word.height / 2)
        }
        let gold = try cover(beside: "Gold"), hits = try cover(beside: "Hits")
        XCTAssertTrue(gold.r > 200 && gold.g < 60 && gold.b < 60, "Gold's cover is not the folder's red one: \(gold), \(kept(shown.file))")
        XCTAssertTrue(hits.b > 200 && hits.r < 60 && hits.g < 60, "Hits's cover is not its song's blue one: \(hits), \(kept(shown.file))")
    }

    /// A copy of a screenshot outside the test's home (which is removed), to look at after a failure.
    private func kept(_ file: URL) -> String {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("reel-cantata-\(getpid()).png")
        try? FileManager.default.removeItem(at: copy)
        try? FileManager.default.copyItem(at: file, to: copy)
        return copy.path
    }

    /// Takes screenshots until the words are all on screen; the last, and the words read on it.
    private func screen(of display: VirtualDisplay, showing texts: [String],
                        timeout: Double = 30) throws -> (Screenshot, [Screenshot.Word]) {
        let deadline = Date().addingTimeInterval(timeout)
        let file = home.appendingPathComponent("cantata.png")
        while true {
            let shot = try Screenshot(of: display.display, savedAs: file)
            let read = try shot.words()
            let words = Set(read.map(\.text))
            let missing = texts.filter { !words.contains($0) }
            if missing.isEmpty { return (shot, read) }
            guard Date() < deadline, cantata?.process.isRunning == true else {
                throw TestFailure("Cantata's screen lacks \(missing) (read: \(words.sorted())); the screen is in \(kept(file));\n"
                                  + "Cantata said:\n\(cantata?.text.suffix(2000) ?? "")")
            }
            listen(for: 0.5)
        }
    }
}
