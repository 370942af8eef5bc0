import ReelCore
import ReelSystem

/// The queue, as MPD calls its "current playlist": positions count in
/// track-list order, ids are reel's entry ids.
extension MPDCommands {
    static let queueCommands: [String: Entry] = [
        "add": Entry(arguments: 1...2) { mpd, args, client throws(Ack) in
            let uris = try mpd.resolve(args[0]!, expand: true, local: client.local)
            try mpd.insert(uris, at: args[1])
            return Reply()
        },
        "addid": Entry(arguments: 1...2) { mpd, args, client throws(Ack) in
            let uris = try mpd.resolve(args[0]!, expand: false, local: client.local)
            let first = EntryID(mpd.queue.nextID)
            try mpd.insert(uris, at: args[1])
            var reply = Reply()
            reply.add("Id", first.raw)
            return reply
        },
        "delete": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let queue = mpd.queue
            let range = try args.range(0, count: queue.count)
            for id in queue.entries[range].map(\.id) { try mpd.run(.remove(id)) }
            return Reply()
        },
        "deleteid": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            try mpd.run(.remove(mpd.entry(id: args.id(0)).0.id))
            return Reply()
        },
        "clear": Entry(arguments: 0...0) { mpd, _, _ throws(Ack) in try mpd.run(.clear); return Reply() },
        "move": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            let queue = mpd.queue
            let range = try args.range(0, count: queue.count)
            try mpd.move(queue.entries[range].map(\.id), to: mpd.target(args[1]!, count: range.count))
            return Reply()
        },
        "moveid": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            let (entry, _) = try mpd.entry(id: args.id(0))
            try mpd.move([entry.id], to: mpd.target(args[1]!, count: 1))
            return Reply()
        },
        "swap": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            try mpd.swap(mpd.entry(at: args.int(0)).id, mpd.entry(at: args.int(1)).id)
            return Reply()
        },
        "swapid": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            try mpd.swap(mpd.entry(id: args.id(0)).0.id, mpd.entry(id: args.id(1)).0.id)
            return Reply()
        },
        "shuffle": Entry(arguments: 0...1) { mpd, args, _ throws(Ack) in
            let count = mpd.queue.count
            try mpd.run(.shuffleTrackList(args.count == 1 ? try args.range(0, count: count) : 0..<count))
            return Reply()
        },
        "rangeid": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            let id = try args.id(0)
            let range = try args.timeRange(1)
            let (entry, _) = try mpd.entry(id: id)
            if entry.id == mpd.session.snapshot.current?.id, mpd.session.snapshot.status != .stopped {
                throw Ack(.permission, "Cannot edit the current song")
            }
            try mpd.run(.setRange(entry.id, range))
            return Reply()
        },
        "prio": Entry(arguments: 2...Int.max) { _, _, _ throws(Ack) in
            throw Ack.argument("reel plays the queue in its order; priorities are not supported")
        },
        "prioid": Entry(arguments: 2...Int.max) { _, _, _ throws(Ack) in
            throw Ack.argument("reel plays the queue in its order; priorities are not supported")
        },
        "playlistinfo": Entry(arguments: 0...1) { mpd, args, client throws(Ack) in
            let queue = mpd.queue
            let range = args.count == 0 ? queue.entries.indices : try args.range(0, count: queue.count)
            var reply = Reply()
            reply.listing = QueueListing(entries: queue.entries, positions: range)
            return reply
        },
        "playlistid": Entry(arguments: 0...1) { mpd, args, client throws(Ack) in
            let queue = mpd.queue
            var reply = Reply()
            if args.count == 1 {
                mpd.addQueueSongs([try mpd.entry(id: args.id(0)).position], tags: client.tags, to: &reply)
            } else {
                mpd.addQueueSongs(queue.entries.indices, tags: client.tags, to: &reply)
            }
            return reply
        },
        "playlist": Entry(arguments: 0...0) { mpd, _, _ in
            var reply = Reply()
            // MPD writes `0:file: NAME`, no space after the position.
            for (i, entry) in mpd.queue.entries.enumerated() { reply.add("\(i):file", SongLines.file(entry.uri, root: mpd.musicFolder)) }
            return reply
        },
        "plchanges": Entry(arguments: 1...2) { mpd, args, client throws(Ack) in
            var reply = Reply()
            mpd.addQueueSongs(try mpd.changedPositions(args), tags: client.tags, to: &reply)
            return reply
        },
        "plchangesposid": Entry(arguments: 1...2) { mpd, args, _ throws(Ack) in
            var reply = Reply()
            let queue = mpd.queue
            for i in try mpd.changedPositions(args) {
                reply.add("cpos", i)
                reply.add("Id", queue.entries[i].id.raw)
            }
            return reply
        },
        "playlistfind": Entry(arguments: 1...Int.max) { mpd, args, client throws(Ack) in
            try mpd.findInQueue(Filter.parse(args.values, exact: true), tags: client.tags)
        },
        "playlistsearch": Entry(arguments: 1...Int.max) { mpd, args, client throws(Ack) in
            try mpd.findInQueue(Filter.parse(args.values, exact: false), tags: client.tags)
        },
    ]

    /// What `add` and `addid` queue: a song or (for `add`) a folder of the
    /// database, as `lsinfo` and `find` name them ("" and "/": all of it, as
    /// in MPD), or an http(s) URL. The Unix socket's client (the user) may
    /// also name a local file by its absolute path or file:// URI (a playlist
    /// file becomes its entries); as in MPD, no other client may.
    func resolve(_ text: String, expand: Bool, local: Bool) throws(Ack) -> [String] {
        if !local, URLParts.isAbsolute(text), !URLParts.isRemote(text), text != "/" {
            // MPD's answers: an absolute path is no song of the database; file:// is not for this client.
            if text.hasPrefix("/") { throw Ack.noExist("No such song") }
            throw Ack(.permission, "Access denied: local files only through the Unix socket")
        }
        guard URLParts.isAbsolute(text), text != "/" else {
            guard library != nil else {
                throw Ack.noExist("No such file: \(text) (without a library reel takes absolute paths, file:// and http(s) URLs)")
            }
            let tree = try tree()
            let name = MPDCommands.folderName(text)
            let songs = tree.databaseSong(name).map { [$0] } ?? (expand ? tree.songs(under: name) : [])
            guard !songs.isEmpty else { throw Ack.noExist("No such song or directory: \(text)") }
            return try songs.map { song throws(Ack) in try validate(song.item.localPath ?? song.item.remoteURL ?? "") }
        }
        do { return expand ? try session.expand(text) : [try session.validate(text)] } catch { throw Ack(error) }
    }

    private func validate(_ text: String) throws(Ack) -> String {
        do { return try session.validate(text) } catch { throw Ack(error) }
    }

    /// Queues URIs at a position as `add` takes it (nil: at the end).
    func insert(_ uris: [String], at position: String?) throws(Ack) {
        let (after, atStart) = try place(position)
        try run(.add(uris: uris, after: after, atStart: atStart, play: false))
    }

    /// Where `add URI POSITION` puts songs: absolute, `+N` after the current
    /// song or `-N` before it; nil: at the end. As the entry to follow, or the start.
    func place(_ position: String?) throws(Ack) -> (after: EntryID?, atStart: Bool) {
        guard let position else { return (nil, false) }
        let index = try self.index(position)
        guard (0...queue.count).contains(index) else { throw Ack.argument("Bad song index") }
        return index == 0 ? (nil, true) : (queue.entries[index - 1].id, false)
    }

    /// Where a moved run of `count` songs goes: absolute or relative to the current song.
    func target(_ text: String, count: Int) throws(Ack) -> Int {
        let index = try self.index(text)
        guard index >= 0, index + count <= queue.count else { throw Ack.argument("Bad song index") }
        return index
    }

    /// A queue position as MPD writes one: `N`, `+N` (N after the current song) or `-N` (N before it).
    private func index(_ text: String) throws(Ack) -> Int {
        guard let sign = text.first, sign == "+" || sign == "-" else {
            guard let absolute = Int(text) else { throw Ack.argument("Integer expected: \(text)") }
            return absolute
        }
        guard let offset = Int(text.dropFirst()), offset >= 0 else { throw Ack.argument("Integer expected: \(text)") }
        let queue = self.queue
        guard let current = queue.currentID.flatMap(queue.index(of:)) else { throw Ack(.playerSync, "No current song") }
        return sign == "+" ? current + 1 + offset : current - offset
    }

    /// Moves a run of songs so that it starts at `target`, in its order.
    func move(_ ids: [EntryID], to target: Int) throws(Ack) {
        guard let first = ids.first, let start = queue.index(of: first) else { return }
        if target < start {
            for (k, id) in ids.enumerated() { try run(.move(id, to: target + k)) }
        } else {
            for (k, id) in ids.enumerated().reversed() { try run(.move(id, to: target + k)) }
        }
    }

    func swap(_ a: EntryID, _ b: EntryID) throws(Ack) {
        guard let i = queue.index(of: a), let j = queue.index(of: b), i != j else { return }
        try run(.move(a, to: j))
        try run(.move(b, to: i))
    }

    /// `plchanges VERSION [START:END]`: the positions that changed since VERSION.
    func changedPositions(_ args: Arguments) throws(Ack) -> Range<Int> {
        changes.syncQueue(session)
        let count = queue.count
        guard let old = UInt64(args[0]!) else { throw Ack.argument("Integer expected: \(args[0]!)") }
        var range = changes.changedSince(old).map { $0..<count } ?? count..<count
        if args.count == 2 { range = range.clamped(to: try args.range(1, count: count)) }
        return range
    }

    /// The lines of the queue entries at `positions`; a database song's with its facts there
    /// (Last-Modified, Format), as in MPD.
    func addQueueSongs(_ positions: some Sequence<Int>, tags: TagSet, to reply: inout Reply) {
        addQueueSongs(positions, of: queue.entries, tags: tags, to: &reply)
    }

    /// Writes more of a listing: what fits in `limit` bytes and the time to `deadline`, at least
    /// one entry. Its entries are the queue as the command found it, whatever changed since.
    func continueListing(_ listing: inout QueueListing, tags: TagSet, to reply: inout Reply, limit: Int, deadline: MonotonicTime) {
        repeat {
            let step = listing.positions.prefix(QueueListing.step)
            addQueueSongs(step, of: listing.entries, tags: tags, to: &reply)
            listing.positions = listing.positions.dropFirst(step.count)
        } while !listing.positions.isEmpty && reply.bytes.count < limit && monotonicNow() < deadline
    }

    private func addQueueSongs(_ positions: some Sequence<Int>, of entries: [QueueEntry], tags: TagSet, to reply: inout Reply) {
        let catalogue = library?.catalogueRevision
        if queueSongs.catalogue != catalogue || queueSongs.byEntry.count > 2 * entries.count + 64 {
            queueSongs = (catalogue, [:])   // facts that changed, or entries long gone
        }
        lazy var tree = treeForFacts()   // looked at on the first entry not known yet
        for i in positions {
            let entry = entries[i]
            let song: QueueSong
            if let known = queueSongs.byEntry[entry.id], known.item == entry.itemID {
                song = known
            } else {
                song = QueueSong(file: SongLines.file(entry.uri, root: musicFolder), item: entry.itemID,
                                 facts: entry.itemID.flatMap { tree?.song(item: $0)?.facts })
                queueSongs.byEntry[entry.id] = song
            }
            SongLines.add(file: song.file, entry.metadata, facts: song.facts, range: entry.range, tags: tags, to: &reply)
            reply.add("Pos", i)
            reply.add("Id", entry.id.raw)
        }
    }

    func findInQueue(_ filter: Filter, tags: TagSet) -> Reply {
        var reply = Reply()
        let entries = queue.entries
        addQueueSongs(entries.indices.lazy.filter { [musicFolder] in
            filter.matches(file: SongLines.file(entries[$0].uri, root: musicFolder), entries[$0].metadata)
        }, tags: tags, to: &reply)
        return reply
    }
}
