import Foundation
import ReelHarness
import XCTest

/// reel's completion as the shells run it: bash's completion function and fish's `complete -C`,
/// on the scripts `reel completion` prints, with a real daemon to ask for its queue and library.
final class ShellCompletionTests: DaemonTestCase {
    /// Runs a shell on a script with reel on its PATH, in `dir`; its output.
    func shell(_ program: String, _ args: [String]) throws -> String {
        let path = "/usr/bin/" + program
        guard FileManager.default.isExecutableFile(atPath: path) else { throw XCTSkip("\(program) is not installed (make deps)") }
        let child = try ChildProcess(URL(fileURLWithPath: path), args, busAddress: bus.address, home: home,
                                     environment: ["PATH": Binaries.dir.path + ":/usr/bin:/bin"])
        guard child.waitForExit(timeout: 20) == 0 else { throw TestFailure("\(program) \(args) failed: \(child.text)") }
        return child.text
    }

    func script(_ shell: String) throws -> URL {
        let (status, text) = try reel("completion", shell)
        XCTAssertEqual(status, 0)
        let file = home.appendingPathComponent("reel.\(shell)")
        try (text + "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// What bash's completion of reel offers for `line` (the last word is the one being completed).
    func bash(_ line: String, in dir: URL? = nil) throws -> [String] {
        let file = try script("bash")
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map { "'\($0)'" }
        let out = try shell("bash", ["--norc", "--noprofile", "-c", """
            cd '\(dir?.path ?? home.path)'
            source '\(file.path)'
            complete -p reel
            COMP_WORDS=(reel \(words.joined(separator: " "))); COMP_CWORD=\(words.count)
            _reel
            printf '%s\\n' "${COMPREPLY[@]}"
            """])
        var lines = out.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "complete -F _reel reel", "the script registers its function for reel")
        lines.removeFirst()
        return lines
    }

    /// What fish offers for `line`: `complete -C`, one `VALUE<tab>DESCRIPTION` a line.
    func fish(_ line: String) throws -> [String] {
        let file = try script("fish")
        return try shell("fish", ["--no-config", "-c", "source '\(file.path)'; complete -C 'reel \(line)'"])
            .split(separator: "\n").map(String.init)
    }

    func testBashAndFishOfferCommandsFlagsAndTheDaemonsQueueAndLibrary() throws {
        XCTAssertEqual(try bash("lo"), ["loop"])
        XCTAssertEqual(try bash("status --f"), ["--follow"])
        XCTAssertEqual(try bash("goto "), [], "no daemon runs: nothing to offer, and none is started")
        XCTAssertEqual(try fish("lo"), ["loop\tRepeat nothing, the entry, or the whole queue"])

        try startPlaying([media.tones[0], media.tones[1], media.tones[2]])
        let deadline = Date().addingTimeInterval(5)   // the tags of entries 2 and 3 are read in the background
        while try reel("queue").1.contains(".ogg"), Date() < deadline { listen(for: 0.05) }
        XCTAssertEqual(try bash("goto "), ["1", "2", "3"])
        XCTAssertEqual(try bash("--player reel rm 2"), ["2"])
        XCTAssertEqual(try fish("goto "), ["1\tTone 1", "2\tTone 2", "3\tTone 3"])

        XCTAssertEqual(try reel("lib", "add", media.tones[3].path).0, 0)
        XCTAssertEqual(try reel("playlist", "save", "late evening").0, 0)
        let items = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try reel("lib", "ls", "--json").1.utf8)) as? [[String: Any]])
        let library = items.compactMap { item in (item["id"] as? Int).map { ($0, item["title"] as? String ?? "") } }.sorted { $0.0 < $1.0 }
        XCTAssertTrue(library.contains { $0.1 == "Tone 4" }, "\(library)")
        XCTAssertEqual(try fish("lib info "), library.map { "\($0.0)\t\($0.1)" })
        XCTAssertEqual(try bash("lib forget-position "), library.map { "\($0.0)" })
        XCTAssertEqual(try bash("playlist load l"), [#"late\ evening"#], "quoted for the line it goes into")
        XCTAssertEqual(try fish("playlist load "), ["late evening"])
        XCTAssertEqual(try fish("help lib f"), ["forget-position"])
    }

    func testFileNamesAreOfferedWhereTheCommandTakesThem() throws {
        let dir = home.appendingPathComponent("songs")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in ["a song.ogg", "another.mp3"] { _ = FileManager.default.createFile(atPath: dir.appendingPathComponent(name).path, contents: nil) }
        XCTAssertEqual(try bash("add a", in: dir).sorted(), ["a song.ogg", "another.mp3"])
        XCTAssertEqual(try bash("config check an", in: dir), ["another.mp3"])
        XCTAssertEqual(try bash("goto a", in: dir), [], "goto takes no file")
    }

    func testTheZshScriptIsValidZsh() throws {
        let file = try script("zsh")
        _ = try shell("zsh", ["-n", file.path])
        XCTAssertTrue(try String(contentsOf: file, encoding: .utf8).hasPrefix("#compdef reel\n"), "autoloadable from an fpath folder")
    }
}
