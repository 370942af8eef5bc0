import FoundationEssentials
import Glibc
import ReelCore
import ReelMPD
import ReelSnapcast
import ReelSystem

/// reeld's command line.
struct Options {
    var audioOutput: String?
    var videoOutput: String?
    var startPaused = false
    var video = false
    var replayGain = ReplayGain.off
    var networkTimeout = 15
    /// Which entries start where they were left.
    var resume = ResumeMode.auto
    var resumeMinLength: MediaTime = ResumePolicy.defaultMinLength
    /// Bytes the cache of remote media may hold.
    var cacheSize: Int64 = 2 << 30
    /// Bytes of a remote file fetched ahead of playback.
    var readahead: Int64 = 4 << 20
    var instance = false
    /// Where the MPD protocol also listens on TCP (it always does on its Unix socket).
    var mpdListen: ListenAddress?
    /// What TCP clients of the MPD protocol must give first (only from reeld.conf: a command line is public).
    var mpdPassword: String?
    /// MPD's music directory (absolute); nil: the user's XDG music folder.
    var musicDir: String?
    /// Seconds an MPD client may keep silent (outside `idle`) before it is hung up on.
    var mpdTimeout: Int64 = 60
    /// Where the sound goes instead of mpv's audio output: snapserver's pipe or TCP source.
    var snapcast: SnapcastTarget?
    /// snapserver's `buffer` (ms): how long after it reads audio the rooms play it.
    var snapcastBuffer: Int64 = 1000
    var fresh = false
    var files: [String] = []

    static let usage = """
        usage: reeld [options] [FILE|URL ...]

        The reel media-playback daemon. It owns org.mpris.MediaPlayer2.reel on the
        D-Bus session bus and is controlled over MPRIS2 (reel, playerctl, media keys).
        FILE and URL arguments are appended to the queue; the first starts playing.

        options:
          --ao NAME      mpv audio output (for example pulse, pipewire, alsa, null)
          --output snapcast[:PATH|:tcp://HOST:PORT]  play into snapserver's pipe source (default
                         /tmp/snapfifo) or TCP source instead, for Snapcast's rooms;
                         --output mpv goes back to the audio output of --ao
          --snapcast-buffer MS  snapserver's buffer, as its config says (default: 1000)
          --paused       load the first item without starting it
          --video        open a video window (default: audio only)
          --vo NAME      mpv video output (for example gpu, x11); default: mpv's choice
          --replaygain MODE  level files by their ReplayGain tags: off, track or album (default: off)
          --resume MODE  where entries start: auto (entries of resume-min-length or more, feed
                         episodes and videos resume; short music starts over), always or never
                         (default: auto)
          --resume-min-length SECONDS  how long an entry must be to resume under auto (default: 600)
          --network-timeout SECONDS  how long an http(s) source may keep silent before it fails (default: 15)
          --cache-size SIZE  how much the cache of remote media may hold, e.g. 500M or 2G; 0 streams
                         remote media without caching them (default: 2G)
          --readahead SIZE   how far ahead of playback remote files are fetched (default: 4M)
          --mpd-listen ADDRESS  also serve the MPD protocol on TCP, e.g. 127.0.0.1:6600; an address
                         other machines reach needs mpd-password in reeld.conf (the protocol is always
                         served on $XDG_RUNTIME_DIR/reel/mpd.socket)
          --music-dir DIR  the music folder the MPD protocol shows as its database; no MPD client
                         but the Unix socket's reads or imports anything outside it (default: XDG_MUSIC_DIR
                         from user-dirs.dirs, else ~/Music)
          --instance     own org.mpris.MediaPlayer2.reel.instance<PID> instead
          --fresh        start with an empty queue instead of the one stored last time
          --help         show this help
          --version      show the version

        defaults for the options with values: $XDG_CONFIG_HOME/reel/reeld.conf
          (ao = NAME, vo = NAME, video = true|false, replaygain = off|track|album, network-timeout = SECONDS,
           cache-size = SIZE, readahead = SIZE, resume = auto|always|never, resume-min-length = SECONDS,
           mpd-listen = ADDRESS, mpd-password = TEXT, mpd-timeout = SECONDS, music-dir = DIR,
           output = mpv|snapcast[:PATH|:tcp://HOST:PORT], snapcast-buffer = MS)
        environment: DBUS_SESSION_BUS_ADDRESS, XDG_CACHE_HOME, XDG_DATA_HOME, XDG_CONFIG_HOME
        """

    enum Outcome { case run(Options), exit(Int32, String) }

    enum ResumeMode: String { case auto, always, never }

    /// `mpv` (mpv's own audio output) or a Snapcast target.
    static func output(_ text: String) -> Result<SnapcastTarget?, OutputProblem> {
        text == "mpv" ? .success(nil) : SnapcastTarget.parse(text).map { $0 }
    }

