import ReelCore
import ReelSnapcast
import ReelSystem

/// One of reeld's settings: a command-line option, a reeld.conf key, or both under one name.
/// The table below is the only list: `reeld --help`, the parser, reeld.conf's reader,
/// `reel config check` and the tests that hold the man pages to it all read it.
public struct DaemonOption: Sendable {
    public enum Form: Equatable, Sendable {
        /// `--name VALUE` and `name = VALUE`; the placeholder names what VALUE is.
        case value(String)
        /// `--name` alone; in reeld.conf, `name = true|false`.
        case flag
        /// --help and --version: print and exit.
        case action
    }

    public let name: String
    public let form: Form
    public let onCommandLine: Bool
    public let inConfigFile: Bool
    /// One sentence or two, as `reeld --help` and the man pages say it.
    public let help: String
    /// The default as a user would write it; nil where there is none to show.
    public let defaultText: String?
    /// Sets the value; nil when it is taken, else what is wrong with it.
    let apply: @Sendable (inout DaemonOptions, String) -> String?

    public static func named(_ name: String) -> DaemonOption? { all.first { $0.name == name } }

    /// reeld.conf's keys, in the table's order.
    public static var configKeys: [String] { all.filter(\.inConfigFile).map(\.name) }

    /// The help and, where there is one, the default, as both help texts and the man pages end it.
    public var helpWithDefault: String { help + (defaultText.map { " Default: \($0)." } ?? "") }

    /// `--name PLACEHOLDER` (or `--name`), as the usage and reeld(1) show it.
    public var commandLineForm: String {
        if case .value(let placeholder) = form { return "--\(name) \(placeholder)" }
        return "--\(name)"
    }

    /// `name = PLACEHOLDER`, as reeld.conf(5) shows it.
    public var configForm: String {
        if case .value(let placeholder) = form { return "\(name) = \(placeholder)" }
        return "\(name) = true|false"
    }

    init(_ name: String, _ form: Form, commandLine: Bool = true, config: Bool = true, default defaultText: String? = nil,
         _ help: String, apply: @escaping @Sendable (inout DaemonOptions, String) -> String? = { _, _ in nil }) {
        self.name = name
        self.form = form
        self.onCommandLine = commandLine
        self.inConfigFile = config
        self.defaultText = defaultText
        self.help = help
        self.apply = apply
    }

