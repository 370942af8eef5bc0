import ReelCore

/// A song of the database: its name there, its item, and the item's tags, made once when the
/// database is built (making them for every song of every `list` cost more than the list). A class:
/// a `list` or `find` passes 10,000 of them around, one reference each instead of a dozen.
final class DatabaseSong {
    let file: String
    let item: LibraryItem
    let metadata: TrackMetadata
    let facts: SongFacts
    /// Its place in the tree's `songs` (set when the tree is built): its row in a `TagColumn`.
    fileprivate(set) var index = -1

    init(_ file: String, _ item: LibraryItem) {
        self.file = file
        self.item = item
        metadata = item.metadata
        facts = SongFacts(item.info)
    }
}

/// The library as MPD's database: local items in folders under the music
/// folder, remote items in one virtual folder, named by their URLs. Local
/// items elsewhere are not in it.
struct LibraryTree {
    static let remoteFolder = "@remote"

    /// Every item with its name in the database, sorted by name.
    let songs: [DatabaseSong]
    /// The tags' columns, made when first asked for; they live as long as the tree.
    private let made = TreeCache()

    /// One tag's listed values for every song of the tree.
    func column(_ field: TagField) -> TagColumn {
        if let column = made.columns[field.name] { return column }
        let column = TagColumn(songs, field)
        made.columns[field.name] = column
        return column
    }

