import ReelCore
import ReelDBus
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
    /// The current entry's chapters, or those of the entry at this place of the queue (from 1).
    case chapters(Int?, json: Bool)
    /// "next", "previous" or a chapter's number from 1, as GoToChapter takes it.
    case chapter(String)
    /// What Sleep takes (checked here first); nil: print the timer.
    case sleep(String?)
    case feedList(json: Bool)
    case feedSet(String, FeedChange)
    case libAdd([String], rescan: Bool)
    case libProblems(json: Bool)
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
    /// Checks reeld.conf, or the file named; needs no daemon.
    case configCheck(String?)
    case completion(String)
    /// `reel __complete WORD ... CURRENT`: the candidates for the last word (what the shells' scripts run).
    case complete([String])
    /// The usage, or one command's help (its name and a subcommand's).
    case help([String])
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
    public static func parse(_ args: [String]) throws -> (GlobalOptions, CLICommand) {
        var options = GlobalOptions()
        var rest = args[...]
        while let first = rest.first, first.hasPrefix("-") {
            rest.removeFirst()
            switch first {
            case "--player", "-p":
                guard let name = rest.popFirst() else { throw UsageError("--player needs a NAME") }
                options.busName = name.hasPrefix("org.mpris.MediaPlayer2.") ? name : "org.mpris.MediaPlayer2.\(name)"
            case "--help", "-h": return (options, .help([]))
            case "--version": return (options, .version)
            default: throw UsageError("unknown option \(first)")
            }
        }
        guard let word = rest.popFirst() else { return (options, .status(json: false, follow: false)) }
        if word == "__complete" { return (options, .complete(Array(rest))) }
        guard let spec = CommandSpec.named(word) else { throw UsageError("unknown command \(word) (reel help lists them)") }
        let verb = spec.name
        var operands = Array(rest)
        let named = verb == "lib" ? operands.first.flatMap { CommandSpec.named($0, in: spec.subcommands) } : spec
        let takesNames = named?.operands == .files || verb == "download"
        // "--" ends the options: what follows is taken as it is, even "-name.ogg" (or a query).
        // (lib add reads its own: --rescan before it is an option, after it a name.)
        if takesNames || verb == "lib", named?.name != "add" || verb != "lib", let end = operands.firstIndex(of: "--") {
            operands.remove(at: end)
        }
        // An empty name ("$UNSET") was made absolute as the working directory, and the daemon then
        // refused a directory the user never named.
        if takesNames, operands.contains("") {
            throw UsageError("\(verb): an empty argument names no file, URL or ID")
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
        case "queue": command = .queue(json: try flags(["--json"]).contains("--json"))
        case "play": try none(); command = .transport("Play")
        case "pause": try none(); command = .transport("Pause")
        case "toggle": try none(); command = .transport("PlayPause")
        case "stop": try none(); command = .transport("Stop")
        case "next": try none(); command = .transport("Next")
        case "prev": try none(); command = .transport("Previous")
        case "seek":
            let text = try one()
            let sign = text.first.flatMap { "+-".contains($0) ? $0 : nil }
            guard let micros = ClockText.parse(sign == nil ? text : String(text.dropFirst())) else {
                throw UsageError("seek: not a time: \(text) (use 30, +10, -5.5 or 1:30)")
            }
            command = .seek(relative: sign != nil, micros: sign == "-" ? -micros : micros)
        case "add":
            guard !operands.isEmpty else { throw UsageError("add needs at least one FILE or URL") }
            command = .add(operands)
        case "start": command = .start(operands)
        case "goto": command = .goTo(try index())
        case "rm": command = .remove(try index())
        case "clear": try none(); command = .clear
        case "rate": command = .rate(try number())
        case "volume": command = .volume(try number())
        case "loop":
            let mode = try one().lowercased()
            guard let value = ["none": "None", "track": "Track", "playlist": "Playlist"][mode] else {
                throw UsageError("loop takes none, track or playlist")
            }
            command = .loop(value)
        case "shuffle":
            guard let on = onOff(try one()) else { throw UsageError("shuffle takes on or off") }
            command = .shuffle(on)
        case "replaygain":
            if operands.isEmpty { command = .replayGain(nil); break }
            let mode = try one().lowercased()
            guard ["off", "track", "album"].contains(mode) else { throw UsageError("replaygain takes off, track or album") }
            command = .replayGain(mode)
        case "video":
            if operands.isEmpty { command = .video(nil); break }
            guard let on = onOff(try one()) else { throw UsageError("video takes on or off") }
            command = .video(on)
        case "chapters":
            let places = operands.filter { $0 != "--json" }
            guard places.count <= 1, places.allSatisfy({ Int($0).map { $0 >= 1 } ?? false }) else {
                throw UsageError("chapters takes a place in the queue (from 1) and --json")
            }
            command = .chapters(places.first.flatMap { Int($0) }, json: operands.contains("--json"))
        case "chapter":
            let which = try one().lowercased()
            guard ["next", "prev", "previous"].contains(which) || (Int(which).map { $0 >= 1 } ?? false) else {
                throw UsageError("chapter takes next, prev or a chapter's number from 1")
            }
            command = .chapter(which == "prev" ? "previous" : which)
        case "sleep":
            if operands.isEmpty { command = .sleep(nil); break }
            let when = try one()
            do { _ = try SleepMode.parse(when) } catch {
                if case .invalidArgument(let why) = error { throw UsageError(why) }
            }
            command = .sleep(when)
        case "lib": command = try parseLibrary(operands)
        case "playlist":
            switch (operands.first.flatMap { CommandSpec.named($0, in: spec.subcommands)?.name }, operands.count) {
            case ("save", 2): command = .playlistSave(operands[1])
            case ("load", 2): command = .playlistLoad(operands[1])
            case ("ls", _) where operands.dropFirst().allSatisfy({ $0 == "--json" }):
                command = .playlistList(json: operands.contains("--json"))
            default: throw UsageError("playlist takes save NAME, load NAME or ls [--json]")
            }
        case "feed":
            switch operands.first.flatMap({ CommandSpec.named($0, in: spec.subcommands)?.name }) {
            case "ls" where operands.dropFirst().allSatisfy({ $0 == "--json" }):
                command = .feedList(json: operands.contains("--json"))
            case "set" where operands.count >= 4 && operands.count % 2 == 0:
                command = .feedSet(operands[1], try FeedChange(Array(operands.dropFirst(2))))
            default: throw UsageError("feed takes ls [--json], or set FEED SETTING VALUE ...")
            }
        case "download":
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
            switch (operands.first.flatMap { CommandSpec.named($0, in: spec.subcommands)?.name }, operands.count) {
            case ("ls", _) where operands.dropFirst().allSatisfy({ $0 == "--json" }):
                command = .cacheList(json: operands.contains("--json"))
            case ("path", 2): command = .cachePath(operands[1])
            case ("clear", 1): command = .cacheClear(nil)
            case ("clear", 2): command = .cacheClear(operands[1])
            case ("size", 1): command = .cacheSize
            default: throw UsageError("cache takes ls [--json], path URL, clear [URL] or size")
            }
        case "config":
            guard operands.first == "check", operands.count <= 2 else { throw UsageError("config takes check [FILE]") }
            command = .configCheck(operands.count == 2 ? operands[1] : nil)
        case "completion":
            let shell = try one()
            guard ["bash", "zsh", "fish"].contains(shell) else { throw UsageError("completion takes bash, zsh or fish") }
            command = .completion(shell)
        case "help":
            guard operands.isEmpty || Help.spec(for: operands) != nil else {
                throw UsageError("help: no command \(operands.joined(separator: " ")) (reel help lists them)")
            }
            command = .help(operands)
        default: throw UsageError("\(verb) is in the command table but not parsed")
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
        guard let word = rest.popFirst() else { throw UsageError("lib needs add, ls, info, rm, play, forget-position or problems") }
        guard let verb = CommandSpec.named("lib").flatMap({ CommandSpec.named(word, in: $0.subcommands) })?.name else {
            throw UsageError("unknown lib command \(word)")
        }
        func id() throws -> Int64 {
            guard rest.count == 1, let id = Int64(rest.first!), id > 0 else { throw UsageError("lib \(verb) needs an item ID") }
            return id
        }
        switch verb {
        case "add":
            var rescan = false
            while let option = rest.first, option.hasPrefix("--") {
                rest.removeFirst()
                if option == "--" { break }
                guard option == "--rescan" else { throw UsageError("lib add takes --rescan, not \(option)") }
                rescan = true
            }
            guard !rest.isEmpty else { throw UsageError("lib add needs at least one PATH or URL") }
            return .libAdd(Array(rest), rescan: rescan)
        case "problems":
            guard rest.isEmpty || rest == ["--json"] else { throw UsageError("lib problems takes only --json") }
            return .libProblems(json: !rest.isEmpty)
        case "ls":
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
        case "rm": return .libRemove(try id())
        case "forget-position": return .libForget(try id())
        case "play":
            guard !rest.isEmpty else { throw UsageError("lib play needs an ID or a QUERY") }
            return .libPlay(rest.joined(separator: " "))
        default: throw UsageError("lib \(verb) is in the command table but not parsed")
        }
    }
}

