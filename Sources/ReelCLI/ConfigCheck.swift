import Foundation
import ReelSettings

/// `reel config check [FILE]`: reads reeld.conf as reeld would, without a daemon.
public enum ConfigCheck {
    /// Prints each problem as FILE:LINE: message on stderr, or that the file is fine; the exit status.
    public static func run(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let path = file ?? ConfigFile.path(environment: environment)
        guard let data = FileManager.default.contents(atPath: path) else {
            if file == nil, !FileManager.default.fileExists(atPath: path) {
                print("\(path) does not exist: reeld runs with its defaults")
                return 0
            }
            var folder: ObjCBool = false
            let isFolder = FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
            report("\(path): " + (isFolder ? "a folder, not a file" : "cannot be read"))
            return 1
        }
        guard let text = String(data: data, encoding: .utf8) else {
            report("\(path): not UTF-8 text")
            return 1
        }
        var options = DaemonOptions()
        var problems = ConfigFile.apply(text, to: &options).map { "\(path):\($0.line): \($0.message)" }
        // What reeld refuses at its start, with the command line empty.
        if case .exit(let status, let why) = DaemonOptions.parse([], defaults: options), status != 0 {
            problems.append("\(path): " + why.replacingOccurrences(of: "reeld: ", with: "").trimmingCharacters(in: .newlines))
        }
        guard problems.isEmpty else {
            problems.forEach(report)
            return 1
        }
        print("\(path): ok")
        return 0
    }

    static func report(_ line: String) { FileHandle.standardError.write(Data((line.terminalSafe + "\n").utf8)) }
}
