import Glibc
import ReelCore

/// The library as MPD's database: browsing, finding, listing, counting, re-importing.
extension MPDCommands {
    static let databaseCommands: [String: Entry] = [
        "lsinfo": Entry(arguments: 0...1) { mpd, args, client throws(Ack) in
            let tree = try mpd.tree()
            let name = MPDCommands.folderName(args[0] ?? "")
            var reply = Reply()
            if let item = tree.song(name) {
                SongLines.add(file: name, item.metadata, facts: SongFacts(item.info), tags: client.tags, to: &reply)
                return reply
            }
            guard let (folders, songs) = tree.listing(name) else { throw Ack.noExist("No such directory") }
            for folder in folders { mpd.addDirectory(folder, withTime: true, to: &reply) }
            for song in songs { SongLines.add(file: song.file, song.metadata, facts: song.facts, tags: client.tags, to: &reply) }
            if name.isEmpty, let library = mpd.library {
                for playlist in (try? library.playlists()) ?? [] { mpd.addPlaylistLines(playlist, to: &reply) }
            }
            return reply
        },
        "listall": Entry(arguments: 0...1) { mpd, args, _ throws(Ack) in
            try mpd.listAll(args[0] ?? "", tags: nil)
        },
        "listallinfo": Entry(arguments: 0...1) { mpd, args, client throws(Ack) in
            try mpd.listAll(args[0] ?? "", tags: client.tags)
        },
        "find": Entry(arguments: 1...Int.max) { mpd, args, client throws(Ack) in
            try mpd.songLines(mpd.find(args.values, exact: true).songs, tags: client.tags)
        },
        "search": Entry(arguments: 1...Int.max) { mpd, args, client throws(Ack) in
            try mpd.songLines(mpd.find(args.values, exact: false).songs, tags: client.tags)
        },
        "findadd": Entry(arguments: 1...Int.max) { mpd, args, _ throws(Ack) in
            let found = try mpd.find(args.values, exact: true, position: true)
            try mpd.queue(found.songs.map(\.item), at: found.position)
            return Reply()
        },
        "searchadd": Entry(arguments: 1...Int.max) { mpd, args, _ throws(Ack) in
            let found = try mpd.find(args.values, exact: false, position: true)
            try mpd.queue(found.songs.map(\.item), at: found.position)
            return Reply()
        },
        "count": Entry(arguments: 1...Int.max) { mpd, args, _ throws(Ack) in
            var values = args.values
            var group: TagField?
            if values.count >= 2, values[values.count - 2] == "group" {
                group = try MPDCommands.tag(values.removeLast())
                values.removeLast()
            }
            // `count group artist` without a filter counts the whole database.
            let songs = values.isEmpty ? try mpd.tree().songs[...] : try mpd.find(values, exact: true).songs
            var reply = Reply()
            func add(_ songs: some Sequence<DatabaseSong>) {
                reply.add("songs", songs.reduce(0) { n, _ in n + 1 })
                reply.add("playtime", songs.compactMap(\.item.duration).reduce(0, +) / 1_000_000)
            }
            guard let group else { add(songs); return reply }
            let byValue = Dictionary(grouping: songs) { group.listedValues($0.metadata)[0] }
            for value in byValue.keys.sorted() {
                reply.add(group.name, value)
                add(byValue[value]!)
            }
            return reply
        },
        "list": Entry(arguments: 1...Int.max) { mpd, args, _ throws(Ack) in
            var values = Array(args.values.dropFirst())
            var groups: [TagField] = []
            while values.count >= 2, values[values.count - 2] == "group" {
                let group = try MPDCommands.tag(values.removeLast())
                // Every value of every group is visited: a tag twice (genre × genre × …) would multiply without end.
                guard !groups.contains(group), group != (try? MPDCommands.tag(args[0]!)) else {
                    throw Ack.argument("Conflicting group")   // MPD's words, for a group named twice or the listed tag
                }
                groups.insert(group, at: 0)
                values.removeLast()
            }
            let wanted = args[0]!
            // The protocol's old form: `list album ARTIST`.
            if wanted.lowercased() == "album", values.count == 1 { values.insert("artist", at: 0) }
            let songs = values.isEmpty ? try mpd.tree().songs[...] : try mpd.find(values, exact: true).songs
            return try mpd.list(wanted, groups: groups, songs: songs)
        },
        "update": Entry(arguments: 0...1) { mpd, args, client throws(Ack) in try mpd.update(args[0], rescan: false, local: client.local) },
        "rescan": Entry(arguments: 0...1) { mpd, args, client throws(Ack) in try mpd.update(args[0], rescan: true, local: client.local) },
    ]

