import Foundation
import ReelCLI
import ReelHarness
import ReelSettings
import XCTest

/// The man pages (docs/man/*.scd) as users read them: made by scdoc, rendered by man without a
/// warning, and saying what the command and option tables say, no more and no less.
final class ManPageTests: XCTestCase {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/man").standardized

    /// The page's source, and its text as man renders it on a terminal wide enough not to break lines.
    func page(_ name: String) throws -> (source: String, text: String) {
        for tool in ["/usr/bin/scdoc", "/usr/bin/man"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed (make deps)")
        }
        let source = try String(contentsOf: Self.folder.appendingPathComponent(name + ".scd"), encoding: .utf8)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("man-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let roff = dir.appendingPathComponent(name)
        let made = try run("scdoc < '\(Self.folder.path)/\(name).scd' > '\(roff.path)'")
        XCTAssertEqual(made.status, 0, "scdoc: \(made.err)")
        // groff's warnings at a terminal's usual width: what man --warnings reports.
        let checked = try run("LANG=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l '\(roff.path)' > /dev/null")
        XCTAssertEqual(checked.status, 0)
        XCTAssertEqual(checked.err, "", "\(name): man --warnings")
        let rendered = try run("LANG=C MANWIDTH=10000 man -l '\(roff.path)' | col -b")
        XCTAssertEqual(rendered.status, 0)
        return (source, rendered.out.collapsingWhitespace)
    }

    func run(_ command: String) throws -> Captured {
        try Captured.run("/bin/sh", ["-c", command])
    }

    /// The bold words that start the lines of a section of the source: what the page documents there.
    func entries(_ source: String, section: String) -> [String] {
        guard let start = source.range(of: "\n# \(section)\n") else { XCTFail("no section \(section)"); return [] }
        let body = source[start.upperBound...].components(separatedBy: "\n# ").first ?? ""
        return body.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("*"), let end = line.dropFirst().firstIndex(of: "*") else { return nil }
            return String(line[line.index(after: line.startIndex)..<end])
        }
    }

    func testReelsPageHasEveryCommandInTheTablesWordsAndNoOther() throws {
        let (source, text) = try page("reel.1")
        for spec in CommandSpec.all {
            let specs = spec.subcommands.isEmpty || spec.name == "config" ? [spec] : spec.subcommands
            for spec in specs {
                for form in spec.synopsis { XCTAssertTrue(text.contains(form + " "), "reel(1) lacks the form \(form)") }
                XCTAssertTrue(text.contains(spec.summary.collapsingWhitespace), "reel(1) lacks, for \(spec.synopsis[0]): \(spec.summary)")
                for example in spec.examples { XCTAssertTrue(text.contains(example), "reel(1) lacks the example \(example)") }
                for alias in spec.aliases { XCTAssertTrue(text.contains(alias), "reel(1) does not name the alias \(alias)") }
            }
        }
        for option in CommandSpec.globalOptions { XCTAssertTrue(text.contains(option.form + " " + option.help), option.form) }
        for entry in entries(source, section: "COMMANDS") {
            let words = entry.split(separator: " ").map(String.init)
            guard let spec = CommandSpec.named(words[0]) else { XCTFail("reel(1) documents \(entry), which reel does not have"); continue }
            if spec.subcommands.isEmpty { XCTAssertEqual(words.count, 1, entry) } else {
                XCTAssertTrue(words.count == 2 && CommandSpec.named(words[1], in: spec.subcommands) != nil,
                              "reel(1) documents \(entry), which reel does not have")
            }
        }
        XCTAssertEqual(Set(entries(source, section: "OPTIONS")), Set(CommandSpec.globalOptions.map { String($0.form.split(separator: " ")[0]) }))
    }

    func testReeldsPageHasEveryOptionAndNoOther() throws {
        let (source, text) = try page("reeld.1")
        let options = DaemonOption.all.filter(\.onCommandLine)
        for option in options {
            XCTAssertTrue(text.contains((option.commandLineForm + " " + option.helpWithDefault).collapsingWhitespace),
                          "reeld(1) lacks, or words otherwise than reeld --help: \(option.commandLineForm) \(option.helpWithDefault)")
        }
        XCTAssertEqual(entries(source, section: "OPTIONS"), options.map { "--" + $0.name }, "reeld(1)'s options are the table's, in its order")
    }

    func testReeldConfsPageHasEveryKeyWithItsDefaultAndNoOther() throws {
        let (source, text) = try page("reeld.conf.5")
        let keys = DaemonOption.all.filter(\.inConfigFile)
        for option in keys {
            XCTAssertTrue(text.contains((option.configForm + " " + option.helpWithDefault).collapsingWhitespace),
                          "reeld.conf(5) lacks, or words otherwise: \(option.configForm) \(option.helpWithDefault)")
        }
        XCTAssertEqual(entries(source, section: "KEYS"), keys.map(\.name), "reeld.conf(5)'s keys are the table's, in its order")
    }
}
