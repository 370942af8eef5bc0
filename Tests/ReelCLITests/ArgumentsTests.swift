import XCTest
@testable import ReelCLI
import ReelCore

final class ArgumentsTests: XCTestCase {
    func parse(_ line: String) throws -> CLICommand {
        try Arguments.parse(line.split(separator: " ").map(String.init)).1
    }

    func testCommands() throws {
        XCTAssertEqual(try parse("status"), .status(json: false, follow: false))
        XCTAssertEqual(try parse("status --json --follow"), .status(json: true, follow: true))
        XCTAssertEqual(try parse("toggle"), .transport("PlayPause"))
        XCTAssertEqual(try parse("prev"), .transport("Previous"))
        XCTAssertEqual(try parse("seek +10"), .seek(relative: true, micros: 10_000_000))
        XCTAssertEqual(try parse("seek -2.5"), .seek(relative: true, micros: -2_500_000))
        XCTAssertEqual(try parse("seek 1:30"), .seek(relative: false, micros: 90_000_000))
        XCTAssertEqual(try parse("seek 42"), .seek(relative: false, micros: 42_000_000))
        XCTAssertEqual(try parse("add a.ogg http://x/y"), .add(["a.ogg", "http://x/y"]))
        XCTAssertEqual(try parse("goto 3"), .goTo(3))
        XCTAssertEqual(try parse("rm 1"), .remove(1))
        XCTAssertEqual(try parse("rate 1.5"), .rate(1.5))
        XCTAssertEqual(try parse("loop Playlist"), .loop("Playlist"))
        XCTAssertEqual(try parse("shuffle off"), .shuffle(false))
        XCTAssertEqual(try parse("queue --json"), .queue(json: true))
        XCTAssertEqual(try Arguments.parse([]).1, .status(json: false, follow: false))
    }

    func testDoubleDashEndsOptions() throws {
        XCTAssertEqual(try Arguments.parse(["add", "--", "-x.ogg", "y.ogg"]).1, .add(["-x.ogg", "y.ogg"]))
        XCTAssertEqual(try Arguments.parse(["lib", "add", "--", "-report"]).1, .libAdd(["-report"], rescan: false))
        XCTAssertEqual(try Arguments.parse(["lib", "add", "--rescan", "/m"]).1, .libAdd(["/m"], rescan: true))
        XCTAssertEqual(try Arguments.parse(["lib", "add", "--rescan", "--", "--rescan"]).1, .libAdd(["--rescan"], rescan: true))
        XCTAssertThrowsError(try Arguments.parse(["lib", "add", "--rescna", "/m"]))
        XCTAssertEqual(try Arguments.parse(["lib", "problems"]).1, .libProblems(json: false))
        XCTAssertEqual(try Arguments.parse(["start", "--", "-x.ogg"]).1, .start(["-x.ogg"]))
        XCTAssertEqual(try Arguments.parse(["sync", "--", "-feed.xml"]).1, .sync("-feed.xml", download: true, background: false))
    }

    func testPlayerOption() throws {
        let (options, _) = try Arguments.parse(["--player", "reel.instance42", "status"])
        XCTAssertEqual(options.busName, "org.mpris.MediaPlayer2.reel.instance42")
    }

    func testMistakesAreUsageErrors() {
        for line in ["seek", "seek abc", "seek 1:99", "goto 0", "goto x", "rm", "rate nan", "loop forever",
                     "shuffle maybe", "play now", "frobnicate", "--bogus status", "add", "status --yaml"] {
            XCTAssertThrowsError(try parse(line), line)
        }
    }

    func testAnEmptyNameIsAUsageError() {
        // Made absolute, "" was the working directory: `reel add "$UNSET"` must say what is wrong.
        for args in [["add", ""], ["add", "a.ogg", ""], ["add", "--", ""], ["start", ""], ["lib", "add", ""],
                     ["download", ""], ["sync", ""]] {
            XCTAssertThrowsError(try Arguments.parse(args), "\(args)") { error in
                XCTAssertTrue("\(error)".contains("an empty argument"), "\(args): \(error)")
            }
        }
        XCTAssertEqual(try Arguments.parse(["lib", "ls", ""]).1, .libList(query: "", json: false, limit: -1))
    }