/// What `reel feed set` changes; nil: as it was.
public struct FeedChange: Equatable, Sendable {
    public var rate: Double?
    public var skipIntro: Int64?
    public var skipOutro: Int64?
    public var boost: Bool?
    public var trim: Bool?

    /// Pairs of SETTING VALUE.
    init(_ words: [String]) throws {
        for pair in stride(from: 0, to: words.count - 1, by: 2) {
            let (key, value) = (words[pair].lowercased(), words[pair + 1])
            switch key {
            case "rate":
                guard let rate = value == "default" ? 0 : Double(value), EpisodeSettings.acceptsRate(rate) else {
                    throw UsageError("rate takes a number from \(Engine.minimumRate) to \(Engine.maximumRate), or default")
                }
                self.rate = rate
            case "skip-intro", "skip-outro":
                guard let time = ClockText.parse(value), time <= EpisodeSettings.longestSkip else {
                    throw UsageError("\(key) takes seconds (30, 1:30), up to an hour")
                }
                if key == "skip-intro" { skipIntro = time } else { skipOutro = time }
            case "boost", "voice-boost":
                guard let on = Arguments.onOff(value) else { throw UsageError("boost takes on or off") }
                boost = on
            case "trim", "trim-silence":
                guard let on = Arguments.onOff(value) else { throw UsageError("trim takes on or off") }
                trim = on
            default:
                throw UsageError("feed set takes rate, skip-intro, skip-outro, boost and trim, not \(key)")
            }
        }
    }

    /// FeedSet's settings map.
    var dbus: [(String, DBusValue)] {
        [rate.map { ("rate", .double($0)) }, skipIntro.map { ("skipIntro", .int64($0)) },
         skipOutro.map { ("skipOutro", .int64($0)) }, boost.map { ("voiceBoost", .boolean($0)) },
         trim.map { ("trimSilence", .boolean($0)) }].compactMap { $0 }
    }
}
