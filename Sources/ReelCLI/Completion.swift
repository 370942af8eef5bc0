import ReelDBus

/// Shell completion: the scripts are small and ask `reel __complete WORD ... CURRENT`, which walks
/// the command table; so bash, zsh and fish offer the same words, and a new command needs no script.
public enum Completion {
    /// What the daemon knows that completion offers: queue entries, library items, playlists, players.
    public struct Source {
        public var queue: () -> [(index: Int, title: String)] = { [] }
        public var library: () -> [(id: Int64, title: String)] = { [] }
        public var playlists: () -> [String] = { [] }
        public var players: () -> [String] = { [] }
        public init() {}
    }

    /// The first line says whether file names are offered too (`files`) or not (`words`); then one
    /// candidate a line, `VALUE` or `VALUE<tab>DESCRIPTION`, all starting with the last word.
    public static func candidates(_ words: [String], source: Source) -> [String] {
        var rest = words.dropLast()[...]
        let current = words.last ?? ""
        func offer(_ values: [String], files: Bool = false) -> [String] {
            [files ? "files" : "words"] + values.filter { $0.hasPrefix(current) }
        }
        while let word = rest.first, word.hasPrefix("-") {
            rest.removeFirst()
            if word == "--player" || word == "-p" {
                if rest.isEmpty { return offer(source.players()) }
                rest.removeFirst()
            }
        }
        guard let first = rest.popFirst() else {
            return current.hasPrefix("-") ? offer(CommandSpec.globalOptions.map { String($0.form.split(separator: " ")[0]) })
                : offer(CommandSpec.all.map { "\($0.name)\t\(brief($0.summary))" })
        }
        guard var spec = CommandSpec.named(first) else { return offer([]) }
        if !spec.subcommands.isEmpty {
            guard let word = rest.popFirst() else { return offer(spec.subcommands.map { "\($0.name)\t\(brief($0.summary))" }) }
            guard let sub = CommandSpec.named(word, in: spec.subcommands) else { return offer([]) }
            spec = sub
        }
        if rest.last == "--limit" { return offer([]) }
        let operandsEnded = rest.contains("--")
        if current.hasPrefix("-"), !operandsEnded { return offer(spec.flags) }
        // A command of one operand is complete once it has it.
        let given = rest.filter { !$0.hasPrefix("-") || operandsEnded }
        if spec.operands == .commands {   // help COMMAND [SUBCOMMAND]
            guard let topic = given.first else { return offer(CommandSpec.all.map(\.name)) }
            return offer(given.count == 1 ? CommandSpec.named(topic)?.subcommands.map(\.name) ?? [] : [])
        }
        if !given.isEmpty, !spec.synopsis.contains(where: { $0.contains("...") }) { return offer([]) }
        switch spec.operands {
        case .none: return offer([])
        case .files: return offer([], files: true)
        case .words(let words): return offer(words)
        case .commands: return offer([])   // answered above
        case .queueIndex: return offer(source.queue().map { "\($0.index)\t\(describe($0.title))" })
        case .libraryID: return offer(source.library().map { "\($0.id)\t\(describe($0.title))" })
        case .playlistName: return offer(source.playlists().filter { !$0.contains(where: \.isNewline) && !$0.contains("\t") })
        }
    }

    /// A summary's first sentence: what fish and zsh show beside a command.
    static func brief(_ summary: String) -> String {
        String(summary.prefix { $0 != "." && $0 != ";" && $0 != ":" })
    }

    /// A title as one line of a candidate: no tabs, newlines or control characters, at most 60 characters.
    static func describe(_ title: String) -> String {
        let line = String(title.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) })
        return line.count > 60 ? String(line.prefix(59)) + "…" : line
    }

    /// Candidates with the running daemon's queue, library and playlists; nothing from a daemon that
    /// does not run (completion never starts one through D-Bus activation).
    public static func complete(_ words: [String], busName: String) -> [String] {
        guard let connection = try? Connection() else { return candidates(words, source: Source()) }
        let client = Client(connection: connection, busName: busName) { _, _ in }
        var source = Source()
        let running = (try? client.daemonIsRunning()) == true
        if running {
            source.queue = {
                // A queue too long to list: the numbers alone, without asking for their titles.
                guard let page = try? client.queuePage(0, 500) else { return [] }
                if page.total > page.rows.count { return (1...page.total).map { ($0, "") } }
                return page.rows.enumerated().map { ($0 + 1, $1.title) }
            }
            source.library = {
                let items = (try? client.call(Client.reel, "LibrarySearch", [.string(""), .uint32(0), .int32(500)], timeoutMs: 2_000))?
                    .first?.array?.compactMap(\.dictionary) ?? []
                return items.compactMap { item in
                    item["id"]?.int64.map { ($0, item["title"]?.string ?? "") }
                }
            }
            source.playlists = {
                let lists = (try? client.call(Client.reel, "PlaylistList", timeoutMs: 2_000))?.first?.array ?? []
                return lists.compactMap { value in
                    guard case .structure(let f) = value else { return nil }
                    return f.first?.string
                }
            }
        }
        source.players = {
            let names = (try? connection.callMethod("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                    "ListNames", []))?.first?.stringArray ?? []
            return names.filter { $0.hasPrefix("org.mpris.MediaPlayer2.") }.map { String($0.dropFirst("org.mpris.MediaPlayer2.".count)) }
        }
        return candidates(words, source: source)
    }
}
