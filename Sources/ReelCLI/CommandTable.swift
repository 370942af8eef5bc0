/// What a command's operands are: what completion offers for them.
public enum OperandKind: Equatable, Sendable {
    case none
    /// File names (URLs are typed).
    case files
    /// Positions in the queue (1, 2, …), asked of the running daemon.
    case queueIndex
    /// Library ids, asked of the running daemon.
    case libraryID
    /// Stored playlists, asked of the running daemon.
    case playlistName
    case words([String])
    /// Command names: `reel help CMD`.
    case commands
}

/// One of reel's commands. The table below is the only list: the parser resolves names through it,
/// and the usage, `reel help CMD`, completion and the tests that hold reel(1) to it read it.
public struct CommandSpec: Sendable {
    public let name: String
    public let aliases: [String]
    /// The command's forms as the usage and reel(1) show them, each starting with the name.
    public let synopsis: [String]
    /// One sentence or two, in reel(1)'s words.
    public let summary: String
    public let examples: [String]
    /// The options it takes (for completion; the parser checks them).
    public let flags: [String]
    public let operands: OperandKind
    public let subcommands: [CommandSpec]
    public let group: String

    init(_ name: String, aliases: [String] = [], _ synopsis: [String], _ summary: String, examples: [String] = [],
         flags: [String] = [], operands: OperandKind = .none, subcommands: [CommandSpec] = [], group: String = "") {
        self.name = name
        self.aliases = aliases
        self.synopsis = synopsis
        self.summary = summary
        self.examples = examples
        self.flags = flags
        self.operands = operands
        self.subcommands = subcommands
        self.group = group
    }

    func matches(_ word: String) -> Bool { word == name || aliases.contains(word) }

    /// The command `word` names (its name or an alias).
    public static func named(_ word: String, in list: [CommandSpec] = all) -> CommandSpec? {
        list.first { $0.matches(word) }
    }

    /// reel's global options, before the command.
    public static let globalOptions: [(form: String, help: String)] = [
        ("--player NAME", "Talk to org.mpris.MediaPlayer2.NAME instead of reel: another instance, or another MPRIS player."),
        ("--help", "Show the usage and exit; reel help COMMAND shows one command."),
        ("--version", "Show the version and exit."),
    ]

    public static let groups = ["Playback", "The queue", "The library", "Downloads and the cache", "Other"]

    public static let all: [CommandSpec] = playback + queue + library + downloads + other

    static let playback: [CommandSpec] = [
        CommandSpec("status", ["status [--json] [--follow]"],
                    "What is playing, and where. --follow prints a line at each change until the daemon stops; "
                    + "--json prints JSON.", examples: ["reel status --follow"], flags: ["--json", "--follow"], group: "Playback"),
        CommandSpec("play", ["play"], "Play.", group: "Playback"),
        CommandSpec("pause", ["pause"], "Pause.", group: "Playback"),
        CommandSpec("toggle", aliases: ["play-pause"], ["toggle"], "Play if paused, pause if playing.", group: "Playback"),
        CommandSpec("stop", ["stop"], "Stop: the next play starts the current entry over.", group: "Playback"),
        CommandSpec("next", ["next"], "Go to the next entry.", group: "Playback"),
        CommandSpec("prev", aliases: ["previous"], ["prev"], "Go to the previous entry.", group: "Playback"),
        CommandSpec("seek", ["seek [+|-]SECONDS", "seek [HH:]MM:SS"],
                    "Seek: relative with a sign, absolute without.", examples: ["reel seek +30", "reel seek -5.5", "reel seek 1:02:00"],
                    group: "Playback"),
        CommandSpec("rate", ["rate X"], "Set the playback rate, 0.25 to 4 (0 pauses).", examples: ["reel rate 1.5"], group: "Playback"),
        CommandSpec("volume", aliases: ["vol"], ["volume X"], "Set the volume, 0 to 1.5 (1 is 100 %).",
                    examples: ["reel volume 0.8"], group: "Playback"),
        CommandSpec("loop", ["loop none|track|playlist"], "Repeat nothing, the entry, or the whole queue.",
                    examples: ["reel loop playlist"], operands: .words(["none", "track", "playlist"]), group: "Playback"),
        CommandSpec("shuffle", ["shuffle on|off"], "Play the queue in a shuffled order, or in its own.",
                    examples: ["reel shuffle on"], operands: .words(["on", "off"]), group: "Playback"),
        CommandSpec("replaygain", aliases: ["rg"], ["replaygain [off|track|album]"],
                    "Level files by their ReplayGain tags; without a mode, print the current one.",
                    examples: ["reel replaygain album"], operands: .words(["off", "track", "album"]), group: "Playback"),
        CommandSpec("chapters", ["chapters [N] [--json]"], "List the chapters of the track that plays, or of entry N of "
                    + "the queue: number, start, title; the one heard is marked with an asterisk.", flags: ["--json"],
                    operands: .queueIndex, group: "Playback"),
        CommandSpec("chapter", ["chapter next|prev|N"], "Go to the next chapter, the previous one (the start of this one "
                    + "after its first 3 s), or chapter N.", examples: ["reel chapter next", "reel chapter 3"],
                    operands: .words(["next", "prev"]), group: "Playback"),
        CommandSpec("sleep", ["sleep [TIME|end-of-chapter|end-of-track|off]"],
                    "Fade out and pause after TIME of playing (minutes, or 45s, 1.5h, 1h30m), at the end of the chapter or "
                    + "of the track; playback resumes where the fade began. Without a word, print the timer.",
                    examples: ["reel sleep 30", "reel sleep end-of-chapter"],
                    operands: .words(["end-of-chapter", "end-of-track", "off"]), group: "Playback"),
        CommandSpec("video", ["video [on|off]"], "Show the video in a window, or hide it (the sound goes on); "
                    + "without a word, print whether it is shown.", operands: .words(["on", "off"]), group: "Playback"),
    ]

