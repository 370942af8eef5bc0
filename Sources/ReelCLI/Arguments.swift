/// A parsed `reel` command line.
public enum CLICommand: Equatable, Sendable {
    case status(json: Bool, follow: Bool)
    case queue(json: Bool)
    case transport(String)              // Play, Pause, PlayPause, Stop, Next, Previous
    case seek(relative: Bool, micros: Int64)
    case add([String])
    /// Starts reeld through D-Bus activation unless it runs; then plays the items, if any.
    case start([String])
    case goTo(Int)
    case remove(Int)
    case clear
    case rate(Double)
    case volume(Double)
    case loop(String)
    case shuffle(Bool)
    /// nil: print the current mode.
    case replayGain(String?)
    /// nil: print whether video is shown.
    case video(Bool?)
    case libAdd([String])
    case libList(query: String, json: Bool, limit: Int)
    case libInfo(Int64, json: Bool)
    case libRemove(Int64)
    case libPlay(String)
    case libForget(Int64)
    case playlistSave(String)
    case playlistLoad(String)
    case playlistList(json: Bool)
    case download([String], background: Bool)
    case cancelDownload([String])
    case cancelAllDownloads
    case cacheList(json: Bool)
    case cachePath(String)
    case cacheClear(String?)
    case cacheSize
    case sync(String, download: Bool, background: Bool)
    case help
    case version
}

/// Options that apply to every command.
public struct GlobalOptions: Equatable, Sendable {
    /// The MPRIS bus name to talk to.
    public var busName = "org.mpris.MediaPlayer2.reel"
}

public struct UsageError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

public enum Arguments {
    public static let usage = """
        usage: reel [--player NAME] COMMAND [ARGS]

          status [--json] [--follow]   what is playing; --follow prints a line per change
          play | pause | toggle | stop | next | prev
          seek [+|-]SECONDS            relative with a sign, absolute without
          seek [HH:]MM:SS              absolute
          add FILE|URL ...             append to the queue
          start [FILE|URL ...]         start reeld (through D-Bus activation) unless it runs, and
                                       queue and play the items; what the desktop file runs
          queue [--json]               the queue, one entry per line, * marks the current
          goto N | rm N                play / remove queue entry N (1-based)
          clear                        empty the queue
          rate X                       playback rate, 0.25 … 4 (0 pauses)
          volume X                     0 … 1.5 (1 is 100 %)
          loop none|track|playlist
          shuffle on|off
          replaygain [off|track|album] level files by their ReplayGain tags
          video [on|off]               show the video in a window, or hide it (the sound goes on)

          lib add PATH|URL ...         import files, folders, M3U/PLS playlists, URLs
          lib ls [--json] [--limit N] [QUERY]   search title, artist, album
          lib info ID | lib rm ID | lib forget-position ID
          lib play ID|QUERY            queue and play
          playlist save NAME | playlist load NAME | playlist ls [--json]

          download [--background] ID|URL ...   keep remote media for offline play, with progress
          download --cancel URL ... | --cancel --all   stop downloads (--all: every one, and
                                       forget those that failed)
          sync [--no-download] [--background] FEED   catalogue a podcast feed (RSS, Atom), an M3U or
                                       a JSON catalogue, and download what is not downloaded yet
          cache ls [--json] | cache path URL | cache clear [URL] | cache size

          --player NAME   talk to org.mpris.MediaPlayer2.NAME (default: reel)
        """

