import XCTest
@testable import ReelCLI

final class CommandTableTests: XCTestCase {
    /// Every example the help and reel(1) give is a command line the parser takes, as that command.
    func testEveryExampleParsesAsItsCommand() throws {
        for spec in CommandSpec.all {
            for example in spec.examples + spec.subcommands.flatMap(\.examples) {
                var words = example.split(separator: " ").map(String.init)
                if words.first == "source" { words = ["reel", "completion", "bash"] }   // source <(reel completion bash)
                XCTAssertEqual(words.first, "reel", example)
                XCTAssertNoThrow(try Arguments.parse(Array(words.dropFirst())), example)
                XCTAssertEqual(words.dropFirst().first.flatMap { CommandSpec.named($0)?.name }, spec.name, example)
            }
        }
    }

    /// The parser knows every name and alias of the table and nothing else.
    func testNamesAndAliasesResolveThroughTheTable() throws {
        XCTAssertEqual(try Arguments.parse(["previous"]).1, .transport("Previous"))
        XCTAssertEqual(try Arguments.parse(["play-pause"]).1, .transport("PlayPause"))
        XCTAssertEqual(try Arguments.parse(["ls", "--json"]).1, .queue(json: true))
        XCTAssertEqual(try Arguments.parse(["library", "search", "x"]).1, .libList(query: "x", json: false, limit: -1))
        XCTAssertEqual(try Arguments.parse(["playlists", "ls"]).1, .playlistList(json: false))
        XCTAssertEqual(try Arguments.parse(["config", "check"]).1, .configCheck(nil))
        XCTAssertEqual(try Arguments.parse(["completion", "fish"]).1, .completion("fish"))
        XCTAssertEqual(try Arguments.parse(["help", "lib", "add"]).1, .help(["lib", "add"]))
        for words in [["config"], ["config", "frob"], ["completion", "tcsh"], ["help", "frob"], ["help", "lib", "frob"],
                      ["library", "frob", "1"], ["playlist", "drop", "x"]] {
            XCTAssertThrowsError(try Arguments.parse(words), "\(words)")
        }
        var seen = Set<String>()
        for spec in CommandSpec.all {
            for word in [spec.name] + spec.aliases {
                XCTAssertTrue(seen.insert(word).inserted, "\(word) names two commands")
                XCTAssertEqual(CommandSpec.named(word)?.name, spec.name)
            }
            XCTAssertTrue(CommandSpec.groups.contains(spec.group), spec.name)
            XCTAssertTrue(spec.synopsis.allSatisfy { $0.hasPrefix(spec.name) }, spec.name)
        }
    }

    func testHelpShowsEachCommandInTheTablesWords() throws {
        for spec in CommandSpec.all {
            let text = try XCTUnwrap(Help.text(for: [spec.name]), spec.name)
            XCTAssertTrue(text.hasPrefix("usage: reel " + spec.synopsis[0]), spec.name)
            XCTAssertTrue(text.collapsingWhitespace.contains(spec.summary), spec.name)
            for form in spec.synopsis { XCTAssertTrue(Help.usage.contains(form) || spec.subcommands.count > 0, form) }
            for sub in spec.subcommands { XCTAssertTrue(Help.usage.contains(sub.synopsis[0]), sub.synopsis[0]) }
        }
        XCTAssertEqual(Help.text(for: ["rg"]), Help.text(for: ["replaygain"]))
        XCTAssertNotNil(Help.text(for: ["lib", "info"]))
        XCTAssertNil(Help.text(for: ["frob"]))
    }

    func testCompletionOffersTheTablesWordsAndTheDaemonsItems() {
        var source = Completion.Source()
        source.queue = { [(1, "One"), (2, "Two\tTabbed\nline"), (12, "Twelve")] }
        source.library = { [(7, "Seven"), (70, "Seventy")] }
        source.playlists = { ["evening", "bad\nname", "early"] }
        source.players = { ["reel", "vlc"] }
        func offered(_ line: String) -> [String] {
            var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if words == [""] { words = [""] }
            return Completion.candidates(words, source: source)
        }
        XCTAssertTrue(offered("st").contains("status\tWhat is playing, and where"), "\(offered("st"))")
        XCTAssertEqual(offered("st").map { $0.split(separator: "\t")[0] }, ["words", "status", "stop", "start"])
        XCTAssertEqual(offered("--p"), ["words", "--player"])
        XCTAssertEqual(offered("--player v"), ["words", "vlc"])
        XCTAssertEqual(offered("--player vlc goto 1"), ["words", "1\tOne", "12\tTwelve"])
        XCTAssertEqual(offered("rm 2"), ["words", "2\tTwo Tabbed line"])
        XCTAssertEqual(offered("goto 3 "), ["words"], "goto takes one N")
        XCTAssertEqual(offered("loop "), ["words", "none", "track", "playlist"])
        XCTAssertEqual(offered("status --"), ["words", "--json", "--follow"])
        XCTAssertEqual(offered("add "), ["files"])
        XCTAssertEqual(offered("add a.ogg b"), ["files"], "add takes many")
        XCTAssertEqual(offered("lib "), ["words", "add\tImport files, folders, M3U and PLS playlists and URLs",
                                          "problems\tThe files the library could not read, and why",
                                          "ls\tList the items whose title, artist or album match the QUERY's words (all without one)",
                                          "info\tAll that is known of one item", "rm\tRemove an item from the library (not its file)",
                                          "forget-position\tMake an item start from the beginning next time",
                                          "play\tQueue and play an item, or every item that matches"])
        XCTAssertEqual(offered("library info 7"), ["words", "7\tSeven", "70\tSeventy"])
        XCTAssertEqual(offered("lib ls --limit "), ["words"])
        XCTAssertEqual(offered("playlist load e"), ["words", "evening", "early"])
        XCTAssertEqual(offered("download 7 "), ["words", "7\tSeven", "70\tSeventy"], "download takes many")
        XCTAssertEqual(offered("help li"), ["words", "lib"])
        XCTAssertEqual(offered("help cache c"), ["words", "clear"])
        XCTAssertEqual(offered("config check "), ["files"])
        XCTAssertEqual(offered("frob "), ["words"])
    }
}
