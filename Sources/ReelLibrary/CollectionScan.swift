import Glibc
import ReelCore
import ReelScan
import ReelSystem

/// One scan of folders and files, as MPD's `update` does it, only incremental to the folder:
/// walk what is on disk against what the library knows (CollectionWalk), read what is new or
/// changed through the scanner processes, and write as results come, in batches, so that a scan
/// cut short keeps what it wrote and the next one goes on from there.
public final class CollectionScan {
    public struct Root: Sendable, Equatable {
        public var path: String
        /// The music folder or a folder the user named (see `CollectionWalk.walk`), not a changed path.
        public var top: Bool
        public init(_ path: String, top: Bool) {
            self.path = path
            self.top = top
        }
    }

    /// How often progress is told at most (µs): ImportProgress goes out at most 10 times a second.
    public static let progressInterval: Int64 = 100_000
    /// A batch is written when it holds this many files or is this old (µs), whichever comes first.
    static let batchSize = 500
    static let batchAge: Int64 = 250_000

    private let library: Library
    private let pool: ScannerPool

    public init(library: Library, pool: ScannerPool) {
        self.library = library
        self.pool = pool
    }

    /// Scans; `progress(done, total)` is called on this thread as files are read, at most every
    /// `progressInterval`, and once at the end.
    public func run(_ roots: [Root], rescan: Bool, progress: (Int, Int) -> Void) -> ImportSummary {
        var summary = ImportSummary()
        let known: KnownFiles
        do { known = try library.knownFiles(under: roots.map(\.path)) } catch {
            summary.problems.append((roots.first?.path ?? "", "cannot read the library: \(error)"))
            return summary
        }
        var walk = CollectionWalk(known: known, rescan: rescan, started: wallClockNanoseconds())
        for root in roots { walk.walk(root.path, top: root.top) }
        let plan = walk.plan
        summary.known = plan.unchanged
        summary.standingProblems = plan.unchangedProblems
        summary.ignored = plan.ignored
        summary.problems = plan.problems

        // A file at a new path with the size and identity of one gone is that file, moved: its item moves with it.
        var goneByIdentity: [Key: [Int]] = [:]
        for (i, gone) in plan.gone.enumerated() {
            guard let size = gone.file.size, let identity = gone.file.identity else { continue }
            goneByIdentity[Key(size: size, identity: identity), default: []].append(i)
        }
        var movedAway = Set<Int>()
        var batch: [(file: ScannedFile, cover: String?)] = []
        var moves: [String: Int64] = [:]
        var batchStarted = monotonicNow()
        var lastProgress: Int64 = 0
        var done = 0
        var failure: String?
        let total = plan.toRead.count
        progress(0, total)

        func write() -> Bool {
            guard !batch.isEmpty else { return true }
            do {
                let made = try library.writeScanned(batch, moves: moves)
                summary.added += made
                summary.moved += moves.count
                summary.updated += batch.count(where: { known.files[$0.file.path] != nil && $0.file.isMedia })
                for (file, _) in batch { if case .unreadable(let reason) = file.outcome { summary.problems.append((file.path, reason)) } }
            } catch {
                failure = "cannot write the library: \(error)"
                return false
            }
            batch = []
            moves = [:]
            batchStarted = monotonicNow()
            return true
        }

        pool.scan(plan.toRead) { file in
            done += 1
            if case .media = file.outcome, known.files[file.path] == nil,
               let i = goneByIdentity[Key(size: file.size, identity: file.identity)]?.first(where: { !movedAway.contains($0) }) {
                movedAway.insert(i)
                moves[file.path] = plan.gone[i].file.id
            }
            batch.append((file, plan.covers[KnownFiles.parent(file.path)]))
            let now = monotonicNow()
            if batch.count >= Self.batchSize || now - batchStarted >= Self.batchAge {
                guard write() else { return false }
            }
            if now - lastProgress >= Self.progressInterval {
                lastProgress = now
                progress(done, total)
            }
            return true
        }
        if failure == nil, write() {
            var finished = plan
            finished.gone = plan.gone.enumerated().filter { !movedAway.contains($0.offset) }.map(\.element)
            do {
                let (removed, _) = try library.finishScan(finished)
                summary.removed = removed
            } catch {
                failure = "cannot write the library: \(error)"
            }
        }
        if let failure {
            // What was written stays; the rest is read again by the next scan.
            summary.problems.append((roots.first?.path ?? "", failure + "; \(total - done + batch.count) files were not written"))
        }
        progress(total, total)
        return summary
    }

    private struct Key: Hashable {
        var size: Int64
        var identity: UInt64
    }
}

extension ScannedFile {
    var isMedia: Bool { if case .media = outcome { true } else { false } }
}
