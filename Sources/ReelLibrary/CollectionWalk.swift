import Glibc
import ReelCore

/// A scan's first half: walks the roots and compares what is on disk with what the library
/// knows, without reading any file's contents. A file whose size and time are unchanged is
/// left alone; a folder whose time is unchanged is not listed again (its files and subfolders
/// are the library's, each still looked at). What is left to read, what has gone and what
/// could not be looked at make the plan.
struct CollectionWalk {
    /// What the scan must do.
    struct Plan {
        /// New and changed files, in walk order.
        var toRead: [String] = []
        /// The cover beside each folder that holds a file to read (its first of `coverNames`).
        var covers: [String: String] = [:]
        var unchanged = 0
        var unchangedProblems = 0
        /// Known files no longer on disk (or no longer taken), with what the library knew.
        var gone: [(path: String, file: KnownFiles.File)] = []
        var goneProblems: [String] = []
        var goneFolders: [String] = []
        /// Folders listed whole: their time (0 when it was too recent to trust) and cover.
        var listed: [(path: String, folder: KnownFiles.Folder)] = []
        /// Folders whose cover is another than the library's.
        var coverChanged: [(folder: String, cover: String?)] = []
        /// What could not be looked at, with why: each its own reason.
        var problems: [(path: String, reason: String)] = []
        /// Files not taken for media by their names, by extension.
        var ignored: [String: Int] = [:]
    }

    /// Files with these extensions are not media and are not read (nor reported one by one):
    /// pictures, text beside an album, playlists, archives, half-finished downloads.
    static let notMedia: Set<String> = [
        "jpg", "jpeg", "png", "gif", "bmp", "webp", "tif", "tiff", "heic", "svg", "ico",
        "txt", "nfo", "log", "cue", "md", "pdf", "doc", "docx", "rtf", "htm", "html", "xml", "json", "csv", "ini",
        "cfg", "sfv", "md5", "sha1", "sha256", "ffp", "accurip", "toc", "url", "lrc", "db", "sqlite", "torrent",
        "m3u", "m3u8", "pls", "xspf", "wpl", "asx", "cue",
        "zip", "rar", "7z", "tar", "gz", "bz2", "xz", "zst",
        "part", "crdownload", "tmp", "partial", "download", "swp",
    ]
    static let coverNames = Probe.coverNames

    let known: KnownFiles
    /// Read every file again, whatever its size and time say (MPD's `rescan`).
    let rescan: Bool
    /// When the scan began (ns since 1970): a folder changed within `racyWindow` of it may
    /// change again within the same tick of its clock, so its time is not trusted.
    let started: Int64
    static let racyWindow: Int64 = 2_000_000_000
    private(set) var plan = Plan()
    /// Folders walked, by device and inode: one reached twice through links is walked once.
    private var walked = Set<[UInt64]>()
    /// Files looked at, so that a root named twice (a folder and a file in it) counts once.
    private var looked = Set<String>()

    init(known: KnownFiles, rescan: Bool, started: Int64) {
        self.known = known
        self.rescan = rescan
        self.started = started
    }