    public static func parse(_ args: [String]) throws -> (GlobalOptions, CLICommand) {
        var options = GlobalOptions()
        var rest = args[...]
        while let first = rest.first, first.hasPrefix("-") {
            rest.removeFirst()
            switch first {
            case "--player", "-p":
                guard let name = rest.popFirst() else { throw UsageError("--player needs a NAME") }
                options.busName = name.hasPrefix("org.mpris.MediaPlayer2.") ? name : "org.mpris.MediaPlayer2.\(name)"
            case "--help", "-h": return (options, .help)
            case "--version": return (options, .version)
            default: throw UsageError("unknown option \(first)")
            }
        }
        guard let verb = rest.popFirst() else { return (options, .status(json: false, follow: false)) }
        // "--" ends the options: what follows is taken as it is, even "-name.ogg".
        var operands = Array(rest)
        if ["add", "lib", "library", "download", "sync"].contains(verb), let end = operands.firstIndex(of: "--") {
            operands.remove(at: end)
        }
        func flags(_ allowed: Set<String>) throws -> Set<String> {
            for o in operands where !allowed.contains(o) { throw UsageError("\(verb): unexpected argument \(o)") }
            return Set(operands)
        }
        func one() throws -> String {
            guard operands.count == 1 else { throw UsageError("\(verb) takes exactly one argument") }
            return operands[0]
        }
        func none() throws {
            guard operands.isEmpty else { throw UsageError("\(verb) takes no arguments") }
        }
        func index() throws -> Int {
            guard let n = Int(try one()), n >= 1 else { throw UsageError("\(verb) needs a queue position (1, 2, …)") }
            return n
        }
        func number() throws -> Double {
            let text = try one()
            guard let x = Double(text), x.isFinite else { throw UsageError("\(verb): not a number: \(text)") }
            return x
        }
        let command: CLICommand
        switch verb {
        case "status":
            let f = try flags(["--json", "--follow", "-f"])
            command = .status(json: f.contains("--json"), follow: f.contains("--follow") || f.contains("-f"))
        case "queue", "ls": command = .queue(json: try flags(["--json"]).contains("--json"))
        case "play": try none(); command = .transport("Play")
        case "pause": try none(); command = .transport("Pause")
        case "toggle", "play-pause": try none(); command = .transport("PlayPause")
        case "stop": try none(); command = .transport("Stop")
        case "next": try none(); command = .transport("Next")
        case "prev", "previous": try none(); command = .transport("Previous")
        case "seek":
            let text = try one()
            let sign = text.first.flatMap { "+-".contains($0) ? $0 : nil }
            guard let micros = TimeText.parse(sign == nil ? text : String(text.dropFirst())) else {
                throw UsageError("seek: not a time: \(text) (use 30, +10, -5.5 or 1:30)")
            }
            command = .seek(relative: sign != nil, micros: sign == "-" ? -micros : micros)
        case "add":
            guard !operands.isEmpty else { throw UsageError("add needs at least one FILE or URL") }
            command = .add(operands)
        case "start", "open": command = .start(operands)
        case "goto": command = .goTo(try index())
        case "rm", "remove": command = .remove(try index())
        case "clear": try none(); command = .clear
        case "rate": command = .rate(try number())
        case "volume", "vol": command = .volume(try number())
        case "loop":
            let mode = try one().lowercased()
            guard let value = ["none": "None", "track": "Track", "playlist": "Playlist"][mode] else {
                throw UsageError("loop takes none, track or playlist")
            }
            command = .loop(value)
        case "shuffle":
            guard let on = onOff(try one()) else { throw UsageError("shuffle takes on or off") }
            command = .shuffle(on)
        case "replaygain", "rg":
            if operands.isEmpty { command = .replayGain(nil); break }
            let mode = try one().lowercased()
            guard ["off", "track", "album"].contains(mode) else { throw UsageError("replaygain takes off, track or album") }
            command = .replayGain(mode)
        case "video":
            if operands.isEmpty { command = .video(nil); break }
            guard let on = onOff(try one()) else { throw UsageError("video takes on or off") }
            command = .video(on)
        case "lib", "library": command = try parseLibrary(operands)
        case "playlist", "playlists":
            switch (operands.first, operands.count) {
            case ("save", 2): command = .playlistSave(operands[1])
            case ("load", 2): command = .playlistLoad(operands[1])
            case ("ls", _) where operands.dropFirst().allSatisfy({ $0 == "--json" }):
                command = .playlistList(json: operands.contains("--json"))
            default: throw UsageError("playlist takes save NAME, load NAME or ls [--json]")
            }
        case "download", "dl":
            let options = operands.filter { $0.hasPrefix("--") }
            let items = operands.filter { !$0.hasPrefix("--") }
            for o in options where !["--background", "--cancel", "--all"].contains(o) {
                throw UsageError("download: unknown option \(o)")
            }
            if options.contains("--all") {
                guard options.contains("--cancel"), items.isEmpty, !options.contains("--background") else {
                    throw UsageError("download --all goes with --cancel alone: reel download --cancel --all")
                }
                command = .cancelAllDownloads
                break
            }
            guard !items.isEmpty else { throw UsageError("download needs at least one ID or URL") }
            command = options.contains("--cancel") ? .cancelDownload(items)
                : .download(items, background: options.contains("--background"))
        case "sync":
            let options = operands.filter { $0.hasPrefix("--") }
            let feeds = operands.filter { !$0.hasPrefix("--") }
            for o in options where !["--background", "--no-download"].contains(o) { throw UsageError("sync: unknown option \(o)") }
            guard feeds.count == 1 else { throw UsageError("sync takes one FEED (a path or URL)") }
            command = .sync(feeds[0], download: !options.contains("--no-download"), background: options.contains("--background"))
        case "cache":
            switch (operands.first, operands.count) {
            case ("ls", _) where operands.dropFirst().allSatisfy({ $0 == "--json" }):
                command = .cacheList(json: operands.contains("--json"))
            case ("path", 2): command = .cachePath(operands[1])
            case ("clear", 1): command = .cacheClear(nil)
            case ("clear", 2): command = .cacheClear(operands[1])
            case ("size", 1): command = .cacheSize
            default: throw UsageError("cache takes ls [--json], path URL, clear [URL] or size")
            }
        case "help": command = .help
        default: throw UsageError("unknown command \(verb)")
        }
        return (options, command)
    }

    static func onOff(_ word: String) -> Bool? {
        switch word.lowercased() {
        case "on", "true", "yes", "1": true
        case "off", "false", "no", "0": false
        default: nil
        }
    }

    static func parseLibrary(_ operands: [String]) throws -> CLICommand {
        var rest = operands[...]
        guard let verb = rest.popFirst() else { throw UsageError("lib needs add, ls, info, rm, play or forget-position") }
        func id() throws -> Int64 {
            guard rest.count == 1, let id = Int64(rest.first!), id > 0 else { throw UsageError("lib \(verb) needs an item ID") }
            return id
        }
        switch verb {
        case "add":
            guard !rest.isEmpty else { throw UsageError("lib add needs at least one PATH or URL") }
            return .libAdd(Array(rest))
        case "ls", "list", "search":
            var json = false
            var limit = -1
            var words: [String] = []
            while let arg = rest.popFirst() {
                switch arg {
                case "--json": json = true
                case "--limit":
                    guard let n = rest.popFirst().flatMap(Int.init), n >= 0 else { throw UsageError("--limit needs a number") }
                    limit = n
                default: words.append(arg)
                }
            }
            return .libList(query: words.joined(separator: " "), json: json, limit: limit)
        case "info":
            let json = rest.contains("--json")
            rest.removeAll { $0 == "--json" }
            return .libInfo(try id(), json: json)
        case "rm", "remove": return .libRemove(try id())
        case "forget-position": return .libForget(try id())
        case "play":
            guard !rest.isEmpty else { throw UsageError("lib play needs an ID or a QUERY") }
            return .libPlay(rest.joined(separator: " "))
        default: throw UsageError("unknown lib command \(verb)")
        }
    }
}
