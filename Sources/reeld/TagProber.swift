import Foundation
import ReelCore
import ReelLibrary

/// Finds the tags, length and cover of queued entries that nothing is known
/// about yet, with ffprobe on two worker threads, and posts them to the loop.
/// Used from the loop thread only.
final class TagProber {
    private let results: Mailbox<LoopTask>
    private let workers = [DispatchQueue(label: "reel.probe.1", qos: .utility),
                           DispatchQueue(label: "reel.probe.2", qos: .utility)]
    private var turn = 0

    init(results: Mailbox<LoopTask>) {
        self.results = results
    }

    /// Probes the entry unless its length is known (then it was probed or played before).
    func probeIfUnknown(_ entry: QueueEntry) {
        guard entry.metadata.length == nil else { return }
        let (uri, id, results) = (entry.uri, entry.id, results)
        turn = (turn + 1) % workers.count
        workers[turn].async {
            let probed: ProbedItem?
            if let url = URL(string: uri), url.isFileURL {
                probed = try? Probe.file(url.path)
            } else {
                probed = try? Probe.remote(uri)
            }
            // A file that cannot be probed says why when it is played.
            if let probed { results.post(.tags(id, probed.metadata)) }
        }
    }
}
