import ReelCore
import ReelDBus

/// reel's library methods and the MPRIS Playlists interface.
extension MPRISService {
    static let playlistPrefix = "/dev/reel/Playlist/"
    /// The longest search taken: a search of thousands of words holds the loop
    /// for seconds in SQLite's full-text index (a title is rarely 100 bytes).
    static let longestQuery = 1024

    static func query(_ text: String) throws -> String {
        guard text.utf8.count <= longestQuery else {
            throw BusError.invalidArgs("a search of \(text.utf8.count) bytes is too long (at most \(longestQuery))")
        }
        return text
    }
    static let orderings = ["Alphabetical", "CreationDate"]

    static func pairs(_ list: [(String, String)]) -> [DBusValue] { list.map { .structure([.string($0.0), .string($0.1)]) } }

    static func map(_ summary: ImportSummary, problems: DBusValue) -> DBusValue {
        let counts: [(String, Int)] = [("added", summary.added), ("known", summary.known), ("updated", summary.updated),
                                       ("moved", summary.moved), ("removed", summary.removed),
                                       ("standingProblems", summary.standingProblems)]
        let ignored = summary.ignored.sorted { $0.key < $1.key }.map { DBusValue.dictEntry(.string($0.key), .uint32(UInt32(clamping: $0.value))) }
        return .vardict(counts.map { ($0.0, .uint32(UInt32(clamping: $0.1))) }
                        + [("ignored", .array(elementSignature: "{su}", ignored)),
                           ("problems", problems)])
    }