    /// A folder as clients write it: "/" and a trailing slash mean the same as without.
    static func folderName(_ text: String) -> String {
        var name = Substring(text)
        while name.hasPrefix("/") { name = name.dropFirst() }
        while name.hasSuffix("/") { name = name.dropLast() }
        return String(name)
    }

    static func tag(_ name: String) throws(Ack) -> TagField {
        guard let tag = TagField(named: name) else { throw Ack.argument("Unknown tag type: \(name)") }
        return tag
    }

    /// A folder's line, and with `withTime` (lsinfo, listallinfo) its Last-Modified as MPD gives it:
    /// the folder's own time on the disk.
    func addDirectory(_ name: String, withTime: Bool, to reply: inout Reply) {
        reply.add("directory", name)
        guard withTime, let root = musicFolder, name != LibraryTree.remoteFolder else { return }
        var info = stat()
        guard stat(root + "/" + name, &info) == 0 else { return }
        reply.add("Last-Modified", UTCTime.iso8601(Int64(info.st_mtim.tv_sec)))
    }

    /// Every item of the library.
    func items() throws(Ack) -> [LibraryItem] {
        let library = try requireLibrary()
        do { return try library.libraryItems(matching: "", offset: 0, limit: -1) } catch {
            throw Ack(.system, "the library cannot be read: \(error)")
        }
    }

    /// The database, built again only when the library changed.
    func tree() throws(Ack) -> LibraryTree {
        let revision = library?.libraryRevision
        if let cached = cachedTree, cached.revision == revision { return cached.tree }
        let catalogue = library?.catalogueRevision
        let tree = LibraryTree(try items(), root: musicFolder)
        cachedTree = (revision, catalogue, tree)
        return tree
    }

    /// The database for the facts of queued songs (Last-Modified, Format): the tree built last,
    /// unless an import or a removal came since. Saved positions change the library's revision
    /// every few seconds of playback, and a `playlistinfo` must not build the tree again for them.
    func treeForFacts() -> LibraryTree? {
        if let cached = cachedTree, cached.catalogue == library?.catalogueRevision { return cached.tree }
        return try? tree()
    }

    func songLines(_ songs: some Sequence<DatabaseSong>, tags: TagSet) -> Reply {
        var reply = Reply()
        for song in songs { SongLines.add(file: song.file, song.metadata, facts: song.facts, tags: tags, to: &reply) }
        return reply
    }

    func listAll(_ folder: String, tags: TagSet?) throws(Ack) -> Reply {
        let tree = try tree()
        let name = MPDCommands.folderName(folder)
        let songs = tree.songs(under: name)
        guard !songs.isEmpty || name.isEmpty else {
            if let song = tree.databaseSong(name) { return songLines([song], tags: tags ?? []) }
            throw Ack.noExist("No such directory")
        }
        var reply = Reply()
        var shown = Set<String>()
        // The folder asked for comes first, as in MPD.
        if !name.isEmpty {
            addDirectory(name, withTime: tags != nil, to: &reply)
            shown.insert(name)
        }
        for song in songs {
            // Each folder once, before its first song, as MPD walks the tree.
            var parent = LibraryTree.parent(song.file)
            var missing: [String] = []
            while !parent.isEmpty, parent != name, !shown.contains(parent) {
                missing.append(parent)
                shown.insert(parent)
                parent = parent == LibraryTree.remoteFolder ? "" : LibraryTree.parent(parent)
            }
            for folder in missing.reversed() { addDirectory(folder, withTime: tags != nil, to: &reply) }
            if let tags {
                SongLines.add(file: song.file, song.metadata, facts: song.facts, tags: tags, to: &reply)
            } else {
                reply.add("file", song.file)
            }
        }
        return reply
    }