    /// Walks a root: a folder with everything below it, or one file. A `top` root (the music
    /// folder, a folder the user named) that is missing or empty while the library has files
    /// from it is taken for a disk not mounted, not for a collection deleted: what the library
    /// has of it stays. A root that is only a changed path (the watch's) is taken as it is.
    mutating func walk(_ root: String, top: Bool) {
        var info = stat()
        guard stat(root, &info) == 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR {
                let held = top && known.files[root] == nil ? known.everything(under: root).files.count : 0
                if held > 0 {
                    plan.problems.append((root, "not there (a disk not mounted?); the library keeps the \(held) files it has from it"))
                    return
                }
                if known.files[root] == nil && known.problems[root] == nil && known.folders[root] == nil {
                    plan.problems.append((root, "no such file or folder"))
                }
                forget(root)
            } else {
                plan.problems.append((root, "cannot look at it: \(String(cString: strerror(error)))"))
            }
            return
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: walkFolder(root, info, ancestors: [], top: top)
        case S_IFREG: take(root, info, cover: nil, named: true)
        default: plan.problems.append((root, "not a regular file or a folder"))
        }
    }

    /// Everything known at or under `path` is gone.
    private mutating func forget(_ path: String) {
        if let file = known.files[path] { plan.gone.append((path, file)) }
        if known.problems[path] != nil { plan.goneProblems.append(path) }
        guard known.folders[path] != nil || known.subfolders[path] != nil || known.filesIn[path] != nil
            || known.problemsIn[path] != nil else { return }
        let below = known.everything(under: path)
        for file in below.files { if let known = known.files[file] { plan.gone.append((file, known)) } }
        plan.goneProblems += below.problems
        plan.goneFolders += below.folders.filter { known.folders[$0] != nil }
    }

    private static func id(_ info: stat) -> [UInt64] { [UInt64(info.st_dev), UInt64(info.st_ino)] }

    private static func nanoseconds(_ info: stat) -> Int64 {
        Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }

    private mutating func walkFolder(_ path: String, _ info: stat, ancestors: [[UInt64]], top: Bool = false) {
        let id = Self.id(info)
        if ancestors.contains(id) {
            plan.problems.append((path, "a link to a folder that holds it; not followed"))
            return
        }
        guard walked.insert(id).inserted else {
            plan.problems.append((path, "the same folder as another one scanned (a link to it); scanned once"))
            return
        }
        let modified = Self.nanoseconds(info)
        let stored = known.folders[path]
        if !rescan, let stored, stored.modified != 0, stored.modified == modified {
            revisit(path, cover: stored.cover, ancestors: ancestors + [id])
            return
        }
        let (listing, error) = list(path)
        guard let names = listing else {
            if error == ENOENT || error == ENOTDIR { forget(path) } else {
                // What the library has under it stays: it cannot be told from here whether it is still there.
                plan.problems.append((path, "cannot list the folder: \(String(cString: strerror(error)))"))
            }
            return
        }
        if top, names.isEmpty, case let held = known.everything(under: path).files.count, held > 0 {
            plan.problems.append((path, "empty (a disk not mounted?); the library keeps the \(held) files it has from it"))
            return
        }
        let cover = Self.coverNames.first { names.contains($0) && access(path + "/" + $0, R_OK) == 0 }.map { path + "/" + $0 }
        var seenFiles = Set<String>(), seenFolders = Set<String>()
        for name in names {
            let child = (path == "/" ? "" : path) + "/" + name
            var entry = stat()
            guard stat(child, &entry) == 0 else {
                let error = errno
                var link = stat()
                if error == ENOENT, lstat(child, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK {
                    plan.problems.append((child, "a link to nothing"))
                } else if error == ELOOP {
                    plan.problems.append((child, "a link that leads back to itself"))
                } else if error != ENOENT {
                    plan.problems.append((child, "cannot look at it: \(String(cString: strerror(error)))"))
                }
                // ENOENT without a link: it went while the folder was read.
                continue
            }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR:
                seenFolders.insert(child)
                walkFolder(child, entry, ancestors: ancestors + [id])
            case S_IFREG:
                seenFiles.insert(child)
                take(child, entry, cover: cover, named: false)
            default:
                plan.problems.append((child, "not a regular file (a pipe, socket or device)"))
            }
        }
        for file in known.filesIn[path] ?? [] where !seenFiles.contains(file) { forget(file) }
        for problem in known.problemsIn[path] ?? [] where !seenFiles.contains(problem) { forget(problem) }
        for folder in known.subfolders[path] ?? [] where !seenFolders.contains(folder) { forget(folder) }
        plan.listed.append((path, KnownFiles.Folder(modified: started - modified < Self.racyWindow ? 0 : modified, cover: cover)))
        if let stored, stored.cover != cover { plan.coverChanged.append((path, cover)) }
    }

    /// A folder whose listing is unchanged: each of its known files, problems and subfolders is looked at again.
    private mutating func revisit(_ path: String, cover: String?, ancestors: [[UInt64]]) {
        for file in (known.filesIn[path] ?? []) + (known.problemsIn[path] ?? []) {
            var info = stat()
            guard stat(file, &info) == 0 else {
                let error = errno
                if error == ENOENT || error == ENOTDIR { forget(file) } else {
                    plan.problems.append((file, "cannot look at it: \(String(cString: strerror(error)))"))
                }
                continue
            }
            take(file, info, cover: cover, named: false)
        }
        for folder in (known.subfolders[path] ?? []).sorted(by: Self.byBytes) {
            var info = stat()
            let found = stat(folder, &info) == 0
            guard found, (info.st_mode & S_IFMT) == S_IFDIR else {
                let error = found ? ENOTDIR : errno
                if error == ENOENT || error == ENOTDIR { forget(folder) } else {
                    plan.problems.append((folder, "cannot look at it: \(String(cString: strerror(error)))"))
                }
                continue
            }
            walkFolder(folder, info, ancestors: ancestors)
        }
    }

    /// A regular file: to read, unchanged, or not media by its name. A root file named
    /// directly is read whatever its extension.
    private mutating func take(_ path: String, _ info: stat, cover: String?, named: Bool) {
        guard looked.insert(path).inserted else { return }
        if !named {
            let ext = Self.fileExtension(path)
            if Self.notMedia.contains(ext) {
                plan.ignored[ext, default: 0] += 1
                if known.files[path] != nil { forget(path) }
                return
            }
        }
        let size = Int64(info.st_size), modified = Self.nanoseconds(info)
        if !rescan, let file = known.files[path], file.size == size, file.modified == modified {
            plan.unchanged += 1
        } else if !rescan, let problem = known.problems[path], problem.size == size, problem.modified == modified {
            plan.unchangedProblems += 1
        } else {
            plan.toRead.append(path)
            if let cover { plan.covers[KnownFiles.parent(path)] = cover }
        }
    }

    /// A folder's names, in byte order, without `.`, `..` and hidden ones (a leading dot, as
    /// `ls` leaves them out: `.DS_Store`, `._song.mp3`). A name that is not UTF-8 is reported
    /// and left out: no bus can name it to a client. Nil, with errno's reason, when the folder
    /// cannot be read.
    private mutating func list(_ path: String) -> ([String]?, Int32) {
        guard let dir = opendir(path) else { return (nil, errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(dir) else {
                if errno != 0 { return (nil, errno) }
                break
            }
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard let first = bytes.first, first != UInt8(ascii: ".") else { continue }
            guard let name = String(validating: bytes, as: UTF8.self) else {
                plan.problems.append(((path == "/" ? "" : path) + "/" + Self.escaped(bytes),
                                      "the name is not UTF-8 text; rename it to play it with reel"))
                continue
            }
            names.append(name)
        }
        return (names.sorted(by: Self.byBytes), 0)
    }

    private static func byBytes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// Bytes that are not UTF-8 as \xNN, the rest as it is.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var rest = bytes[...]
        while !rest.isEmpty {
            var valid = rest.count
            while valid > 0, String(validating: rest.prefix(valid), as: UTF8.self) == nil { valid -= 1 }
            text += String(decoding: rest.prefix(valid), as: UTF8.self)
            rest = rest.dropFirst(valid)
            if let byte = rest.first {
                text += "\\x" + String(byte, radix: 16, uppercase: true).zeroPadded(to: 2)
                rest = rest.dropFirst()
            }
        }
        return text
    }

    /// The extension of a file name, lower-cased, by bytes ("" when none).
    static func fileExtension(_ path: String) -> String {
        let utf8 = path.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")) else { return "" }
        let slash = utf8.lastIndex(of: UInt8(ascii: "/"))
        guard slash.map({ $0 < dot && utf8.index(after: $0) != dot }) ?? (dot != utf8.startIndex) else { return "" }
        return String(path[utf8.index(after: dot)...]).lowercased()
    }
}
