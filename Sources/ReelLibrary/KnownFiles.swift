/// What the library knows of the files and folders under a scan's roots: each file's size, time
/// and identity, the files that could not be read, and each folder's time when it was last listed
/// whole. A scan compares the disk with it and reads only what differs.
struct KnownFiles {
    struct File {
        var id: Int64
        var size: Int64?
        /// ns since 1970.
        var modified: Int64?
        var identity: UInt64?
    }
    struct Problem {
        var size: Int64?
        var modified: Int64?
    }
    struct Folder {
        /// 0: to be listed again whatever its time says.
        var modified: Int64
        var cover: String?
    }

    var files: [String: File] = [:]
    var problems: [String: Problem] = [:]
    var folders: [String: Folder] = [:]
    /// A folder's own files and problems, and its subfolders: the folders of the rows above
    /// and every folder between them and the root.
    private(set) var filesIn: [String: [String]] = [:]
    private(set) var problemsIn: [String: [String]] = [:]
    private(set) var subfolders: [String: Set<String>] = [:]

    /// Fills the by-folder maps from the rows.
    mutating func index() {
        filesIn = [:]
        problemsIn = [:]
        subfolders = [:]
        for path in files.keys { filesIn[Self.parent(path), default: []].append(path) }
        for path in problems.keys { problemsIn[Self.parent(path), default: []].append(path) }
        var seen = Set<String>()
        func link(_ folder: String) {
            var child = folder
            while seen.insert(child).inserted {
                let parent = Self.parent(child)
                guard parent != child else { return }
                subfolders[parent, default: []].insert(child)
                child = parent
            }
        }
        for folder in filesIn.keys { link(folder) }
        for folder in problemsIn.keys { link(folder) }
        for folder in folders.keys { link(folder) }
    }

    /// Everything known under `folder`, found by walking down the maps: files, problems, folders.
    func everything(under folder: String) -> (files: [String], problems: [String], folders: [String]) {
        var result: (files: [String], problems: [String], folders: [String]) = ([], [], [])
        var stack = [folder]
        while let next = stack.popLast() {
            result.folders.append(next)
            result.files += filesIn[next] ?? []
            result.problems += problemsIn[next] ?? []
            stack += subfolders[next] ?? []
        }
        return result
    }

    /// The folder holding `path` ("/" for a file at the top), by bytes: this runs for every file
    /// of a collection, where String's own path handling would walk Characters.
    static func parent(_ path: String) -> String {
        let utf8 = path.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        if slash == utf8.startIndex { return "/" }
        return String(path[..<slash])
    }
}