    /// The songs a filter finds, with `sort`, `window` and (for `findadd`) a position read off the end.
    func find(_ arguments: [String], exact: Bool, position: Bool = false)
        throws(Ack) -> (songs: ArraySlice<DatabaseSong>, position: String?) {
        var filterArgs = arguments
        var sort: String?, window: String?, at: String?
        // Modifiers come in pairs after the filter (at least one argument long).
        while filterArgs.count >= 3 {
            let key = filterArgs[filterArgs.count - 2]
            if key == "sort" { sort = filterArgs.removeLast() }
            else if key == "window" { window = filterArgs.removeLast() }
            else if key == "position" && position { at = filterArgs.removeLast() }
            else { break }
            filterArgs.removeLast()
        }
        let filter = try Filter.parse(filterArgs, exact: exact)
        var songs = try tree().songs.filter { filter.matches(file: $0.file, $0.metadata) }
        if let sort {
            let descending = sort.hasPrefix("-")
            let tag = try MPDCommands.tag(String(sort.drop { $0 == "-" }))
            songs.sort { (tag.matchedValues($0.metadata).first ?? "") < (tag.matchedValues($1.metadata).first ?? "") }
            if descending { songs.reverse() }
        }
        guard let window else { return (songs[...], at) }
        return (songs[try Arguments([window]).range(0, count: songs.count)], at)
    }

    /// Queues library items at a position as `add` takes it (nil: at the end).
    func queue(_ items: [LibraryItem], at position: String?) throws(Ack) {
        let library = try requireLibrary()
        guard !items.isEmpty else { return }
        let (after, atStart) = try place(position)
        do { try library.queueLibraryItems(items, after: after, atStart: atStart) } catch { throw Ack(error) }
    }

    func list(_ wanted: String, groups: [TagField], songs: ArraySlice<DatabaseSong>) throws(Ack) -> Reply {
        var reply = Reply()
        if wanted.lowercased() == "file" {
            for song in songs { reply.add("file", song.file) }
            return reply
        }
        let tag = try MPDCommands.tag(wanted)
        // Songs of the tree as it is now (a write that landed in between makes another tree).
        let tree = try tree()
        if groups.count <= 1, songs.allSatisfy({ $0.index < tree.songs.count && tree.songs[$0.index] === $0 }) {
            return listByColumns(tag, group: groups.first, songs: songs, tree: tree)
        }
        // A tree of values, one level a group and the tag's values last, as MPD's RecursiveMap: each
        // song walks down it with every value of every group (as MPD visits them), and a song without
        // the tag lists it empty, as MPD does. Walked in byte order, as MPD's std::map keeps it.
        let root = ValueTree()
        for song in songs {
            let metadata = song.metadata
            func insert(_ node: ValueTree, _ level: Int) {
                guard level < groups.count else { return tag.forEachListedValue(metadata) { node.addLeaf($0) } }
                groups[level].forEachListedValue(metadata) { insert(node.child($0), level + 1) }
            }
            insert(root, 0)
        }
        func write(_ node: ValueTree, _ level: Int) {
            let byBytes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            guard level < groups.count else {
                for value in node.leaves.sorted(by: byBytes) { reply.add(tag.name, value) }
                return
            }
            for key in node.children.keys.sorted(by: byBytes) {
                reply.add(groups[level].name, key)
                write(node.children[key]!, level + 1)
            }
        }
        write(root, 0)
        return reply
    }

