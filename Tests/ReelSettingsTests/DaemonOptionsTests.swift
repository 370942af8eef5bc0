import XCTest
@testable import ReelSettings
import ReelCore

final class DaemonOptionsTests: XCTestCase {
    func run(_ args: [String], defaults: DaemonOptions = DaemonOptions()) -> DaemonOptions? {
        if case .run(let options) = DaemonOptions.parse(args, defaults: defaults) { return options }
        return nil
    }

    func testValuesBothWaysAndFiles() throws {
        let o = try XCTUnwrap(run(["--ao", "null", "--cache-size=500M", "--paused", "a.ogg", "--", "--odd.ogg"]))
        XCTAssertEqual(o.audioOutput, "null")
        XCTAssertEqual(o.cacheSize, 500 << 20)
        XCTAssertTrue(o.startPaused)
        XCTAssertEqual(o.files, ["a.ogg", "--odd.ogg"])
        XCTAssertEqual(run(["--mpd-timeout", "5"])?.mpdTimeout, 5)
    }

    func testMistakesExitWithStatus2AndSayWhich() {
        for (args, words) in [(["--frobnicate"], "unknown option --frobnicate"), (["--ao"], "--ao needs NAME"),
                              (["--readahead", "1K"], "--readahead needs a size of at least 64K"),
                              (["--paused=yes"], "--paused takes no value"),
                              (["--mpd-password", "x"], "a command line is public"),
                              (["--mpd-listen", "0.0.0.0:6600"], "without a password")] {
            guard case .exit(let status, let text) = DaemonOptions.parse(args) else { XCTFail("\(args) ran"); continue }
            XCTAssertEqual(status, 2, "\(args)")
            XCTAssertTrue(text.contains(words), "\(args): \(text)")
        }
    }

    func testHelpAndVersion() {
        XCTAssertEqual(DaemonOptions.parse(["--version"]), .exit(0, "reeld \(reelVersion)"))
        guard case .exit(0, let help) = DaemonOptions.parse(["-h"]) else { return XCTFail("no help") }
        for option in DaemonOption.all where option.onCommandLine {
            XCTAssertTrue(help.collapsingWhitespace.contains((option.commandLineForm + " " + option.helpWithDefault).collapsingWhitespace),
                          option.name)
        }
        XCTAssertFalse(help.contains("--mpd-password"), "a config-only key is not offered on the command line")
    }

    func testConfigFileNamesTheLineOfEachProblemAndKeepsTheRest() {
        var o = DaemonOptions()
        let problems = ConfigFile.apply("# reel\nao = pulse\nvolume = 11\nvideo = maybe\nnonsense\npaused = true\n"
                                        + "readahead=1M   # a comment\ncache-size = \n", to: &o)
        XCTAssertEqual(problems.map(\.line), [3, 4, 5, 6, 8])
        XCTAssertTrue(problems[0].message.hasPrefix("unknown setting volume (known: ao, output,"), problems[0].message)
        XCTAssertEqual(problems[1].message, "bad value for video: maybe (needs true or false)")
        XCTAssertEqual(problems[2].message, "expected key = value")
        XCTAssertTrue(problems[3].message.contains("command-line option only"))
        XCTAssertEqual(o.audioOutput, "pulse")
        XCTAssertEqual(o.readahead, 1 << 20)
        XCTAssertEqual(o.cacheSize, DaemonOptions().cacheSize, "a bad line changes nothing")
    }

    func testControlCharactersInAValueAreRefused() {
        var o = DaemonOptions()
        let problems = ConfigFile.apply("ao = a\u{0}b\nvo = \u{1B}[31mred\nmpd-password = pass\tword\n", to: &o)
        XCTAssertEqual(problems.map(\.line), [1, 2])
        XCTAssertEqual(problems.first?.message, "bad value for ao: it holds control characters")
        XCTAssertNil(o.audioOutput)
        XCTAssertNil(o.videoOutput)
        XCTAssertEqual(o.mpdPassword, "pass\tword", "a tab is white space, not a control to refuse")
    }

    func testTheCommandLineWinsOverTheFile() {
        var defaults = DaemonOptions()
        XCTAssertEqual(ConfigFile.apply("replaygain = album\nnetwork-timeout = 30\n", to: &defaults), [])
        let o = run(["--replaygain", "off"], defaults: defaults)
        XCTAssertEqual(o?.replayGain, .off)
        XCTAssertEqual(o?.networkTimeout, 30)
    }

    func testWrapping() {
        XCTAssertEqual("one two three four".wrapped(width: 12, indent: "  "), "  one two\n  three four")
        XCTAssertEqual("a verylongwordindeed b".wrapped(width: 8, indent: ""), "a\nverylongwordindeed\nb")
        XCTAssertEqual("".wrapped(indent: "  "), "")
    }

    func testByteSizes() {
        XCTAssertEqual(ByteSize.parse("4096"), 4096)
        XCTAssertEqual(ByteSize.parse("512k"), 512 << 10)
        XCTAssertEqual(ByteSize.parse("2GB"), 2 << 30)
        XCTAssertNil(ByteSize.parse("-1M"))
        XCTAssertNil(ByteSize.parse("99999999999T"))
    }
}
