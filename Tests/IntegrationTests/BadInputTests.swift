import Foundation
import ReelHarness
import ReelDBus
import ReelMPRIS
import XCTest

/// Every malformed call gets a clear error, and nothing changes.
final class BadInputTests: DaemonTestCase {
    struct Observable: Equatable {
        var status: String
        var tracks: [String]
        var current: String
        var rate: Double
        var loop: String
        var volume: Double
    }

    func observe() throws -> Observable {
        Observable(status: try status(), tracks: try tracks(), current: try trackID(),
                   rate: try XCTUnwrap(get("Rate").double), loop: try XCTUnwrap(get("LoopStatus").string),
                   volume: try XCTUnwrap(get("Volume").double))
    }

    func testMalformedCallsGetErrorsAndChangeNothing() throws {
        try startPlaying([media.tones[0], media.tones[1]])
        try player("Pause")
        let before = try observe()
        let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

        // Wrong signatures.
        assertError(invalidArgs) { try self.player("Seek", [.string("10")]) }
        assertError(invalidArgs) { try self.player("Seek", [.int32(10)]) }
        assertError(invalidArgs) { try self.player("SetPosition", [.int64(1)]) }
        assertError(invalidArgs) { try self.player("OpenUri", []) }
        assertError(invalidArgs) { try self.player("Play", [.boolean(true)]) }
        assertError(invalidArgs) { _ = try self.call(MPRIS.properties, "Get", [.string(MPRIS.player)]) }
        // Unknown names.
        assertError("org.freedesktop.DBus.Error.UnknownMethod") { try self.player("Rewind") }
        assertError("org.freedesktop.DBus.Error.UnknownInterface") { _ = try self.call("org.example.Nope", "Play") }
        assertError("org.freedesktop.DBus.Error.UnknownProperty") { _ = try self.get("Colour") }
        assertError("org.freedesktop.DBus.Error.UnknownInterface") { _ = try self.get("Rate", "org.example.Nope") }
        assertError("org.freedesktop.DBus.Error.UnknownObject") {
            _ = try self.client.callMethod(Self.name, "/org/mpris/Other", MPRIS.player, "Play")
        }
        // Wrong variant types, read-only properties, bad values.
        assertError(invalidArgs) { try self.set("Rate", .string("fast")) }
        assertError(invalidArgs) { try self.set("Shuffle", .int32(1)) }
        assertError(invalidArgs) { try self.set("LoopStatus", .boolean(true)) }
        assertError("org.freedesktop.DBus.Error.PropertyReadOnly") { try self.set("PlaybackStatus", .string("Playing")) }
        assertError("org.freedesktop.DBus.Error.PropertyReadOnly") { try self.set("Position", .int64(0)) }
        assertError("org.freedesktop.DBus.Error.PropertyReadOnly") { try self.set("Identity", .string("x"), MPRIS.root) }
        let nan = assertError(invalidArgs) { try self.set("Rate", .double(.nan)) }
        XCTAssertTrue(nan.contains("Rate"), nan)
        assertError(invalidArgs) { try self.set("Rate", .double(-1)) }
        assertError(invalidArgs) { try self.set("Rate", .double(100)) }
        assertError(invalidArgs) { try self.set("Volume", .double(.nan)) }
        let loop = assertError(invalidArgs) { try self.set("LoopStatus", .string("Forever")) }
        XCTAssertTrue(loop.contains("None, Track or Playlist"), loop)
        // Garbage URIs.
        assertError(MPRIS.errorInvalidURI) { try self.player("OpenUri", [.string("ftp://example.org/a.mp3")]) }
        assertError(MPRIS.errorInvalidURI) { try self.player("OpenUri", [.string("not a uri at all")]) }
        assertError(MPRIS.errorInvalidURI) { try self.player("OpenUri", [.string("http://")]) }
        assertError(MPRIS.errorNoSuchFile) { try self.player("OpenUri", [.string("file:///no/such/file.ogg")]) }
        assertError(MPRIS.errorNoSuchFile) { try self.player("OpenUri", [.string(self.media.dir.absoluteString)]) }

        XCTAssertEqual(try observe(), before)
        XCTAssertTrue(daemon!.process.isRunning)
    }

    func testCallsWithoutAnInterfaceStillWork() throws {
        try startDaemon([media.tones[0]])
        let message = try Message.methodCall(destination: Self.name, path: MPRIS.objectPath, interface: nil, member: "Play")
        _ = try client.call(message)
        try waitForStatus("Playing")
    }

    func testGetAllListsEveryPropertyOfEachInterface() throws {
        try startDaemon([media.tones[0]])
        let player = try client.getAllProperties(Self.name, MPRIS.objectPath, MPRIS.player)
        XCTAssertEqual(Set(player.keys), ["PlaybackStatus", "LoopStatus", "Rate", "Shuffle", "Metadata", "Volume",
                                          "Position", "MinimumRate", "MaximumRate", "CanGoNext", "CanGoPrevious",
                                          "CanPlay", "CanPause", "CanSeek", "CanControl"])
        XCTAssertEqual(player["Position"]?.signature, "x")
        XCTAssertEqual(player["Metadata"]?.signature, "a{sv}")
        let root = try client.getAllProperties(Self.name, MPRIS.objectPath, MPRIS.root)
        XCTAssertEqual(root.count, 7)
    }

    func testPingAndMachineId() throws {
        try startDaemon()
        _ = try call("org.freedesktop.DBus.Peer", "Ping")
        XCTAssertNotNil(try call("org.freedesktop.DBus.Peer", "GetMachineId").first?.string)
    }
}
