import Dispatch
import FoundationEssentials
import ReelSystem
import ReelCore
import ReelLibrary

/// Finds the silences of queued episodes whose feed trims them, one file at a time on a worker
/// thread (a scan decodes the whole file), and posts them to the loop. Only a file on disk is
/// scanned: a local one, a download, or the cache's complete copy. Used from the loop thread only.
final class SilenceScanner {
    private let results: Mailbox<LoopResult>
    private let worker = DispatchQueue(label: "reel.silences", qos: .utility)
    /// URIs scanned, or being scanned, in this run: each once (an entry learns what was found
    /// only when the scan ends).
    private var asked: Set<String> = []

    init(results: Mailbox<LoopResult>) {
        self.results = results
    }

    /// Remote episodes downloaded to be scanned, in this run: each once.
    private var fetched: Set<String> = []

    /// Scans the entry's file at `path` unless its silences are known (`again`: a new download,
    /// whose content may differ from what was scanned: a feed's ads change from one download to
    /// the next) or it does not trim.
    func scanIfWanted(_ entry: QueueEntry, path: String, again: Bool = false) {
        if again { asked.remove(entry.uri) }
        guard entry.episode.trimSilence, again || entry.metadata.silences == nil,
              asked.insert(entry.uri).inserted else { return }
        let (uri, length, results) = (entry.uri, entry.metadata.length, results)
        worker.async {
            do {
                results.post(.silences(uri, try SilenceScan.file(path, length: length), problem: nil))
            } catch {
                results.post(.silences(uri, Silences(), problem: "\(error)"))
            }
        }
    }

    /// Whether a remote episode should be downloaded to be scanned: the first time it is asked.
    func fetchOnce(_ uri: String) -> Bool { fetched.insert(uri).inserted }
}
