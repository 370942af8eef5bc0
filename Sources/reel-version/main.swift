// Build tool (run by VersionPlugin): writes the Swift constant reel's binaries report as their
// version, from the VERSION file at the package's root, so that there is one place to bump it.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: reel-version VERSION-FILE OUTPUT.swift\n".utf8))
    exit(2)
}
let text = (try? String(contentsOfFile: arguments[1], encoding: .utf8)) ?? ""
let version = text.trimmingCharacters(in: .whitespacesAndNewlines)
// Debian's rule for an upstream version, less the epoch: a digit first, then [A-Za-z0-9.+~-].
let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-")
guard let first = version.first, first.isNumber, version.allSatisfy(allowed.contains) else {
    FileHandle.standardError.write(Data("reel-version: \(arguments[1]) must hold one version such as 1.2.3, not \"\(version)\"\n".utf8))
    exit(1)
}
let source = """
    // Made by reel-version from VERSION; not edited by hand.
    /// reel's version, as `reel --version`, `reeld --version` and the package report it.
    public let reelVersion = "\(version)"

    """
// Written only when it changes, so that a build after an unchanged VERSION compiles nothing again.
if (try? String(contentsOfFile: arguments[2], encoding: .utf8)) != source {
    do { try source.write(toFile: arguments[2], atomically: true, encoding: .utf8) } catch {
        FileHandle.standardError.write(Data("reel-version: cannot write \(arguments[2]): \(error)\n".utf8))
        exit(1)
    }
}
