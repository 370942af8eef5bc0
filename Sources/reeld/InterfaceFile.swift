import FoundationEssentials
import Glibc

/// Finds dbus/org.mpris.MediaPlayer2.reel.xml, which reeld serves verbatim
/// for Introspect: installed under PREFIX/share/reel/dbus, or in the source
/// tree the binary was built from.
enum InterfaceFile {
    static let name = "org.mpris.MediaPlayer2.reel.xml"

    static func candidates() -> [String] {
        var dirs: [String] = []
        if let dir = ProcessInfo.processInfo.environment["REEL_DBUS_DIR"] { dirs.append(dir) }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        dirs.append(exe.appendingPathComponent("../share/reel/dbus").standardized.path)
        // Sources/reeld/InterfaceFile.swift → the repository's dbus/.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        dirs.append(source.appendingPathComponent("../../dbus").standardized.path)
        return dirs.map { $0 + "/" + name }
    }

    static func load() throws -> String {
        let paths = candidates()
        for path in paths {
            if let xml = try? String(contentsOfFile: path, encoding: .utf8) { return xml }
        }
        throw DaemonError("cannot find \(name); looked in:\n  " + paths.joined(separator: "\n  ")
                          + "\nset REEL_DBUS_DIR to the directory that holds it")
    }
}

struct DaemonError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