    /// `root`: the music folder, absolute, without a trailing slash; nil when there is none.
    init(_ items: [LibraryItem], root: String?) {
        songs = items.compactMap { item -> DatabaseSong? in
            guard let path = item.localPath else { return item.remoteURL.map { DatabaseSong($0, item) } }
            return Self.name(ofPath: path, root: root).map { DatabaseSong($0, item) }
        }
        // Byte order: what MPD's sorting of names amounts to, and far cheaper than String's.
        .sorted { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
        for (i, song) in songs.enumerated() { song.index = i }
    }

    /// A local file's name in the database: its path below `root` (the music
    /// folder, absolute, without a trailing slash); nil outside it.
    static func name(ofPath path: String, root: String?) -> String? {
        guard let root else { return nil }
        let prefix = root == "/" ? "/" : root + "/"
        // Counted in bytes: a String's count walks its Characters.
        guard path.utf8.count > prefix.utf8.count, path.hasPrefix(prefix) else { return nil }
        return String(path[path.utf8.index(path.startIndex, offsetBy: prefix.utf8.count)...])
    }

    /// A name that stays inside the folder it is taken in: no `.` or `..`
    /// parts, no empty ones ("" itself is the folder).
    static func isPlainName(_ name: String) -> Bool {
        name.isEmpty || !name.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    /// The folder a song sits in, as the database names it ("" for the top).
    static func parent(_ file: String) -> String {
        if URLParts.isRemote(file) { return remoteFolder }
        return file.lastIndex(of: "/").map { String(file[..<$0]) } ?? ""
    }

    /// Songs in `folder` or below it.
    func songs(under folder: String) -> ArraySlice<DatabaseSong> {
        if folder.isEmpty { return songs[...] }
        if folder == Self.remoteFolder { return songs.filter { URLParts.isRemote($0.file) }[...] }
        // The names that start with "folder/" lie together in byte order, before "folder0"
        // ("0" follows "/"): two binary searches, not a walk over every song.
        return songs[firstIndex(notBefore: folder + "/")..<firstIndex(notBefore: folder + "0")]
    }

    /// The index of the first song whose name is not before `name` in byte order (the songs' order).
    private func firstIndex(notBefore name: String) -> Int {
        var low = 0, high = songs.count
        while low < high {
            let middle = (low + high) / 2
            if songs[middle].file.utf8.lexicographicallyPrecedes(name.utf8) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// What `lsinfo` shows of a folder: its subfolders and its own songs; nil when there is no such folder.
    func listing(_ folder: String) -> (folders: [String], songs: [DatabaseSong])? {
        let below = songs(under: folder)
        guard !below.isEmpty || folder.isEmpty else { return nil }
        var folders = Set<String>()
        var own: [DatabaseSong] = []
        for song in below {
            let parent = Self.parent(song.file)
            if parent == folder {
                own.append(song)
            } else if folder.isEmpty, parent == Self.remoteFolder {
                folders.insert(Self.remoteFolder)
            } else {
                let rest = folder.isEmpty ? song.file : String(song.file.dropFirst(folder.count + 1))
                let first = rest.prefix { $0 != "/" }
                folders.insert(folder.isEmpty ? String(first) : folder + "/" + first)
            }
        }
        return (folders.sorted(), own)
    }

    /// The song of this database name, if there is one.
    func song(_ file: String) -> LibraryItem? { databaseSong(file)?.item }

    func databaseSong(_ file: String) -> DatabaseSong? {
        let index = firstIndex(notBefore: file)
        return index < songs.count && songs[index].file.utf8.elementsEqual(file.utf8) ? songs[index] : nil
    }

    /// The song of a library item, if it is in the database (a queue entry's, for its facts).
    func song(item id: Int64) -> DatabaseSong? {
        if made.songsByItem == nil { made.songsByItem = Dictionary(songs.map { ($0.item.id, $0) }) { first, _ in first } }
        return made.songsByItem?[id]
    }

}

/// The values `list` found, a level for each group and the listed tag's values last (MPD's
/// RecursiveMap). A class, so that a song walks down it without copying a level.
final class ValueTree {
    private(set) var children: [String: ValueTree] = [:]
    /// The last level's values.
    private(set) var leaves = Set<String>()

    func child(_ value: String) -> ValueTree {
        if let node = children[value] { return node }
        let node = ValueTree()
        children[value] = node
        return node
    }

    /// A value of the last level, which has nothing below it.
    func addLeaf(_ value: String) { leaves.insert(value) }
}

/// One tag's listed values (`TagField.listedValues`) for every song of a tree, as ranks of the
/// distinct values in byte order: `list` sorts and dedupes integers instead of hashing and comparing
/// strings for each song, which made it slower than MPD's.
final class TagColumn {
    /// The distinct values, in byte order: a rank is an index here.
    let values: [String]
    /// Each song's one value's rank, or -1 for a song with several (in `several`).
    private let ranks: [Int32]
    private let several: [Int: [Int32]]

    init(_ songs: [DatabaseSong], _ field: TagField) {
        var ids: [String: Int32] = [:]
        var distinct: [String] = []
        func id(_ value: String) -> Int32 {
            if let id = ids[value] { return id }
            let id = Int32(distinct.count)
            ids[value] = id
            distinct.append(value)
            return id
        }
        var first = [Int32](repeating: -1, count: songs.count)
        var several: [Int: [Int32]] = [:]
        for (i, song) in songs.enumerated() {
            if let value = field.singleListedValue(song.metadata) {
                first[i] = id(value)
            } else {
                var list: [Int32] = []
                field.forEachListedValue(song.metadata) { list.append(id($0)) }
                several[i] = list
            }
        }
        let order = distinct.indices.sorted { distinct[$0].utf8.lexicographicallyPrecedes(distinct[$1].utf8) }
        var rankOf = [Int32](repeating: 0, count: distinct.count)
        for (rank, id) in order.enumerated() { rankOf[Int(id)] = Int32(rank) }
        values = order.map { distinct[$0] }
        ranks = first.map { $0 < 0 ? -1 : rankOf[Int($0)] }
        self.several = several.mapValues { $0.map { rankOf[Int($0)] } }
    }

    /// The ranks of the song's values.
    func forEachRank(of song: Int, _ body: (Int32) -> Void) {
        let rank = ranks[song]
        if rank >= 0 { body(rank) } else { several[song]?.forEach(body) }
    }
}

/// What a tree made when first asked: its tag columns, its songs by library item (a class: the
/// tree is a value, its cache is filled in place).
final class TreeCache {
    var columns: [String: TagColumn] = [:]
    var songsByItem: [Int64: DatabaseSong]?
}