    /// Handles a library or playlist call; nil means the reply comes later.
    func dispatchLibrary(_ message: Message, _ interface: String, _ member: String,
                         _ args: [DBusValue]) throws -> [DBusValue]? {
        guard let library else {
            throw BusError(MPRIS.errorNoLibrary, "the media library is unavailable: \(host.libraryError ?? "not configured")")
        }
        switch (interface, member) {
        case (MPRIS.reel, "LibraryAdd"), (MPRIS.reel, "LibraryImport"):
            let inputs = args[0].stringArray ?? []
            // The daemon's working directory means nothing to a client: names must be absolute.
            if let relative = inputs.first(where: { !URLParts.isAbsolute($0) }) {
                throw BusError.invalidArgs("\(member) takes absolute paths and file, http or https URIs, not \"\(relative)\"")
            }
            let options = member == "LibraryImport" ? (args[1].dictionary ?? [:]) : [:]
            if let unknown = options.keys.first(where: { $0 != "rescan" }) {
                throw BusError.invalidArgs("LibraryImport takes the option rescan (b), not \"\(unknown)\"")
            }
            guard options["rescan"].map({ $0.bool != nil }) ?? true else { throw BusError.invalidArgs("rescan is a boolean (b)") }
            try library.importItems(inputs, rescan: options["rescan"]?.bool ?? false, progress: { [weak self] done, total in
                self?.emit(MPRIS.reel, "ImportProgress", [.uint32(UInt32(clamping: done)), .uint32(UInt32(clamping: total))])
                self?.flush()
            }, done: { [weak self] summary in
                let problems = DBusValue.array(elementSignature: "(ss)", Self.pairs(summary.problems))
                if member == "LibraryAdd" {
                    self?.reply(to: message, [.uint32(UInt32(clamping: summary.added)), .uint32(UInt32(clamping: summary.known)), problems])
                } else {
                    self?.reply(to: message, [Self.map(summary, problems: problems)])
                }
            })
            return nil
        case (MPRIS.reel, "LibraryProblems"):
            return [.array(elementSignature: "(ss)", Self.pairs(try library.scanProblems().map { ($0.path, $0.reason) }))]
        case (MPRIS.reel, "LibrarySearch"):
            let items = try library.libraryItems(matching: try Self.query(args[0].string!), offset: Int(args[1].int64!),
                                                 limit: Int(args[2].int64!))
            return [.array(elementSignature: "a{sv}", items.map(Self.map))]
        case (MPRIS.reel, "LibraryItem"):
            return [Self.map(try item(args[0].int64!))]
        case (MPRIS.reel, "LibraryRemove"):
            guard try library.removeLibraryItem(args[0].int64!) else { throw noItem(args[0].int64!) }
            return []
        case (MPRIS.reel, "LibraryForgetPosition"):
            guard try library.forgetPosition(args[0].int64!) else { throw noItem(args[0].int64!) }
            return []
        case (MPRIS.reel, "LibraryPlay"):
            let text = try Self.query(args[0].string!)
            let items = try Int64(text).map { [try item($0)] } ?? library.libraryItems(matching: text, offset: 0, limit: -1)
            guard !items.isEmpty else { throw BusError(MPRIS.errorNoSuchItem, "nothing in the library matches \"\(text)\"") }
            return [.uint32(UInt32(library.playLibraryItems(items)))]
        case (MPRIS.reel, "FeedList"):
            return [.array(elementSignature: "(sua{sv})", try library.feeds().map {
                .structure([.string($0.feed), .uint32(UInt32(clamping: $0.episodes)), Self.map($0.settings)])
            })]
        case (MPRIS.reel, "FeedSet"):
            let change = try Self.episodeChange(args[1].dictionary ?? [:])
            return [.string(try library.changeFeed(named: args[0].string!, change).feed)]
        case (MPRIS.reel, "PlaylistSave"):
            let name = args[0].string!.trimmed()
            if let problem = PlaylistName.problem(name) { throw BusError.invalidArgs(problem) }
            let count = try library.savePlaylist(name)
            playlistsChanged(named: name)
            return [.uint32(UInt32(count))]
        case (MPRIS.reel, "PlaylistLoad"):
            let name = args[0].string!
            guard let info = try library.playlists().first(where: { $0.name == name }) else {
                throw BusError(MPRIS.errorNoSuchPlaylist, "no playlist named \"\(name)\"")
            }
            let count = try library.loadPlaylist(id: info.id) ?? 0
            playlistsChanged(named: nil)
            return [.uint32(UInt32(count))]
        case (MPRIS.reel, "PlaylistList"):
            return [.array(elementSignature: "(su)", try library.playlists().map {
                .structure([.string($0.name), .uint32(UInt32($0.count))])
            })]
        case (MPRIS.playlists, "ActivatePlaylist"):
            let path = args[0].string!
            guard path.hasPrefix(Self.playlistPrefix), let id = Int64(path.dropFirst(Self.playlistPrefix.count)),
                  try library.loadPlaylist(id: id) != nil else {
                throw BusError(MPRIS.errorNoSuchPlaylist, "no playlist \(path)")
            }
            playlistsChanged(named: nil)
            return []
        case (MPRIS.playlists, "GetPlaylists"):
            let order = args[2].string!
            guard Self.orderings.contains(order) else {
                throw BusError.invalidArgs("Order must be one of \(Self.orderings.joined(separator: ", "))")
            }
            var all = try library.playlists()
            if order == "CreationDate" { all.sort { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) } }
            if args[3].bool! { all.reverse() }
            let page = all.dropFirst(Int(args[0].int64!)).prefix(Int(args[1].int64!))
            return [.array(elementSignature: "(oss)", page.map(Self.playlistValue))]
        default:
            throw BusError.unknownMethod("\(interface).\(member) is not implemented")
        }
    }

    func libraryProperty(_ name: String) -> DBusValue? {
        guard let library else {
            switch name {
            case "PlaylistCount": return .uint32(0)
            case "Orderings": return .strings(Self.orderings)
            case "ActivePlaylist": return .structure([.boolean(false), Self.playlistValue(nil)])
            default: return nil
            }
        }
        switch name {
        case "PlaylistCount": return .uint32(UInt32((try? library.playlists().count) ?? 0))
        case "Orderings": return .strings(Self.orderings)
        case "ActivePlaylist":
            let active = library.activePlaylist
            return .structure([.boolean(active != nil), Self.playlistValue(active)])
        default: return nil
        }
    }

    static func map(_ settings: EpisodeSettings) -> DBusValue {
        .vardict([("rate", .double(settings.rate ?? 0)), ("skipIntro", .int64(settings.skipIntro)),
                  ("skipOutro", .int64(settings.skipOutro)), ("voiceBoost", .boolean(settings.voiceBoost)),
                  ("trimSilence", .boolean(settings.trimSilence))])
    }

    /// FeedSet's settings, checked whole before anything changes.
    static func episodeChange(_ given: [String: DBusValue]) throws -> (inout EpisodeSettings) -> Void {
        var steps: [(inout EpisodeSettings) -> Void] = []
        for (key, value) in given.sorted(by: { $0.key < $1.key }) {
            switch (key, value) {
            case ("rate", .double(let rate)):
                guard EpisodeSettings.acceptsRate(rate) else {
                    throw BusError.invalidArgs("a feed's rate is 0 (the session's) or from \(Engine.minimumRate) to \(Engine.maximumRate), not \(rate)")
                }
                steps.append { $0.rate = rate == 0 ? nil : rate }
            case ("skipIntro", .int64(let time)), ("skipOutro", .int64(let time)):
                guard (0...EpisodeSettings.longestSkip).contains(time) else {
                    throw BusError.invalidArgs("\(key) is from 0 to an hour, in µs, not \(time)")
                }
                steps.append(key == "skipIntro" ? { $0.skipIntro = time } : { $0.skipOutro = time })
            case ("voiceBoost", .boolean(let on)): steps.append { $0.voiceBoost = on }
            case ("trimSilence", .boolean(let on)): steps.append { $0.trimSilence = on }
            default:
                throw BusError.invalidArgs("FeedSet takes rate (d), skipIntro (x), skipOutro (x), voiceBoost (b) and trimSilence (b), not \(key) (\(value.signature))")
            }
        }
        return { settings in steps.forEach { $0(&settings) } }
    }

    private func item(_ id: Int64) throws -> LibraryItem {
        guard let item = try library?.libraryItem(id) else { throw noItem(id) }
        return item
    }

    private func noItem(_ id: Int64) -> BusError {
        BusError(MPRIS.errorNoSuchItem, "no item \(id) in the library")
    }

    private func playlistsChanged(named name: String?) {
        emitPropertiesChanged(MPRIS.playlists, [("PlaylistCount", libraryProperty("PlaylistCount")!),
                                               ("ActivePlaylist", libraryProperty("ActivePlaylist")!)], [])
        if let name, let info = try? library?.playlists().first(where: { $0.name == name }) {
            emit(MPRIS.playlists, "PlaylistChanged", [Self.playlistValue(info)])
        }
    }

    static func playlistValue(_ info: PlaylistInfo?) -> DBusValue {
        guard let info else { return .structure([.objectPath("/"), .string(""), .string("")]) }
        return .structure([.objectPath(playlistPrefix + String(info.id)), .string(info.name), .string("")])
    }

    static func map(_ item: LibraryItem) -> DBusValue {
        var pairs: [(String, DBusValue)] = [
            ("id", .int64(item.id)), ("position", .int64(item.position)), ("finished", .boolean(item.finished)),
            ("playCount", .uint32(UInt32(clamping: item.playCount))), ("addedAt", .int64(item.addedAt)),
        ]
        for (key, value) in [("title", item.title), ("artist", item.artist), ("album", item.album), ("cover", item.cover),
                             ("localPath", item.localPath), ("remoteURL", item.remoteURL)] {
            if let value { pairs.append((key, .string(value))) }
        }
        if let duration = item.duration { pairs.append(("duration", .int64(duration))) }
        if let last = item.lastPlayed { pairs.append(("lastPlayed", .int64(last))) }
        if item.timeSaved > 0 { pairs.append(("timeSaved", .int64(item.timeSaved))) }
        return .vardict(pairs)
    }
}