    /// `list TAG [group GROUP]`, the common forms, from the tree's columns: each song adds the
    /// pairs of ranks of its values; sorted, they come out in MPD's order, each pair once.
    private func listByColumns(_ tag: TagField, group: TagField?, songs: ArraySlice<DatabaseSong>, tree: LibraryTree) -> Reply {
        let values = tree.column(tag)
        var reply = Reply()
        guard let group else {
            var seen = [Bool](repeating: false, count: values.values.count)
            for song in songs { values.forEachRank(of: song.index) { seen[Int($0)] = true } }
            for (rank, value) in values.values.enumerated() where seen[rank] { reply.add(tag.name, value) }
            return reply
        }
        let groups = tree.column(group)
        var pairs: [Int64] = []
        pairs.reserveCapacity(songs.count)
        for song in songs {
            groups.forEachRank(of: song.index) { g in
                values.forEachRank(of: song.index) { v in pairs.append(Int64(g) << 32 | Int64(v)) }
            }
        }
        pairs.sort()
        var last: Int64 = -1
        var lastGroup: Int64 = -1
        for pair in pairs where pair != last {
            last = pair
            if pair >> 32 != lastGroup {
                lastGroup = pair >> 32
                reply.add(group.name, groups.values[Int(lastGroup)])
            }
            reply.add(tag.name, values.values[Int(pair & 0xFFFF_FFFF)])
        }
        return reply
    }

    /// `update [URI]` and `rescan [URI]`: scans the music directory, or a folder or file of it, off
    /// the loop; `update` reads what changed, `rescan` everything. As MPD 0.23: while one runs,
    /// up to 32 more are queued, each with its job number; `update` idles at each start and end.
    func update(_ name: String?, rescan: Bool, local: Bool) throws(Ack) -> Reply {
        let library = try requireLibrary()
        guard updates.count <= Self.updateQueueSize else { throw Ack(.updateAlready, "Update queue is full") }
        let target = try name.map { text throws(Ack) in try updateTarget(text, local: local) } ?? ""
        let inputs: [String]
        if target == LibraryTree.remoteFolder || URLParts.isRemote(target) {
            inputs = try tree().songs(under: target).compactMap(\.item.remoteURL)
        } else {
            guard let folder = musicFolder else { throw Ack(.system, "reel has no music folder (music-dir in reeld.conf)") }
            guard LibraryTree.isPlainName(target) else { throw Ack.argument("Malformed path") }
            inputs = [target.isEmpty ? folder : folder + "/" + target]
        }
        // MPD's job numbers run from 1 to 2^31 - 1, then start again.
        nextUpdate = nextUpdate >= Int(Int32.max) ? 1 : nextUpdate + 1
        let job = nextUpdate
        if updates.isEmpty { raised.insert(.update) }
        updates.append(job)
        do {
            try library.importItems(inputs, rescan: rescan, progress: { _, _ in }) { [weak self] _ in
                guard let self else { return }
                updates.removeAll { $0 == job }
                raised.insert(.update)
            }
        } catch {
            updates.removeAll { $0 == job }
            throw Ack(.system, "cannot update: \(error)")
        }
        var reply = Reply()
        reply.add("updating_db", job)
        return reply
    }

    /// What `update` and `rescan` name, relative to the music folder: "" and "/" are all of it
    /// (MPD 0.15's way), and "/Album/" is the folder Album where there is one. Any other name
    /// starting with "/" is a path elsewhere, refused as malformed (as MPD refuses it), but for
    /// the Unix socket's owner naming a place inside the music folder by its path.
    func updateTarget(_ text: String, local: Bool) throws(Ack) -> String {
        let target = Self.folderName(text)
        guard text.hasPrefix("/"), !target.isEmpty, let folder = musicFolder else { return target }
        let path = "/" + target
        if local, path == folder { return "" }
        if local, path.hasPrefix(folder + "/") { return String(path.dropFirst(folder.count + 1)) }
        guard LibraryTree.isPlainName(target), access(folder + "/" + target, F_OK) == 0 else { throw Ack.argument("Malformed path") }
        return target
    }

    /// How many updates may wait behind the running one (MPD's MAX_UPDATE_QUEUE_SIZE).
    static let updateQueueSize = 32
}
