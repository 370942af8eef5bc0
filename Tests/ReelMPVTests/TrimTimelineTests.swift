import Foundation
import ReelCore
import ReelHarness
@testable import ReelMPV
import XCTest

/// A trimmed file over a real libmpv (no sound): mpv plays its kept parts, and every time the
/// backend reports or takes is the file's own.
final class TrimTimelineTests: BackendTestCase {
    /// Cuts of 1.7 s at 1.15 s and 1.2 s at 5.45 s of an 8 s file.
    let trim = Trim(silences: Silences([Silence(start: 1_000_000, end: 3_000_000)!, Silence(start: 5_300_000, end: 6_800_000)!]))!

    func testLengthLandingsAndSeeksAreInTheFilesTime() throws {
        // A name with what EDL syntax would read as separators.
        let file = dir.appendingPathComponent("talk, part;1 %20.ogg")
        try Tones.make(file, frequency: 440, seconds: 8)
        let backend = try MPVBackend(options: .init(audioOutput: "null"))
        let token = LoadToken(entry: EntryID(1), serial: 1)
        var seen: [BackendEvent] = []
        XCTAssertTrue(backend.perform(.setTrim(token, trim)).isEmpty)
        XCTAssertTrue(backend.perform(.load(token, uri: file.absoluteString, start: 4_000_000, end: nil, paused: true, rate: 1)).isEmpty)
        // Loaded, then started paused at 4 s (the drain drops what follows its match in a batch).
        let started = drain(backend, collecting: &seen) { if case .restarted = $0 { true } else { false } }
        guard case .restarted(_, let position)? = started else { return XCTFail("never started: \(seen)") }
        XCTAssertEqual(Double(position), 4_000_000, accuracy: 1_000, "the start, in the file's time")
        let loaded = seen.first { if case .loaded = $0 { true } else { false } }
        guard case .loaded(_, let tags, let seekable, _)? = loaded else { return XCTFail("never loaded: \(seen)") }
        XCTAssertTrue(seekable)
        XCTAssertEqual(Double(try XCTUnwrap(tags.length)), 8_000_000, accuracy: 30_000, "the file's length, not the timeline's")
        XCTAssertEqual(tags.chapters, [], "the timeline's own chapters (one a part) are not the file's")

        _ = backend.perform(.setPaused(false))
        _ = backend.perform(.seek(to: 7_000_000))
        seen = []
        let landed = drain(backend, collecting: &seen) { if case .restarted = $0 { true } else { false } }
        guard case .restarted(_, let target)? = landed else { return XCTFail("the seek never landed: \(seen)") }
        XCTAssertEqual(Double(target), 7_000_000, accuracy: 30_000)
        // Samples run on from the target in the file's time, past the last cut.
        seen = []
        let later = drain(backend, collecting: &seen) { if case .position(_, let p) = $0 { p > 7_300_000 } else { false } }
        guard case .position(_, let sample)? = later else { return XCTFail("no samples: \(seen)") }
        XCTAssertLessThan(sample, 8_000_000)
    }

    func testTheTimelineNamesEachPartWithItsLengthInTheContainersTimestamps() {
        let edl = MPVBackend.timeline(of: "file:///a,b;c.ogg", keeping: trim)
        XCTAssertEqual(edl, "edl://!no_chapters;%17%file:///a,b;c.ogg,0.000000,1.150000;"
                       + "%17%file:///a,b;c.ogg,2.850000,2.600000;%17%file:///a,b;c.ogg,6.650000")
        // An MP3 whose timestamps start 25 ms in (its encoder delay): mpv's EDL counts in them.
        let mp3 = Trim(silences: Silences(trim.cuts.map { Silence(start: $0.start - 150_000, end: $0.end + 150_000)! }, origin: 25_057))!
        XCTAssertEqual(MPVBackend.timeline(of: "t.mp3", keeping: mp3), "edl://!no_chapters;%5%t.mp3,0.025057,1.150000;"
                       + "%5%t.mp3,2.875057,2.600000;%5%t.mp3,6.675057")
    }
}
