import ReelCore
import ReelSystem

/// `$XDG_CONFIG_HOME/reel/reeld.conf`: defaults for reeld's options, one
/// `key = value` a line, `#` starts a comment. The command line wins.
///
///     ao = pipewire
///     video = false
///     replaygain = track
public enum ConfigFile {
    public static func path(environment: [String: String]) -> String {
        Paths.base(.config, environment: environment) + "/reel/reeld.conf"
    }

    /// A line the reader could not use: where it is, and why.
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Applies the text's settings to `options`; returns one problem per line it could not use
    /// (that line changes nothing). A key given twice: the last line wins, as on a command line.
    public static func apply(_ text: String, to options: inout DaemonOptions) -> [Problem] {
        var problems: [Problem] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmed() }
            func problem(_ message: String) { problems.append(Problem(line: number + 1, message: message)) }
            guard parts.count == 2, !parts[0].isEmpty else { problem("expected key = value"); continue }
            let (key, value) = (parts[0], parts[1])
            guard let option = DaemonOption.named(key), option.inConfigFile else {
                problem("unknown setting \(key.printableKey)"
                        + (DaemonOption.named(key)?.onCommandLine == true ? " (it is a command-line option only)" : "")
                        + " (known: \(DaemonOption.configKeys.joined(separator: ", ")))")
                continue
            }
            // A NUL would cut the value where C reads it, an escape would play tricks on the terminal that logs it.
            if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) {
                problem("bad value for \(key): it holds control characters")
                continue
            }
            if let why = option.apply(&options, value) { problem("bad value for \(key): \(value.printableKey) (\(why))") }
        }
        return problems
    }
}

private extension String {
    /// A key or value as it can be shown in one line of a log.
    var printableKey: String {
        String(unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