    static let queue: [CommandSpec] = [
        CommandSpec("add", ["add FILE|URL ..."], "Append files, folders, playlists and URLs to the queue.",
                    examples: ["reel add ~/Music/album/", "reel add https://example.org/episode.mp3"], operands: .files,
                    group: "The queue"),
        CommandSpec("start", aliases: ["open"], ["start [FILE|URL ...]"],
                    "Start reeld through D-Bus activation unless it runs, and queue and play the items: what the desktop file runs.",
                    examples: ["reel start song.ogg"], operands: .files, group: "The queue"),
        CommandSpec("queue", aliases: ["ls"], ["queue [--json]"], "The queue, one entry per line; * marks the current one.",
                    flags: ["--json"], group: "The queue"),
        CommandSpec("goto", ["goto N"], "Play queue entry N (1 is the first).", examples: ["reel goto 3"],
                    operands: .queueIndex, group: "The queue"),
        CommandSpec("rm", aliases: ["remove"], ["rm N"], "Remove queue entry N.", examples: ["reel rm 2"],
                    operands: .queueIndex, group: "The queue"),
        CommandSpec("clear", ["clear"], "Empty the queue.", group: "The queue"),
    ]

    static let library: [CommandSpec] = [
        CommandSpec("lib", aliases: ["library"], ["lib COMMAND"], "The library: what was imported, with resume positions.",
                    subcommands: [
                        CommandSpec("add", ["lib add [--rescan] PATH|URL ..."], "Import files, folders, M3U and PLS playlists and "
                                    + "URLs; what is unchanged since it was last read is not read again (--rescan: read everything). "
                                    + "A terminal shows the progress.", examples: ["reel lib add ~/Music", "reel lib add --rescan ~/Music"],
                                    flags: ["--rescan"], operands: .files),
                        CommandSpec("problems", ["lib problems [--json]"], "The files the library could not read, and why.",
                                    flags: ["--json"]),
                        CommandSpec("ls", aliases: ["list", "search"], ["lib ls [--json] [--limit N] [QUERY]"],
                                    "List the items whose title, artist or album match the QUERY's words (all without one).",
                                    examples: ["reel lib ls beatles", "reel lib ls --limit 20"], flags: ["--json", "--limit"]),
                        CommandSpec("info", ["lib info [--json] ID"], "All that is known of one item.",
                                    examples: ["reel lib info 12"], flags: ["--json"], operands: .libraryID),
                        CommandSpec("rm", aliases: ["remove"], ["lib rm ID"], "Remove an item from the library (not its file).",
                                    operands: .libraryID),
                        CommandSpec("forget-position", ["lib forget-position ID"], "Make an item start from the beginning next time.",
                                    operands: .libraryID),
                        CommandSpec("play", ["lib play ID|QUERY"], "Queue and play an item, or every item that matches.",
                                    examples: ["reel lib play 12", "reel lib play kind of blue"], operands: .libraryID),
                    ], group: "The library"),
        CommandSpec("playlist", aliases: ["playlists"], ["playlist COMMAND"], "Stored playlists, shared with MPD clients.",
                    subcommands: [
                        CommandSpec("save", ["playlist save NAME"], "Store the queue under NAME (replacing a playlist of that name).",
                                    examples: ["reel playlist save evening"]),
                        CommandSpec("load", ["playlist load NAME"], "Append a stored playlist to the queue.",
                                    examples: ["reel playlist load evening"], operands: .playlistName),
                        CommandSpec("ls", ["playlist ls [--json]"], "The stored playlists, with their lengths.", flags: ["--json"]),
                    ], group: "The library"),
    ]

