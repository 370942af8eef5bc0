import FoundationEssentials
import ReelSystem
import Dispatch
import Glibc
import ReelCore

/// Imports files, folders (recursively), M3U/M3U8/PLS playlists and URLs into the library:
/// files and folders through a `CollectionScan` (incremental: what is unchanged is not read
/// again), URLs as they are. Runs on the calling thread with its own connection; reports
/// progress through a callback.
public final class Importer: Sendable {
    static let playlistExtensions: Set<String> = ["m3u", "m3u8", "pls"]
    /// How deep playlists may include playlists, and how many entries all the
    /// playlists of one import may list: a hostile playlist cannot exhaust memory.
    public static let maxPlaylistDepth = 8
    public static let maxPlaylistEntries = 100_000
    let libraryPath: String
    let scanner: ScannerPool.Settings?

    /// `scanner`: the scanner processes to read files with (nil: `reel-scan` beside this program, one a core).
    public init(libraryPath: String, scanner: ScannerPool.Settings? = nil) {
        self.libraryPath = libraryPath
        self.scanner = scanner
    }

    /// Blocks until done; call it off the event loop. `progress(done, total)` is called on
    /// this thread, at most 10 times a second. With `rescan`, every file is read again,
    /// changed or not. The import is noted in the library while it runs: one cut short is
    /// run again at the next start (`Library.takeUnfinishedScans`).
    public func run(_ inputs: [String], rescan: Bool = false, progress: (Int, Int) -> Void) -> ImportSummary {
        var summary = ImportSummary()
        var expansion = Expansion()
        for input in inputs { Importer.expand(input, into: &expansion, depth: 0) }
        let library: Library
        // (The daemon checked the library when it opened it; a check per import would read all of it again.)
        do { library = try Library(path: libraryPath, check: false) } catch {
            summary.problems = expansion.problems + [(libraryPath, "\(error)")]
            return summary
        }
        var seen = Set<String>()
        let roots = (expansion.folders + expansion.items.filter { $0.hasPrefix("/") })
            .filter { seen.insert($0).inserted }.map { CollectionScan.Root($0, top: true) }
        let urls = expansion.items.filter { !$0.hasPrefix("/") && seen.insert($0).inserted }
        let job = try? library.beginScanJob(inputs, rescan: rescan)
        if !roots.isEmpty {
            do {
                let pool = try ScannerPool(scanner ?? ScannerPool.Settings(executable: ScannerPool.defaultExecutable() ?? "reel-scan"))
                summary = CollectionScan(library: library, pool: pool).run(roots, rescan: rescan, progress: progress)
            } catch {
                summary.problems = roots.map { ($0.path, error.description) }
            }
        }
        // Batches keep each transaction short, so playback's own writes never wait long.
        let items = urls.map { ProbedItem(title: nil, remoteURL: $0) }
        for start in stride(from: 0, to: items.count, by: 500) {
            let batch = Array(items[start..<min(start + 500, items.count)])
            do {
                let added = try library.addAll(batch)
                summary.added += added
                summary.known += batch.count - added
            } catch {
                summary.problems += batch.map { ($0.remoteURL ?? "?", "\(error)") }
            }
        }
        summary.problems = expansion.problems + summary.problems
        if let job { try? library.endScanJob(job) }
        return summary
    }

    /// Scans paths the watch saw change (files or folders, there or gone) as they are now:
    /// what is gone leaves the library, what is new or changed is read. Not noted as a job:
    /// the scan of the music folder at the next start catches up on one cut short.
    public func runChanged(_ paths: [String], progress: (Int, Int) -> Void) -> ImportSummary {
        let library: Library
        do { library = try Library(path: libraryPath, check: false) } catch { return ImportSummary(problems: [(libraryPath, "\(error)")]) }
        do {
            let pool = try ScannerPool(scanner ?? ScannerPool.Settings(executable: ScannerPool.defaultExecutable() ?? "reel-scan"))
            return CollectionScan(library: library, pool: pool).run(paths.map { CollectionScan.Root($0, top: false) },
                                                                    rescan: false, progress: progress)
        } catch {
            return ImportSummary(problems: paths.map { ($0, error.description) })
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
    /// and http(s) URLs, and folders; and what went wrong on the way (each problem once).
    struct Expansion {
        var items: [String] = []
        var folders: [String] = []
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
            var folder = Substring(path)
            while folder.count > 1, folder.hasSuffix("/") { folder = folder.dropLast() }
            guard depth > 0 else {
                // Named by the user: scanned as a folder, incrementally.
                x.folders.append(String(folder))
                return
            }
            // Listed by a playlist: its media files, in name order, in the playlist's place.
            guard let walked = try? FileManager.default.subpathsOfDirectory(atPath: path) else {
                x.problem(input, "cannot read the folder")
                return
            }
            x.items += walked.filter { MediaExtension.all.contains(Paths.fileExtension($0)) }.sorted().map { folder + "/" + $0 }
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
