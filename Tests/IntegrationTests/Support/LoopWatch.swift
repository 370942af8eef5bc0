import Foundation
import ReelDBus
import ReelMPRIS

/// Reads MPRIS Position over a connection of its own, again and again on a
/// thread of its own, and keeps the slowest answer: how long the daemon's
/// loop was held while something else went on.
final class LoopWatch: @unchecked Sendable {   // its fields are read and written under `lock`
    private let lock = NSLock()
    private var running = true
    private var slowest = 0.0
    private var calls = 0
    private var failure: String?
    private let done = DispatchSemaphore(value: 0)

    init(address: String) {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            guard let connection = try? Connection(address: address) else { return note(failure: "cannot connect") }
            while lock.withLock({ running }) {
                let start = Date()
                do {
                    _ = try connection.getProperty(MPRIS.busName, MPRIS.objectPath, MPRIS.player, "Position")
                } catch {
                    return note(failure: "\(error)")
                }
                let took = Date().timeIntervalSince(start) * 1000
                lock.withLock {
                    slowest = max(slowest, took)
                    calls += 1
                }
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    private func note(failure: String) { lock.withLock { self.failure = failure } }

    /// Stops watching: the slowest answer in ms, how many calls were made, and a failure if one came.
    func stop() -> (slowestMs: Double, calls: Int, failure: String?) {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { (slowest, calls, failure) }
    }
}

extension DaemonTestCase {
    /// A field of reeld's /proc status (VmRSS, VmHWM), in KiB.
    func daemonMemory(_ field: String) -> Int {
        daemon.map { Self.memory(field, of: $0.process.processIdentifier) } ?? 0
    }

    static func memory(_ field: String, of pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