    var resumePolicy: ResumePolicy {
        switch resume {
        case .auto: .auto(minLength: resumeMinLength)
        case .always: .always
        case .never: .never
        }
    }

    /// Parses the command line over `defaults` (from the config file).
    static func parse(_ args: [String], defaults: Options = Options()) -> Outcome {
        var options = defaults
        var rest = args[...]
        var onlyFiles = false
        while let arg = rest.popFirst() {
            if onlyFiles || !arg.hasPrefix("-") || arg == "-" { options.files.append(arg); continue }
            switch arg {
            case "--": onlyFiles = true
            case "--ao":
                guard let name = rest.popFirst(), !name.isEmpty else { return .exit(2, "reeld: --ao needs a NAME\n\n" + usage) }
                options.audioOutput = name
            case let a where a.hasPrefix("--ao="): options.audioOutput = String(a.dropFirst(5))
            case "--vo":
                guard let name = rest.popFirst(), !name.isEmpty else { return .exit(2, "reeld: --vo needs a NAME\n\n" + usage) }
                options.videoOutput = name
            case "--replaygain":
                guard let mode = rest.popFirst().flatMap(ReplayGain.init(rawValue:)) else {
                    return .exit(2, "reeld: --replaygain needs off, track or album\n\n" + usage)
                }
                options.replayGain = mode
            case "--resume":
                guard let mode = rest.popFirst().flatMap(ResumeMode.init(rawValue:)) else {
                    return .exit(2, "reeld: --resume needs auto, always or never\n\n" + usage)
                }
                options.resume = mode
            case "--resume-min-length":
                guard let seconds = rest.popFirst().flatMap(Int64.init), (0...86_400).contains(seconds) else {
                    return .exit(2, "reeld: --resume-min-length needs a number of seconds (0 to 86400)\n\n" + usage)
                }
                options.resumeMinLength = seconds * 1_000_000
            case "--network-timeout":
                guard let seconds = rest.popFirst().flatMap(Int.init), (1...3600).contains(seconds) else {
                    return .exit(2, "reeld: --network-timeout needs a number of seconds (1 to 3600)\n\n" + usage)
                }
                options.networkTimeout = seconds
            case "--cache-size", "--readahead":
                guard let size = rest.popFirst().flatMap(ByteSize.parse), size >= (arg == "--readahead" ? 64 << 10 : 0) else {
                    return .exit(2, "reeld: \(arg) needs a size such as 512K, 4M or 2G\n\n" + usage)
                }
                if arg == "--readahead" { options.readahead = size } else { options.cacheSize = size }
            case "--mpd-listen":
                guard let address = rest.popFirst().flatMap({ ListenAddress.parse($0) }) else {
                    return .exit(2, "reeld: --mpd-listen needs an address such as 127.0.0.1:6600 or [::1]:6600\n\n" + usage)
                }
                options.mpdListen = address
            case "--music-dir":
                guard let dir = rest.popFirst().flatMap(Paths.expandingHome) else {
                    return .exit(2, "reeld: --music-dir needs an absolute path\n\n" + usage)
                }
                options.musicDir = dir
            case "--output":
                guard let text = rest.popFirst() else { return .exit(2, "reeld: --output needs mpv or snapcast[:PATH]\n\n" + usage) }
                switch Options.output(text) {
                case .success(let target): options.snapcast = target
                case .failure(let problem): return .exit(2, "reeld: --output \(problem)\n\n" + usage)
                }
            case "--snapcast-buffer":
                guard let ms = rest.popFirst().flatMap(Int64.init), (0...60_000).contains(ms) else {
                    return .exit(2, "reeld: --snapcast-buffer needs a number of ms (0 to 60000)\n\n" + usage)
                }
                options.snapcastBuffer = ms
            case "--paused": options.startPaused = true
            case "--video": options.video = true
            case "--instance": options.instance = true
            case "--fresh": options.fresh = true
            case "--help", "-h": return .exit(0, usage)
            case "--version": return .exit(0, "reeld \(reelVersion)")
            default: return .exit(2, "reeld: unknown option \(arg)\n\n" + usage)
            }
        }
        if let address = options.mpdListen, !address.isLoopback, options.mpdPassword == nil {
            return .exit(2, "reeld: the MPD protocol on \(address) would reach other machines without a password;"
                         + " set mpd-password in reeld.conf, or listen on 127.0.0.1\n")
        }
        return .run(options)
    }
}

let reelVersion = "0.1.0"

/// Sizes as people write them: 4096, 512K, 4M, 2G (powers of 1024).
enum ByteSize {
    static func parse(_ text: String) -> Int64? {
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