    static let downloads: [CommandSpec] = [
        CommandSpec("download", aliases: ["dl"], ["download [--background] ID|URL ...", "download --cancel URL ...",
                                                  "download --cancel --all"],
                    "Keep remote media for offline play, showing the progress (--background: return at once). "
                    + "--cancel stops downloads; --cancel --all stops every one and forgets those that failed.",
                    examples: ["reel download 12", "reel download --cancel --all"],
                    flags: ["--background", "--cancel", "--all"], operands: .libraryID, group: "Downloads and the cache"),
        CommandSpec("sync", ["sync [--no-download] [--background] FEED"],
                    "Catalogue a podcast feed (RSS, Atom), an M3U or a JSON catalogue, and download what is not downloaded yet.",
                    examples: ["reel sync https://example.org/feed.xml"], flags: ["--no-download", "--background"],
                    operands: .files, group: "Downloads and the cache"),
        CommandSpec("feed", aliases: ["feeds"], ["feed COMMAND"], "A synced feed's settings for its episodes.", subcommands: [
            CommandSpec("ls", ["feed ls [--json]"], "The synced feeds, their episodes and their settings.", flags: ["--json"]),
            CommandSpec("set", ["feed set FEED SETTING VALUE ..."],
                        "Settings for a feed's episodes, wherever they play: rate R (or default), skip-intro SECONDS, "
                        + "skip-outro SECONDS, boost on|off (a filter that evens voices), trim on|off (shortens silences "
                        + "of 0.5 s or more to 0.3 s). FEED is its URL as synced, or words of it that name one feed.",
                        examples: ["reel feed set example.org rate 1.3 skip-intro 30 skip-outro 15 boost on trim on"]),
        ], group: "Downloads and the cache"),
        CommandSpec("cache", ["cache COMMAND"], "The cache of remote media.", subcommands: [
            CommandSpec("ls", ["cache ls [--json]"], "What the cache holds, and how much of each.", flags: ["--json"]),
            CommandSpec("path", ["cache path URL"], "Where the cached bytes of URL are kept."),
            CommandSpec("clear", ["cache clear [URL]"], "Forget what is cached of URL, or of everything (downloads stay)."),
            CommandSpec("size", ["cache size"], "How much the cache holds, and its limit."),
        ], group: "Downloads and the cache"),
    ]

    static let other: [CommandSpec] = [
        CommandSpec("config", ["config check [FILE]"],
                    "Check reeld.conf (or FILE) without starting the daemon: each line it cannot use, with its number. "
                    + "Exits with 1 when there is one.", examples: ["reel config check"],
                    subcommands: [CommandSpec("check", ["config check [FILE]"], "Check reeld.conf or FILE.", operands: .files)],
                    group: "Other"),
        CommandSpec("completion", ["completion bash|zsh|fish"], "Print the completion script for a shell.",
                    examples: ["source <(reel completion bash)"], operands: .words(["bash", "zsh", "fish"]), group: "Other"),
        CommandSpec("help", ["help [COMMAND]"], "Show the usage, or one command's forms, words and examples.",
                    examples: ["reel help seek"], operands: .commands, group: "Other"),
    ]
}
