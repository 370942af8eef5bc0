import Foundation
import ReelHarness
import ReelMPRIS
import XCTest

/// A daemon test with a real HTTP origin on 127.0.0.1 serving `served`.
class OriginTestCase: DaemonTestCase {
    var origin: Origin!
    var served: URL { home.appendingPathComponent("served") }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        origin = try Origin(serving: served, home: home)
    }

    override func tearDown() {
        origin?.stop()
        super.tearDown()
    }

    /// An uncompressed tone of `seconds` (192 kB a second) in the served directory.
    @discardableResult
    func serve(_ name: String, seconds: Int, frequency: Int = 440) throws -> Data {
        let file = served.appendingPathComponent(name)
        try Tones.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds):sample_rate=48000", "-ac", "2",
                          file.path])
        return try Data(contentsOf: file)
    }

    func bytesServed(_ name: String) -> Int { origin.served["/\(name)"] ?? 0 }

    /// Starts a background download of `name`, served at `rate`, and waits until `bytes` of it were sent.
    func downloadThrottled(_ name: String, rate: Int, until bytes: Int) throws {
        var control = Origin.Control()
        control.bytesPerSecond = rate
        try origin.set(control)
        try startDaemon()
        XCTAssertEqual(try reel("download", "--background", origin.url(name)).0, 0)
        let deadline = Date().addingTimeInterval(10)
        while bytesServed(name) < bytes, Date() < deadline { listen(for: 0.05) }
    }

    func lastError() throws -> String { try get("LastError", MPRIS.reel).string ?? "" }

    func cacheFill() throws -> (Int64, Int64) {
        guard case .structure(let fields) = try get("CacheFill", MPRIS.reel), fields.count == 2 else { return (-1, -1) }
        return (fields[0].int64 ?? -1, fields[1].int64 ?? -1)
    }
}