    public static let all: [DaemonOption] = [
        DaemonOption("ao", .value("NAME"), default: "mpv's choice",
                     "mpv's audio output, for example pulse, pipewire, alsa or null.") { o, v in
            guard !v.isEmpty else { return "needs a NAME" }
            o.audioOutput = v; return nil
        },
        DaemonOption("output", .value("mpv|snapcast[:PATH|:tcp://HOST:PORT]"), default: "mpv",
                     "Where the sound goes: mpv (the audio output of ao), or snapserver's pipe source (snapcast, "
                     + "snapcast:PATH; the pipe is /tmp/snapfifo unless named) or TCP source (snapcast:tcp://HOST:PORT), "
                     + "for Snapcast's rooms.") { o, v in
            if v == "mpv" { o.snapcast = nil; return nil }
            switch SnapcastTarget.parse(v) {
            case .success(let target): o.snapcast = target; return nil
            case .failure(let problem): return "\(problem)"
            }
        },
        DaemonOption("snapcast-buffer", .value("MS"), default: "1000",
                     "snapserver's buffer in milliseconds, as its config says: how long after it reads the sound the rooms play it.") { o, v in
            guard let ms = Int64(v), (0...60_000).contains(ms) else { return "needs a number of ms (0 to 60000)" }
            o.snapcastBuffer = ms; return nil
        },
        DaemonOption("paused", .flag, config: false, "Load the first item without starting it.") { o, _ in
            o.startPaused = true; return nil
        },
        DaemonOption("video", .flag, default: "false", "Open a video window; without it reel plays audio only.") { o, v in
            guard let on = Self.bool(v) else { return "needs true or false" }
            o.video = on; return nil
        },
        DaemonOption("vo", .value("NAME"), default: "mpv's choice", "mpv's video output, for example gpu or x11.") { o, v in
            guard !v.isEmpty else { return "needs a NAME" }
            o.videoOutput = v; return nil
        },
        DaemonOption("chapter-keys", .value("auto|never"), default: "auto",
                     "Next and Previous move by chapter inside long tracks with chapters (auto), or never.") { o, v in
            guard let keys = ChapterKeys(rawValue: v.lowercased()) else { return "needs auto or never" }
            o.chapterKeys = keys; return nil
        },
        DaemonOption("sleep-fade", .value("SECONDS"), default: "10",
                     "How long the sleep timer fades out before it pauses (0: it pauses without a fade).") { o, v in
            guard let seconds = Double(v), seconds >= 0, seconds <= 600, let micros = MediaTime.fromSeconds(seconds) else {
                return "needs a number of seconds from 0 to 600"
            }
            o.sleepFade = micros; return nil
        },
        DaemonOption("replaygain", .value("off|track|album"), default: "off",
                     "Level files by their ReplayGain tags: off, by track or by album.") { o, v in
            guard let mode = ReplayGain(rawValue: v.lowercased()) else { return "needs off, track or album" }
            o.replayGain = mode; return nil
        },
        DaemonOption("resume", .value("auto|always|never"), default: "auto",
                     "Where entries start: under auto, entries of resume-min-length or more, feed episodes and videos "
                     + "resume where they were left, and short music starts over.") { o, v in
            guard let mode = DaemonOptions.ResumeMode(rawValue: v.lowercased()) else { return "needs auto, always or never" }
            o.resume = mode; return nil
        },
        DaemonOption("resume-min-length", .value("SECONDS"), default: "600",
                     "How long an entry must be to resume under resume = auto.") { o, v in
            guard let seconds = Int64(v), (0...86_400).contains(seconds) else { return "needs a number of seconds (0 to 86400)" }
            o.resumeMinLength = seconds * 1_000_000; return nil
        },
        DaemonOption("network-timeout", .value("SECONDS"), default: "15",
                     "How long an http(s) source may keep silent before it fails.") { o, v in
            guard let seconds = Int(v), (1...3600).contains(seconds) else { return "needs a number of seconds (1 to 3600)" }
            o.networkTimeout = seconds; return nil
        },
        DaemonOption("cache-size", .value("SIZE"), default: "2G",
                     "How much the cache of remote media may hold, for example 500M or 2G; 0 streams remote media "
                     + "without caching them.") { o, v in
            guard let size = ByteSize.parse(v) else { return "needs a size such as 512K, 4M or 2G" }
            o.cacheSize = size; return nil
        },
        DaemonOption("readahead", .value("SIZE"), default: "4M",
                     "How far ahead of playback remote files are fetched (at least 64K).") { o, v in
            guard let size = ByteSize.parse(v), size >= 64 << 10 else { return "needs a size of at least 64K, such as 512K or 4M" }
            o.readahead = size; return nil
        },
        DaemonOption("mpd-listen", .value("ADDRESS"), default: "none",
                     "Also serve the MPD protocol on TCP, for example 127.0.0.1:6600; an address other machines reach "
                     + "needs mpd-password in reeld.conf. The protocol is always served on $XDG_RUNTIME_DIR/reel/mpd.socket.") { o, v in
            guard let address = ListenAddress.parse(v) else { return "needs an address such as 127.0.0.1:6600 or [::1]:6600" }
            o.mpdListen = address; return nil
        },
        DaemonOption("mpd-password", .value("TEXT"), commandLine: false, default: "none",
                     "What TCP clients of the MPD protocol must give first (with the password command). "
                     + "Only in reeld.conf: a command line is public.") { o, v in
            guard !v.isEmpty else { return "needs a TEXT" }
            o.mpdPassword = v; return nil
        },
        DaemonOption("mpd-timeout", .value("SECONDS"), default: "60",
                     "How long an MPD client may keep silent, outside idle, before it is hung up on.") { o, v in
            guard let seconds = Int64(v), (1...86_400).contains(seconds) else { return "needs a number of seconds (1 to 86400)" }
            o.mpdTimeout = seconds; return nil
        },
        DaemonOption("music-dir", .value("DIR"), default: "XDG_MUSIC_DIR, else ~/Music",
                     "The music folder the MPD protocol shows as its database; no MPD client but the Unix socket's "
                     + "reads or imports anything outside it.") { o, v in
            guard let dir = Paths.expandingHome(v) else { return "needs an absolute path (or one that starts with ~/)" }
            o.musicDir = dir; return nil
        },
        DaemonOption("watch", .value("yes|no"), default: "yes",
                     "Follow the music folder: scan it for what changed at start, then watch it with inotify, so that "
                     + "files added, changed, moved or removed show in the library within 2 s of their last write.") { o, v in
            guard let on = Self.bool(v) else { return "needs yes or no" }
            o.watch = on; return nil
        },
        DaemonOption("rescan-interval", .value("SECONDS"), default: "300",
                     "How often the music folder is scanned for changes instead when the system's inotify watches run out.") { o, v in
            guard let seconds = Int64(v), (1...86_400).contains(seconds) else { return "needs a number of seconds (1 to 86400)" }
            o.rescanInterval = seconds; return nil
        },
        DaemonOption("instance", .flag, config: false,
                     "Own org.mpris.MediaPlayer2.reel.instancePID instead of org.mpris.MediaPlayer2.reel, "
                     + "so that a second reeld can run.") { o, _ in
            o.instance = true; return nil
        },
        DaemonOption("fresh", .flag, config: false, "Start with an empty queue instead of the one stored last time.") { o, _ in
            o.fresh = true; return nil
        },
        DaemonOption("help", .action, config: false, "Show this help and exit."),
        DaemonOption("version", .action, config: false, "Show the version and exit."),
    ]

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// `reeld --help`: made from the table, in the man page's words.
    public static let usage: String = {
        var text = """
            usage: reeld [OPTION ...] [--] [FILE|URL ...]

            The reel media-playback daemon. It owns org.mpris.MediaPlayer2.reel on the D-Bus session bus
            and is controlled over MPRIS2 (reel, playerctl, media keys) and the MPD protocol.
            FILE and URL arguments are appended to the queue; the first starts playing.

            options:

            """
        for option in all where option.onCommandLine {
            text += "  " + option.commandLineForm + "\n" + option.helpWithDefault.wrapped(indent: "      ") + "\n"
        }
        text += """

            Defaults for the options with values come from $XDG_CONFIG_HOME/reel/reeld.conf, one
            name = VALUE a line (see reeld.conf(5)); the command line wins. reel config check tests that file.
            See reeld(1).
            """
        return text
    }()
}

/// Sizes as people write them: 4096, 512K, 4M, 2G (powers of 1024).
public enum ByteSize {
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmed().uppercased()
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(trimmed)
        if digits.hasSuffix("B"), digits.count > 1, units[digits[digits.index(before: digits.index(before: digits.endIndex))]] != nil {
            digits = digits.dropLast()
        }
        let unit = digits.last.flatMap { units[$0] } ?? 1
        if unit > 1 { digits = digits.dropLast() }
        guard let value = Int64(digits), value >= 0, value <= Int64.max / unit else { return nil }
        return value * unit
    }
}
