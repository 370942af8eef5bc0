import FoundationEssentials
import ReelSystem
import Dispatch
import Glibc
import ReelCore

/// Imports files, folders (recursively), M3U/M3U8/PLS playlists and URLs
/// into the library. Runs on worker threads with its own connection; reports
/// progress through a callback.
public final class Importer: Sendable {
    static let playlistExtensions: Set<String> = ["m3u", "m3u8", "pls"]
    /// How deep playlists may include playlists, and how many entries all the
    /// playlists of one import may list: a hostile playlist cannot exhaust memory.
    public static let maxPlaylistDepth = 8
    public static let maxPlaylistEntries = 100_000
    let libraryPath: String
    let workers: Int

    public init(libraryPath: String, workers: Int = 4) {
        self.libraryPath = libraryPath
        self.workers = workers
    }

    /// Blocks until done; call it off the event loop. `progress(done, total)`
    /// is called from worker threads.
    public func run(_ inputs: [String], progress: @Sendable (Int, Int) -> Void) -> ImportSummary {
        var summary = ImportSummary()
        var expansion = Expansion()
        for input in inputs { Importer.expand(input, into: &expansion, depth: 0) }
        var files = expansion.items.filter { $0.hasPrefix("/") }
        let urls = expansion.items.filter { !$0.hasPrefix("/") }
        summary.problems = expansion.problems
        let library: Library
        do { library = try Library(path: libraryPath) } catch {
            summary.problems.append((libraryPath, "\(error)"))
            return summary
        }
        // The same file named twice (a folder and a playlist in it) is probed once.
        var seen = Set<String>()
        files = files.filter { seen.insert(URL(fileURLWithPath: $0).standardized.path).inserted }
        let unique = urls.filter { seen.insert($0).inserted }
        let total = files.count + unique.count
        let paths = files
        let results = Results(count: paths.count)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for i in stride(from: worker, to: paths.count, by: workers) {
                let done = results.store(Result { try Probe.file(paths[i]) }, at: i)
                progress(done, total)
            }
        }
        var items: [ProbedItem] = []
        for (path, result) in zip(paths, results.slots) {
            switch result {
            case .success(let item)?: items.append(item)
            case .failure(let error)?: summary.problems.append((path, "\(error)"))
            case nil: summary.problems.append((path, "not probed"))
            }
        }
        items += unique.map { ProbedItem(title: nil, remoteURL: $0) }
        // Batches keep each transaction short, so playback's own writes never wait long.
        for start in stride(from: 0, to: items.count, by: 500) {
            let batch = Array(items[start..<min(start + 500, items.count)])
            do {
                let added = try library.addAll(batch)
                summary.added += added
                summary.known += batch.count - added
            } catch {
                summary.problems += batch.map { ($0.localPath ?? $0.remoteURL ?? "?", "\(error)") }
            }
        }
        progress(total, total)
        return summary
    }

    /// Probe results filled in by the workers, each into its own slot.
    private final class Results: @unchecked Sendable {
        // @unchecked: the slots and the count are written under `lock`, read after every worker is done.
        private let lock = Lock()
        private(set) var slots: [Result<ProbedItem, Error>?]
        private var done = 0

        init(count: Int) { slots = Array(repeating: nil, count: count) }

        /// Stores one result; returns how many are in.
        func store(_ result: Result<ProbedItem, Error>, at i: Int) -> Int {
            lock.lock()
            defer { lock.unlock() }
            slots[i] = result
            done += 1
            return done
        }
    }

    /// The entries of a playlist file, in order, as absolute paths and http(s)
    /// URLs, with playlists inside expanded (each once), and what was skipped.
    public static func playlistEntries(_ path: String) -> (entries: [String], problems: [(String, String)]) {
        var expansion = Expansion()
        expand(path, into: &expansion, depth: 0)
        return (expansion.items, expansion.problems)
    }

    public static func isPlaylist(_ path: String) -> Bool {
        playlistExtensions.contains(Paths.fileExtension(path))
    }

    /// What the inputs expand to, in order: absolute paths of regular files
    /// and http(s) URLs; and what went wrong on the way (each problem once).
    struct Expansion {
        var items: [String] = []
        var problems: [(String, String)] = []
        private var reported = Set<String>()
        /// Playlist files already expanded in this import, by device and inode.
        var playlistsSeen = Set<[UInt64]>()
        var playlistEntries = 0

        mutating func problem(_ input: String, _ why: String) {
            guard reported.insert(input + "\u{0}" + why).inserted else { return }
            problems.append((input, why))
        }
    }

    private static func expand(_ input: String, into x: inout Expansion, depth: Int) {
        if URLParts.isRemote(input) {
            if let problem = URLParts.remoteProblem(input) { x.problem(input, problem) } else { x.items.append(input) }
            return
        }
        let path = input.hasPrefix("file://") ? (URL(string: input)?.path ?? input) : input
        guard path.hasPrefix("/") else { x.problem(input, "not an absolute path or an http(s) URL"); return }
        guard path.utf8.count < PATH_MAX else { x.problem(input, "the path is longer than the system allows (\(PATH_MAX) bytes)"); return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            x.problem(input, errno == ENAMETOOLONG ? "a name in the path is too long" : "no such file")
            return
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            guard let walked = try? FileManager.default.subpathsOfDirectory(atPath: path) else {
                x.problem(input, "cannot read the folder")
                return
            }
            var found: [String] = []
            for relative in walked where MediaExtension.all.contains(Paths.fileExtension(relative)) {
                found.append(path + "/" + relative)
            }
            x.items += found.sorted()
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { x.problem(input, "not a regular file"); return }
        let ext = Paths.fileExtension(path)
        if Importer.playlistExtensions.contains(ext) {
            expandPlaylist(path, input, id: [UInt64(info.st_dev), UInt64(info.st_ino)], pls: ext == "pls", into: &x, depth: depth)
            return
        }
        guard access(path, R_OK) == 0 else {
            x.problem(input, "not readable")
            return
        }
        x.items.append(path)
    }

    private static func expandPlaylist(_ path: String, _ input: String, id: [UInt64], pls: Bool, into x: inout Expansion, depth: Int) {
        guard x.playlistsSeen.insert(id).inserted else {
            x.problem(input, depth > 0 ? "playlist includes itself (or one that includes it); expanded once" : "listed twice")
            return
        }
        guard depth < Importer.maxPlaylistDepth else {
            x.problem(input, "playlists nest more than \(Importer.maxPlaylistDepth) deep")
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            x.problem(input, "cannot read the playlist")
            return
        }
        let base = Paths.directory(of: path)
        for entry in PlaylistFile.entries(String(decoding: data, as: UTF8.self), pls: pls) {
            guard x.playlistEntries < Importer.maxPlaylistEntries else {
                x.problem(input, "playlists list more than \(Importer.maxPlaylistEntries) entries; the rest were skipped")
                return
            }
            x.playlistEntries += 1
            let resolved = entry.hasPrefix("/") || entry.contains("://") ? entry : base + "/" + entry
            expand(resolved, into: &x, depth: depth + 1)
        }
    }
}

/// The entries of M3U/M3U8 and PLS playlists.
public enum PlaylistFile {
    public static func entries(_ text: String, pls: Bool) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { raw in
            let line = raw.trimmed()
            if pls {
                guard line.lowercased().hasPrefix("file"), let eq = line.firstIndex(of: "=") else { return nil }
                return String(line[line.index(after: eq)...]).trimmed()
            }
            return line.isEmpty || line.hasPrefix("#") ? nil : line
        }
    }
}
