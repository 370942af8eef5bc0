import ReelCore
import ReelSnapcast
import ReelSystem

/// What reeld runs with: its command line over reeld.conf over these defaults.
public struct DaemonOptions: Equatable, Sendable {
    public var audioOutput: String?
    public var videoOutput: String?
    public var startPaused = false
    public var video = false
    public var replayGain = ReplayGain.off
    public var chapterKeys = ChapterKeys.auto
    public var sleepFade: MediaTime = 10_000_000
    public var networkTimeout = 15
    /// Which entries start where they were left.
    public var resume = ResumeMode.auto
    public var resumeMinLength: MediaTime = ResumePolicy.defaultMinLength
    /// Bytes the cache of remote media may hold.
    public var cacheSize: Int64 = 2 << 30
    /// Bytes of a remote file fetched ahead of playback.
    public var readahead: Int64 = 4 << 20
    public var instance = false
    /// Where the MPD protocol also listens on TCP (it always does on its Unix socket).
    public var mpdListen: ListenAddress?
    /// What TCP clients of the MPD protocol must give first (only from reeld.conf: a command line is public).
    public var mpdPassword: String?
    /// MPD's music directory (absolute); nil: the user's XDG music folder.
    public var musicDir: String?
    /// Whether the music folder is followed (a scan at start, then inotify).
    public var watch = true
    /// Seconds between scans of the music folder when it cannot be watched.
    public var rescanInterval: Int64 = 300
    /// Seconds an MPD client may keep silent (outside `idle`) before it is hung up on.
    public var mpdTimeout: Int64 = 60
    /// Where the sound goes instead of mpv's audio output: snapserver's pipe or TCP source.
    public var snapcast: SnapcastTarget?
    /// snapserver's `buffer` (ms): how long after it reads audio the rooms play it.
    public var snapcastBuffer: Int64 = 1000
    public var fresh = false
    /// FILE and URL operands, in order.
    public var files: [String] = []

    public init() {}

    public enum ResumeMode: String, Sendable { case auto, always, never }

    public var resumePolicy: ResumePolicy {
        switch resume {
        case .auto: .auto(minLength: resumeMinLength)
        case .always: .always
        case .never: .never
        }
    }

    /// What the command line asks: run with these options, or print a text and exit with a status.
    public enum Outcome: Equatable, Sendable { case run(DaemonOptions), exit(Int32, String) }

    /// Parses reeld's command line over `defaults` (from the config file).
    public static func parse(_ args: [String], defaults: DaemonOptions = DaemonOptions()) -> Outcome {
        var options = defaults
        var rest = args[...]
        var onlyFiles = false
        func usageError(_ text: String) -> Outcome { .exit(2, "reeld: \(text)\nTry 'reeld --help'.") }
        while let arg = rest.popFirst() {
            if onlyFiles || !arg.hasPrefix("-") || arg == "-" { options.files.append(arg); continue }
            if arg == "--" { onlyFiles = true; continue }
            // --name VALUE and --name=VALUE; -h is --help's short form.
            let (flag, attached) = arg == "-h" ? ("--help", nil)
                : arg.firstIndex(of: "=").map { (String(arg[..<$0]), String(arg[arg.index(after: $0)...])) } ?? (arg, nil)
            guard flag.hasPrefix("--"), let option = DaemonOption.named(String(flag.dropFirst(2))), option.onCommandLine else {
                return usageError("unknown option \(flag)" + (flag == "--mpd-password" ? " (it is read from reeld.conf only: a command line is public)" : ""))
            }
            switch option.form {
            case .action:
                guard attached == nil else { return usageError("\(flag) takes no value") }
                return option.name == "version" ? .exit(0, "reeld \(reelVersion)") : .exit(0, DaemonOption.usage)
            case .flag:
                guard attached == nil else { return usageError("\(flag) takes no value") }
                _ = option.apply(&options, "true")
            case .value(let placeholder):
                guard let value = attached ?? rest.popFirst() else { return usageError("\(flag) needs \(placeholder)") }
                if let problem = option.apply(&options, value) { return usageError("\(flag) \(problem)") }
            }
        }
        if let address = options.mpdListen, !address.isLoopback, options.mpdPassword == nil {
            return .exit(2, "reeld: the MPD protocol on \(address) would reach other machines without a password;"
                         + " set mpd-password in reeld.conf, or listen on 127.0.0.1\n")
        }
        return .run(options)
    }
}
