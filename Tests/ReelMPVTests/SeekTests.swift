import Foundation
import ReelCore
import ReelHarness
import ReelMPV
import XCTest

/// The backend over a real libmpv (no sound): what it reports around seeks.
final class SeekTests: BackendTestCase {
    private func restart(_ event: BackendEvent) -> MediaTime? {
        if case .restarted(_, let position) = event { position } else { nil }
    }

    /// mpv reports each seek's landing, also one that a later seek replaces
    /// once mpv runs it. Reported, it told the engine playback went there,
    /// and Position stayed at the first target while the track played from
    /// the second (seen through snapserver's control script: a seek, then
    /// Previous 6 ms later).
    func testALandingThatALaterSeekReplacesIsNotReported() throws {
        let file = dir.appendingPathComponent("tone.ogg")
        try Tones.make(file, frequency: 440, seconds: 8)
        let backend = try MPVBackend(options: .init(audioOutput: "null"))
        let token = LoadToken(entry: EntryID(1), serial: 1)
        var seen: [BackendEvent] = []
        XCTAssertTrue(backend.perform(.load(token, uri: file.absoluteString, start: 0, end: nil, paused: false, rate: 1)).isEmpty)
        XCTAssertNotNil(drain(backend, collecting: &seen) { self.restart($0) != nil }, "the file never started: \(seen)")

        _ = backend.perform(.seek(to: 6_000_000))
        // Not drained: mpv lands this seek (a few ms) while its reply and landing wait unread,
        // as they do while reeld is busy with the command that sends the next seek.
        usleep(300_000)
        _ = backend.perform(.seek(to: 1_000_000))
        seen = []
        let landed = drain(backend, collecting: &seen) { self.restart($0) != nil }
        let position = try XCTUnwrap(landed.flatMap(restart), "the second seek never landed: \(seen)")
        XCTAssertEqual(Double(position), 1_000_000, accuracy: 50_000, "a landing reported where playback did not go")
        // Nothing more lands afterwards: the earlier seek's landing was not merely late.
        _ = drain(backend, timeout: 0.3, collecting: &seen) { _ in false }
        XCTAssertEqual(seen.compactMap(restart).count, 1, "\(seen)")
    }
}