    func testTimeText() {
        XCTAssertEqual(ClockText.parse("0.000001"), 1)
        XCTAssertEqual(ClockText.parse("1:02:03.5"), 3_723_500_000)
        XCTAssertEqual(ClockText.parse(".5"), 500_000)
        XCTAssertNil(ClockText.parse("1.2345678"))
        XCTAssertNil(ClockText.parse("1:2:3:4"))
        XCTAssertNil(ClockText.parse(""))
        XCTAssertEqual(ClockText.format(65_900_000), "1:05")
        XCTAssertEqual(ClockText.format(3_723_000_000), "1:02:03")
    }

    func testStatusLine() {
        var s = PlayerStatus()
        XCTAssertEqual(s.line, "Stopped  (nothing queued)")
        s.status = "Playing"
        s.trackID = "/dev/reel/Track/1"
        s.title = "Song"
        s.artists = ["A", "B"]
        s.position = 61_000_000
        s.length = 200_000_000
        s.lastError = "x.ogg: loading failed"
        XCTAssertEqual(s.line, "Playing  Song — A, B  1:01/3:20  [error: x.ogg: loading failed]")
    }

    func testCacheDownloadAndSyncCommands() throws {
        XCTAssertEqual(try parse("download http://x/a 42"), .download(["http://x/a", "42"], background: false))
        XCTAssertEqual(try parse("download --background http://x/a"), .download(["http://x/a"], background: true))
        XCTAssertEqual(try parse("download --cancel http://x/a"), .cancelDownload(["http://x/a"]))
        XCTAssertEqual(try parse("download --cancel --all"), .cancelAllDownloads)
        for bad in ["download --all", "download --cancel --all http://x/a", "download --all --background --cancel"] {
            XCTAssertThrowsError(try parse(bad), bad)
        }
        XCTAssertEqual(try parse("sync --no-download feed.xml"), .sync("feed.xml", download: false, background: false))
        XCTAssertEqual(try parse("sync http://x/feed"), .sync("http://x/feed", download: true, background: false))
        XCTAssertEqual(try parse("cache ls --json"), .cacheList(json: true))
        XCTAssertEqual(try parse("cache path http://x/a"), .cachePath("http://x/a"))
        XCTAssertEqual(try parse("cache clear"), .cacheClear(nil))
        XCTAssertEqual(try parse("cache clear http://x/a"), .cacheClear("http://x/a"))
        XCTAssertEqual(try parse("cache size"), .cacheSize)
        for bad in ["download", "download --fast x", "sync", "sync a b", "sync --all f", "cache", "cache path", "cache rm x"] {
            XCTAssertThrowsError(try parse(bad), bad)
        }
    }
}

final class PrintableTests: XCTestCase {
    func testControlCharactersFromTitlesNeverReachTheTerminal() {
        XCTAssertEqual("plain — ünïcode".printable, "plain — ünïcode")
        XCTAssertEqual("a\u{1B}[2Jb".printable, "a\\x1b[2Jb")
        XCTAssertEqual("one\ntwo\r\t\u{7F}\u{9B}".printable, "one\\ntwo\\r\\t\\x7f\\x9b")
        var status = PlayerStatus()
        status.status = "Playing"
        status.trackID = "/dev/reel/Track/1"
        status.title = "Evil\u{1B}]0;pwned\u{07}\nSecond line"
        status.artists = ["DJ\u{1B}[31m"]
        status.lastError = "x\u{1B}y"
        XCTAssertFalse(status.line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, status.line)
        XCTAssertTrue(status.line.contains("Evil\\x1b]0;pwned\\x07\\nSecond line — DJ\\x1b[31m"), status.line)
    }
}
