import Foundation

/// The binaries `make install` installs: the statically linked ones (.build/static), when built, else the
/// ones beside the benchmark. The figures are for what users run.
enum Installed {
    static func binary(_ name: String) -> URL {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let installed = dir.appendingPathComponent("../static/release/\(name)").standardized
        return FileManager.default.isExecutableFile(atPath: installed.path) ? installed : dir.appendingPathComponent(name)
    }
    static let reeld = binary("reeld")
    static let reel = binary("reel")
}
