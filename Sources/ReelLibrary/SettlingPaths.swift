/// The paths a watch saw change, held until their writes settle: a file is scanned once it is
/// closed and quiet, not half-copied; a folder once nothing below it is still being written.
/// Pure: the watch tells it what happened and when (µs), and asks what is due.
struct SettlingPaths {
    /// How long a path must be quiet before it is scanned.
    static let quiet: Int64 = 400_000
    /// A file left open for writing is scanned anyway after this long without a write
    /// (a program that holds its file open, or a close the watch missed).
    static let openQuiet: Int64 = 10_000_000

    /// Paths that settle this close together are scanned together: a rename's two ends, seen a
    /// few µs apart, must be one scan for the file to be known as moved rather than gone and new.
    static let together: Int64 = 100_000

    private var pending: [String: (last: Int64, writing: Bool)] = [:]

    var isEmpty: Bool { pending.isEmpty }

    /// Something happened to `path`: `writing` true when it was created or written, false when
    /// nothing is being written under the name any more (closed, renamed into place, moved away,
    /// deleted), nil for anything else (a change of mode, a folder).
    mutating func touched(_ path: String, writing: Bool?, at now: Int64) {
        let wasWriting = pending[path]?.writing ?? false
        pending[path] = (now, writing ?? wasWriting)
        // A folder waiting to be scanned waits for what is being written below it.
        var parent = Self.parent(path)
        while let folder = parent {
            if let held = pending[folder] { pending[folder] = (max(held.last, now), held.writing) }
            parent = Self.parent(folder)
        }
    }

    /// The paths ready now, removed from what is held: no folder with one of its own below it.
    mutating func due(at now: Int64) -> [String] {
        var ready = Set<String>()
        var blocked = Set<String>()
        for (path, state) in pending {
            let settled = now + Self.together - state.last >= (state.writing ? Self.openQuiet : Self.quiet)
            if settled { ready.insert(path); continue }
            var parent = Self.parent(path)
            while let folder = parent {
                guard blocked.insert(folder).inserted else { break }
                parent = Self.parent(folder)
            }
        }
        ready.subtract(blocked)
        // A path below another held is scanned with it, when the folder is.
        let taken = ready.filter { path in
            var parent = Self.parent(path)
            while let folder = parent {
                if pending[folder] != nil { return false }
                parent = Self.parent(folder)
            }
            return true
        }
        for path in ready where taken.contains(path) || Self.isBelow(path, any: taken) { pending[path] = nil }
        return taken.sorted()
    }

    private static func isBelow(_ path: String, any folders: Set<String>) -> Bool {
        var parent = Self.parent(path)
        while let folder = parent {
            if folders.contains(folder) { return true }
            parent = Self.parent(folder)
        }
        return false
    }

    /// When the next path may be due (µs), nil when nothing is held.
    var nextCheck: Int64? {
        pending.values.map { $0.last + ($0.writing ? Self.openQuiet : Self.quiet) }.min()
    }

    /// The folder holding `path`, nil at the top.
    private static func parent(_ path: String) -> String? {
        let folder = KnownFiles.parent(path)
        return folder == path || folder == "/" ? nil : folder
    }
}
