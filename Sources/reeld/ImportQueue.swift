import ReelCore
import ReelLibrary
import ReelSystem

/// The imports the buses ask for and the scans the watch of the music folder needs, run one at a
/// time, in order, each on a thread of its own: two scans of one tree at once would each read
/// what the other is writing. Used from the run loop's thread.
final class ImportQueue {
    enum Work {
        /// What a client named, read incrementally (everything again with `rescan`).
        case inputs([String], rescan: Bool)
        /// Paths the watch saw change.
        case changed([String])
    }

    private struct Job {
        let id: Int
        var work: Work
        let progress: ((Int, Int) -> Void)?
        let done: ((ImportSummary) -> Void)?
    }

    private let tasks: Mailbox<LoopResult>
    private var waiting: [Job] = []
    private var running: Job?
    private var nextID = 0

    init(tasks: Mailbox<LoopResult>) { self.tasks = tasks }

    var isBusy: Bool { running != nil || !waiting.isEmpty }

    /// Queues work; `done` is called on the loop with its summary.
    func add(_ work: Work, libraryPath: String, progress: ((Int, Int) -> Void)? = nil, done: ((ImportSummary) -> Void)? = nil) {
        // Changes seen while another scan of changes waits join it.
        if case .changed(let paths) = work, let last = waiting.indices.last, case .changed(let held) = waiting[last].work {
            waiting[last].work = .changed(held + paths.filter { !held.contains($0) })
            return
        }
        // A scan of the whole folder already waiting will see all a second would.
        if done == nil, case .inputs(let inputs, let rescan) = work,
           waiting.contains(where: { if case .inputs(inputs, rescan) = $0.work { true } else { false } }) {
            return
        }
        nextID += 1
        waiting.append(Job(id: nextID, work: work, progress: progress, done: done))
        startNext(libraryPath: libraryPath)
    }

    func progress(job: Int, done: Int, total: Int) {
        guard running?.id == job else { return }
        running?.progress?(done, total)
    }

    /// A job ended: tells whoever asked, and starts the next. True when nobody asked for it
    /// (a scan the music folder's watch needed), so that the daemon's log tells what it found.
    func finished(job: Int, _ summary: ImportSummary, libraryPath: String?) -> Bool {
        guard let ended = running, ended.id == job else { return false }
        running = nil
        ended.done?(summary)
        if let libraryPath { startNext(libraryPath: libraryPath) }
        return ended.done == nil
    }

    private func startNext(libraryPath: String) {
        guard running == nil, !waiting.isEmpty else { return }
        let job = waiting.removeFirst()
        running = job
        let mailbox = tasks
        let id = job.id
        let work = job.work
        Threads.start(name: "reel-import") {
            let importer = Importer(libraryPath: libraryPath)
            let report: (Int, Int) -> Void = { count, total in mailbox.post(.importProgress(job: id, done: count, total: total)) }
            let summary = switch work {
            case .inputs(let inputs, let rescan): importer.run(inputs, rescan: rescan, progress: report)
            case .changed(let paths): importer.runChanged(paths, progress: report)
            }
            mailbox.post(.importDone(job: id, summary))
        }
    }
}
