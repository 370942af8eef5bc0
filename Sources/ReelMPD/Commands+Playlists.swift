import Glibc
import ReelCore
import ReelSystem

/// Stored playlists (the library's) and covers.
extension MPDCommands {
    static let playlistCommands: [String: Entry] = [
        "listplaylists": Entry(arguments: 0...0) { mpd, _, _ throws(Ack) in
            var reply = Reply()
            for playlist in try mpd.storedPlaylists() { mpd.addPlaylistLines(playlist, to: &reply) }
            return reply
        },
        "listplaylist": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            var reply = Reply()
            for song in try mpd.playlistSongs(args[0]!) { reply.add("file", song.file) }
            return reply
        },
        "listplaylistinfo": Entry(arguments: 1...1) { mpd, args, client throws(Ack) in
            mpd.songLines(try mpd.playlistSongs(args[0]!), tags: client.tags)
        },
        "load": Entry(arguments: 1...3) { mpd, args, _ throws(Ack) in
            let songs = try mpd.playlistSongs(args[0]!)
            let range = args.count >= 2 ? try args.range(1, count: songs.count) : songs.indices
            try mpd.queue(songs[range].map(\.item), at: args[2])
            return Reply()
        },
        "save": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let name = try MPDCommands.playlistName(args[0]!)
            guard try mpd.storedPlaylists().contains(where: { $0.name == name }) == false else {
                throw Ack(.exist, "Playlist already exists")
            }
            try mpd.withLibrary { library in _ = try library.savePlaylist(name) }
            mpd.raised.insert(.storedPlaylist)
            return Reply()
        },
        "rm": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let playlist = try mpd.storedPlaylist(args[0]!)
            try mpd.withLibrary { library in _ = try library.removePlaylist(id: playlist.id) }
            mpd.raised.insert(.storedPlaylist)
            return Reply()
        },
        "rename": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            let playlist = try mpd.storedPlaylist(args[0]!)
            let name = try MPDCommands.playlistName(args[1]!)
            guard try mpd.storedPlaylists().contains(where: { $0.name == name }) == false else {
                throw Ack(.exist, "Playlist already exists")
            }
            try mpd.withLibrary { library in try library.renamePlaylist(id: playlist.id, to: name) }
            mpd.raised.insert(.storedPlaylist)
            return Reply()
        },
        "playlistadd": Entry(arguments: 2...3) { mpd, args, _ throws(Ack) in
            // A song or a folder of the database (MPD's rule for stored playlists).
            let added = try mpd.databaseSongs(args[1]!).map(\.id)
            try mpd.editPlaylist(args[0]!, creating: true) { items throws(Ack) in
                let at = try args[2].map { text throws(Ack) in try Arguments([text]).position(0, count: items.count) } ?? items.count
                items.insert(contentsOf: added, at: at)
            }
            return Reply()
        },
        "playlistdelete": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            try mpd.editPlaylist(args[0]!) { items throws(Ack) in
                items.removeSubrange(try args.range(1, count: items.count))
            }
            return Reply()
        },
        "playlistmove": Entry(arguments: 3...3) { mpd, args, _ throws(Ack) in
            try mpd.editPlaylist(args[0]!) { items throws(Ack) in
                let from = try args.range(1, count: items.count)
                let moved = Array(items[from])
                items.removeSubrange(from)
                let to = try args.position(2, count: items.count)
                items.insert(contentsOf: moved, at: to)
            }
            return Reply()
        },
        "playlistclear": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            try mpd.editPlaylist(args[0]!, creating: true) { items throws(Ack) in items.removeAll() }
            return Reply()
        },
        "searchaddpl": Entry(arguments: 2...Int.max) { mpd, args, _ throws(Ack) in
            let found = try mpd.find(Array(args.values.dropFirst()), exact: false).songs.map(\.item.id)
            try mpd.editPlaylist(args[0]!, creating: true) { items throws(Ack) in items += found }
            return Reply()
        },
        "albumart": Entry(arguments: 2...2) { mpd, args, client throws(Ack) in
            try mpd.cover(args[0]!, offset: args.unsigned(1), client: client, typed: false)
        },
        "readpicture": Entry(arguments: 2...2) { mpd, args, client throws(Ack) in
            // MPD answers nothing, not an error, for a song without a picture.
            do throws(Ack) {
                return try mpd.cover(args[0]!, offset: args.unsigned(1), client: client, typed: true)
            } catch where error.code != .wait {
                return Reply()
            }
        },
    ]

    /// A stored playlist's name, checked as on every bus (PlaylistName).
    static func playlistName(_ name: String) throws(Ack) -> String {
        guard PlaylistName.problem(name) == nil else { throw Ack.argument("Bad playlist name") }
        return name
    }

    /// The library, or why there is none.
    func requireLibrary() throws(Ack) -> any LibrarySession {
        guard let library else { throw Ack(.system, session.libraryError ?? "reel runs without a library") }
        return library
    }

    func withLibrary<T>(_ body: (any LibrarySession) throws -> T) throws(Ack) -> T {
        let library = try requireLibrary()
        do { return try body(library) } catch { throw Ack(.system, "the library: \(error)") }
    }

    func storedPlaylists() throws(Ack) -> [PlaylistInfo] {
        try withLibrary { try $0.playlists() }
    }

    func storedPlaylist(_ name: String) throws(Ack) -> PlaylistInfo {
        guard let playlist = try storedPlaylists().first(where: { $0.name == name }) else {
            throw Ack.noExist("No such playlist")
        }
        return playlist
    }

    /// A stored playlist's songs, named as in the database.
    func playlistSongs(_ name: String) throws(Ack) -> [DatabaseSong] {
        let playlist = try storedPlaylist(name)
        let items = try withLibrary { try $0.playlistItems(id: playlist.id) }
        let names = Dictionary(try tree().songs.map { ($0.item.id, $0.file) }) { a, _ in a }
        return items.map { DatabaseSong(names[$0.id] ?? $0.localPath ?? $0.remoteURL ?? "", $0) }
    }

    /// Changes a stored playlist's items (library ids, in order); `creating`: one
    /// that does not exist starts empty, as `playlistadd` makes one in MPD.
    func editPlaylist(_ name: String, creating: Bool = false, _ edit: (inout [Int64]) throws(Ack) -> Void) throws(Ack) {
        let name = try Self.playlistName(name)
        var items: [Int64] = []
        if let playlist = try storedPlaylists().first(where: { $0.name == name }) {
            items = try withLibrary { try $0.playlistItems(id: playlist.id) }.map(\.id)
        } else if !creating {
            throw Ack.noExist("No such playlist")
        }
        try edit(&items)
        try withLibrary { try $0.writePlaylist(name, items: items) }
        raised.insert(.storedPlaylist)
    }

    /// The database's songs of a name: one song, or every song of a folder.
    func databaseSongs(_ text: String) throws(Ack) -> [LibraryItem] {
        let tree = try tree()
        let name = MPDCommands.folderName(text)
        let songs = tree.song(name).map { [$0] } ?? tree.songs(under: name).map(\.item)
        guard !songs.isEmpty, LibraryTree.isPlainName(name) || URLParts.isRemote(name) else {
            throw Ack.noExist("No such song or directory: \(text)")
        }
        return songs
    }

    func addPlaylistLines(_ playlist: PlaylistInfo, to reply: inout Reply) {
        reply.add("playlist", playlist.name)
        reply.add("Last-Modified", UTCTime.iso8601(playlist.createdAt))
    }

    /// A chunk of a song's cover: `size`, then up to the client's binary limit from `offset`.
    /// A song is named as the database names it (or by a folder of it, whose
    /// cover is the one beside its songs); the Unix socket's client may also
    /// name a local file by its path. Any other client is served only images
    /// inside the music folder (links resolved) or extracted by reel.
    func cover(_ name: String, offset: Int, client: ClientState, typed: Bool) throws(Ack) -> Reply {
        let target: String
        if URLParts.isAbsolute(name), client.local || URLParts.isRemote(name) {
            target = name
        } else if let tree = try? tree(), let item = tree.song(MPDCommands.folderName(name))
                    ?? tree.listing(MPDCommands.folderName(name))?.songs.first?.item {
            target = item.localPath ?? item.remoteURL ?? name
        } else {
            throw Ack.noExist("No file exists")
        }
        // No link out of the music folder is followed for anyone; the owner may also have a cover
        // beside a file of its own elsewhere, but no link out of that folder either.
        let folders = [musicFolder, coverFolder].compactMap { $0 }
        var request: CoverReader.Request
        if let art = session.coverArt(for: target) {
            guard art.lowercased().hasPrefix("file://") else { throw Ack.noExist("No file exists") }
            let path = SongLines.path(art)
            request = CoverReader.Request(path: path, offset: offset, count: client.binaryLimit,
                                          folders: folders + (client.local ? [Paths.folder(of: path)] : []))
        } else {
            // Perhaps a picture in the song itself, not extracted yet (it has not played).
            let song = SongLines.path(target)
            guard song.hasPrefix("/") else { throw Ack.noExist("No file exists") }
            request = CoverReader.Request(path: song, offset: offset, count: client.binaryLimit, folders: folders)
            request.embedded = true
        }
        // Read off the loop: the command runs again once it is.
        guard let outcome = covers.outcome(request) else { throw Ack.wait }
        let size: Int, type: String, chunk: ArraySlice<UInt8>
        switch outcome {
        case .chunk(let total, let sniffed, let bytes): (size, type, chunk) = (total, sniffed, bytes)
        case .missing: throw Ack.noExist("No file exists")
        case .offsetTooLarge: throw Ack.argument("Offset too large")
        case .unreadable: throw Ack(.system, "cannot read the cover")
        }
        var reply = Reply()
        reply.add("size", size)
        if typed { reply.add("type", type) }
        reply.addBinary(chunk)
        return reply
    }
}

/// Dates as MPD writes them (`Last-Modified`): ISO 8601 in UTC.
enum UTCTime {
    static func iso8601(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        // Howard Hinnant's civil-from-days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { String(n).zeroPadded(to: 2) }
        return "\(String(year).zeroPadded(to: 4))-\(two(month))-\(two(day))T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }
}

