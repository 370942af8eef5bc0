import Foundation
import Glibc
import ReelCore
import ReelHarness
import ReelMPV
import XCTest

/// A test of the backend over a real libmpv: a fresh directory of its own for
/// media, removed afterwards, and a way to wait for the backend's events.
class BackendTestCase: XCTestCase {
    var folder: TemporaryFolder!
    var dir: URL { folder.url }

    override func setUpWithError() throws { folder = try TemporaryFolder("reel-mpv") }
    override func tearDown() { folder = nil }

    /// Waits on the backend's wakeup descriptor, draining events, until one matches.
    func drain(_ backend: MPVBackend, timeout: Double = 10, collecting seen: inout [BackendEvent],
               until done: (BackendEvent) -> Bool) -> BackendEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var fd = pollfd(fd: backend.wakeupFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&fd, 1, 50)
            for event in backend.drainEvents() {
                seen.append(event)
                if done(event) { return event }
            }
        }
        return nil
    }
}
