import Foundation
import ReelCore
import ReelHarness
import ReelMPV
import XCTest

/// The backend over a real libmpv (no sound): what it reads of a file it opened, asked for
/// without waiting, still reaches the engine before anything else of that file.
final class OpeningTests: BackendTestCase {
    private func token(of event: BackendEvent) -> LoadToken? {
        switch event {
        case .started(let token), .opensLocally(let token), .loaded(let token, _, _, _), .restarted(let token, _),
             .position(let token, _), .buffering(let token, _), .endOfFile(let token), .failed(let token, _),
             .streamTitle(let token, _, _): token
        case .idle, .windowClosed, .outputProblem: nil
        }
    }

    func testAFilesTagsAndLengthComeBeforeAnythingElseOfIt() throws {
        let first = dir.appendingPathComponent("one.ogg"), second = dir.appendingPathComponent("two.ogg")
        try Tones.make(first, frequency: 440, seconds: 1, tags: ["title": "One", "artist": "Band"])
        try Tones.make(second, frequency: 660, seconds: 3, tags: ["title": "Two"])
        let backend = try MPVBackend(options: .init(audioOutput: "null"))
        let a = LoadToken(entry: EntryID(1), serial: 1), b = LoadToken(entry: EntryID(2), serial: 2)
        var seen: [BackendEvent] = []
        XCTAssertTrue(backend.perform(.load(a, uri: first.absoluteString, start: 0, end: nil, paused: false, rate: 1)).isEmpty)
        XCTAssertTrue(backend.perform(.queueNext(b, uri: second.absoluteString, start: 0, end: nil, rate: 1)).isEmpty)
        XCTAssertNotNil(drain(backend, collecting: &seen) { $0 == .started(b) }, "the second file never started: \(seen)")
        _ = drain(backend, timeout: 0.5, collecting: &seen) { _ in false }

        for (token, title, seconds) in [(a, "One", 1.0), (b, "Two", 3.0)] {
            let own = seen.filter { self.token(of: $0) == token }
            let loaded = try XCTUnwrap(own.firstIndex { if case .loaded = $0 { true } else { false } }, "\(token) never loaded: \(seen)")
            guard case .loaded(_, let metadata, let seekable, _) = own[loaded] else { return }
            XCTAssertEqual(metadata.title, title)
            XCTAssertEqual(Double(metadata.length ?? 0), seconds * 1_000_000, accuracy: 50_000)
            XCTAssertTrue(seekable)
            XCTAssertEqual(own.first, .started(token), "\(own)")
            XCTAssertEqual(loaded, 1, "something of \(title) came before its tags: \(own)")
        }
    }
}
