import Foundation

/// The binaries `make install` installs: the statically linked ones (.build/static), when built, else the
/// ones beside the benchmark. The figures are for what users run.
enum Installed {
    static func binary(_ name: String) -> URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let installed = dir.appendingPathComponent("../static/release/\(name)").standardized
        let beside = dir.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: installed.path) else { return beside }
        // A static build older than this one is of older code (its figures, or its database
        // schema, would mislead): then the one beside the benchmark.
        func modified(_ url: URL) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
        }
        guard modified(installed) >= modified(beside) else {
            FileHandle.standardError.write(Data("reel-bench: \(installed.path) is older than \(beside.path); using the latter (make static)\n".utf8))
            return beside
        }
        return installed
    }
    static let reeld = binary("reeld")
    static let reel = binary("reel")
}
