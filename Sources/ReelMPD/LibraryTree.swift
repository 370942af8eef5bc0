import ReelCore

/// The library as MPD's database: local items in folders under the
/// deepest folder that holds them all (MPD's music directory), remote
/// items in one virtual folder, named by their URLs.
struct LibraryTree {
    static let remoteFolder = "@remote"

    /// The music directory: absolute, without a trailing slash ("" for "/"); nil without local items.
    let root: String?
    /// Every item with its name in the database, sorted by name.
    let songs: [(file: String, item: LibraryItem)]

    init(_ items: [LibraryItem]) {
        let folders = items.compactMap(\.localPath).map(Self.folder)
        root = folders.first.map { first in folders.dropFirst().reduce(first, Self.commonFolder) }
        let root = self.root
        songs = items.map { item -> (String, LibraryItem) in
            if let path = item.localPath, let root { return (String(path.dropFirst(root.count + 1)), item) }
            return (item.remoteURL ?? "", item)
        }.filter { !$0.0.isEmpty }
        // Byte order: what MPD's sorting of names amounts to, and far cheaper than String's.
        .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
    }

    /// The folder holding a path: `/a/b/c.ogg` → `/a/b`, `/c.ogg` → "".
    static func folder(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// The deepest folder holding both: `/a/b/c` and `/a/bd` → `/a`.
    static func commonFolder(_ a: String, _ b: String) -> String {
        if a == b { return a }
        var cut = 0   // the length of the common prefix that ends a folder
        var i = 0
        for (x, y) in zip(a.utf8, b.utf8) {
            guard x == y else { break }
            i += 1
            if x == UInt8(ascii: "/") { cut = i - 1 }
        }
        let shorter = a.utf8.count < b.utf8.count ? a : b
        // One is a folder of the other: `/a/b` and `/a/b/c` → `/a/b`.
        if i == shorter.utf8.count, (a.utf8.count == i || a.utf8[a.utf8.index(a.utf8.startIndex, offsetBy: i)] == UInt8(ascii: "/")),
           (b.utf8.count == i || b.utf8[b.utf8.index(b.utf8.startIndex, offsetBy: i)] == UInt8(ascii: "/")) {
            return shorter
        }
        return String(decoding: a.utf8.prefix(cut), as: UTF8.self)
    }

    /// The folder a song sits in, as the database names it ("" for the top).
    static func parent(_ file: String) -> String {
        if URLParts.isRemote(file) { return remoteFolder }
        return file.lastIndex(of: "/").map { String(file[..<$0]) } ?? ""
    }

    /// Songs in `folder` or below it.
    func songs(under folder: String) -> [(file: String, item: LibraryItem)] {
        if folder.isEmpty { return songs }
        if folder == Self.remoteFolder { return songs.filter { URLParts.isRemote($0.file) } }
        return songs.filter { $0.file.hasPrefix(folder + "/") }
    }

    /// What `lsinfo` shows of a folder: its subfolders and its own songs; nil when there is no such folder.
    func listing(_ folder: String) -> (folders: [String], songs: [(file: String, item: LibraryItem)])? {
        let below = songs(under: folder)
        guard !below.isEmpty || folder.isEmpty else { return nil }
        var folders = Set<String>()
        var own: [(file: String, item: LibraryItem)] = []
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
    func song(_ file: String) -> LibraryItem? {
        songs.first { $0.file == file }?.item
    }

    /// What the database name or path means on disk: an absolute path under the music directory.
    func absolute(_ name: String) -> String? {
        guard let root, !name.isEmpty else { return root.map { $0.isEmpty ? "/" : $0 } }
        return root + "/" + name
    }
}
