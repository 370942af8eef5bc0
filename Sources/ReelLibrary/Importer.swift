import Foundation

/// What an import did.
public struct ImportSummary: Equatable, Sendable {
    public var added = 0
    public var known = 0
    /// (path or URL, why it was skipped)
    public var problems: [(String, String)] = []

    public init() {}

    public static func == (a: ImportSummary, b: ImportSummary) -> Bool {
        a.added == b.added && a.known == b.known && a.problems.map(\.0) == b.problems.map(\.0)
            && a.problems.map(\.1) == b.problems.map(\.1)
    }
}

/// Imports files, folders (recursively), M3U/M3U8/PLS playlists and URLs
/// into the library. Runs on worker threads with its own connection; reports
/// progress through a callback.
public final class Importer: Sendable {
    public static let mediaExtensions: Set<String> = [
        "mp3", "flac", "ogg", "oga", "opus", "m4a", "m4b", "aac", "wav", "wma", "aiff", "aif", "ape", "wv", "mka",
        "mp4", "m4v", "mkv", "webm", "avi", "mov", "ogv", "mpg", "mpeg", "flv", "3gp",
    ]
    static let playlistExtensions: Set<String> = ["m3u", "m3u8", "pls"]
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
        var files: [String] = []
        var urls: [String] = []
        for input in inputs { expand(input, into: &files, urls: &urls, problems: &summary.problems, depth: 0) }
        let library: Library
        do { library = try Library(path: libraryPath) } catch {
            summary.problems.append((libraryPath, "\(error)"))
            return summary
        }
        // The same file named twice (a folder and a playlist in it) is probed once.
        var seen = Set<String>()
        files = files.filter { seen.insert(URL(fileURLWithPath: $0).standardized.path).inserted }
        urls = urls.filter { seen.insert($0).inserted }
        let total = files.count + urls.count
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
        items += urls.map { ProbedItem(title: nil, remoteURL: $0) }
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
        private let lock = NSLock()
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

    private func expand(_ input: String, into files: inout [String], urls: inout [String],
                        problems: inout [(String, String)], depth: Int) {
        if input.hasPrefix("http://") || input.hasPrefix("https://") { urls.append(input); return }
        let path = input.hasPrefix("file://") ? (URL(string: input)?.path ?? input) : input
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            problems.append((input, "no such file"))
            return
        }
        if isDirectory.boolValue {
            guard let walker = FileManager.default.enumerator(atPath: path) else {
                problems.append((input, "cannot read the folder"))
                return
            }
            var found: [String] = []
            while let relative = walker.nextObject() as? String {
                let full = path + "/" + relative
                if Importer.mediaExtensions.contains((relative as NSString).pathExtension.lowercased()) { found.append(full) }
            }
            files += found.sorted()
            return
        }
        let ext = (path as NSString).pathExtension.lowercased()
        if Importer.playlistExtensions.contains(ext) {
            guard depth < 4 else { problems.append((input, "playlists nest too deeply")); return }
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append((input, "cannot read the playlist"))
                return
            }
            let text = String(decoding: data, as: UTF8.self)
            let base = (path as NSString).deletingLastPathComponent
            for entry in PlaylistFile.entries(text, pls: ext == "pls") {
                let resolved = entry.hasPrefix("/") || entry.contains("://") ? entry : base + "/" + entry
                expand(resolved, into: &files, urls: &urls, problems: &problems, depth: depth + 1)
            }
            return
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            problems.append((input, "not readable"))
            return
        }
        files.append(path)
    }
}

/// The entries of M3U/M3U8 and PLS playlists.
public enum PlaylistFile {
    public static func entries(_ text: String, pls: Bool) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            if pls {
                guard line.lowercased().hasPrefix("file"), let eq = line.firstIndex(of: "=") else { return nil }
                return String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            }
            return line.isEmpty || line.hasPrefix("#") ? nil : line
        }
    }
}
