import Dispatch
import FoundationEssentials
import Glibc
import ReelSystem
import ReelCore
import ReelLibrary

/// Finds the tags, length and cover of queued entries that nothing is known
/// about yet, with ffprobe on two worker threads, and posts them to the loop.
/// Each URI is probed once, however many entries name it. Used from the loop
/// thread only.
final class TagProber {
    private let results: Mailbox<LoopResult>
    private let workers = [DispatchQueue(label: "reel.probe.1", qos: .utility),
                           DispatchQueue(label: "reel.probe.2", qos: .utility)]
    private var turn = 0
    /// Entries waiting for the probe of their URI.
    private var waiting: [String: [EntryID]] = [:]

    init(results: Mailbox<LoopResult>) {
        self.results = results
    }

    /// Probes the entry's URI unless its length is known (then it was probed or played before).
    /// Whether remote entries are probed (over the network, with ffprobe).
    var probesRemote = true

    func probeIfUnknown(_ entry: QueueEntry) {
        // Remote entries read through the cache learn their tags when they load:
        // a probe of its own would fetch their bytes a second time.
        guard entry.metadata.length == nil, !(probesRemote == false && entry.isRemote) else { return }
        if waiting[entry.uri] != nil { waiting[entry.uri]!.append(entry.id); return }
        waiting[entry.uri] = [entry.id]
        let (uri, results) = (entry.uri, results)
        turn = (turn + 1) % workers.count
        workers[turn].async {
            var found: TrackMetadata?
            if let url = URL(string: uri), url.isFileURL {
                found = (try? Probe.file(url.path))?.metadata
            } else {
                found = (try? Probe.remote(uri))?.metadata
            }
            // A file that cannot be probed says why when it is played.
            results.post(.tags(uri, found))
        }
    }

    /// The entries a finished probe of `uri` was for.
    func finished(_ uri: String) -> [EntryID] {
        waiting.removeValue(forKey: uri) ?? []
    }
}
