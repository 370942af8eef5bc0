import Foundation
import ReelCore
import ReelDBus
import ReelMPRIS
import ReelHarness

/// One of many clients calling at once, each with calls whose outcome it can
/// check: entries it added itself (it alone removes them), and, for the
/// settings client, Volume read back after it wrote it.
final class MixedClient {
    let connection: Connection
    let name: String
    let file: String
    let settings: Bool
    /// The ids of the entries this client added and has not removed.
    private(set) var own = Set<UInt64>()

    struct Mismatch: Error, CustomStringConvertible { let description: String }

    init(connection: Connection, name: String, file: String, settings: Bool) {
        self.connection = connection
        self.name = name
        self.file = file
        self.settings = settings
    }

    private func call(_ interface: String, _ member: String, _ args: [DBusValue] = []) throws -> [DBusValue] {
        try connection.callMethod(name, MPRIS.objectPath, interface, member, args, timeoutMs: 10_000)
    }

    func step(using rng: inout SplitMix64) throws {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0...2 where own.count < 20:
            let added = try call(MPRIS.reel, "Add", [.strings([file]), .boolean(false)]).first?.array ?? []
            for path in added { if let id = path.string.flatMap(TrackID.entry) { own.insert(id.raw) } }
        case 0...4:
            guard let id = own.randomElement(using: &rng) else { return }
            _ = try call(MPRIS.trackList, "RemoveTrack", [.objectPath(TrackID.path(EntryID(id)))])
            own.remove(id)
        case 5:
            let maps = try call(MPRIS.trackList, "GetTracksMetadata",
                                [.objectPaths(own.map { TrackID.path(EntryID($0)) })]).first?.array ?? []
            let seen = Set(maps.compactMap { $0.dictionary?["mpris:trackid"]?.string.flatMap(TrackID.entry)?.raw })
            guard seen == own else { throw Mismatch(description: "own entries \(own.sorted()), the daemon has \(seen.sorted())") }
        case 6:
            _ = try connection.getAllProperties(name, MPRIS.objectPath, MPRIS.player)
        case 7:
            let member = ["Next", "Previous", "PlayPause", "Play"].randomElement(using: &rng)!
            _ = try call(MPRIS.player, member)
        case 8 where settings:
            let volume = Double(Int.random(in: 0...150, using: &rng)) / 100
            try connection.setProperty(name, MPRIS.objectPath, MPRIS.player, "Volume", .double(volume))
            let read = try connection.getProperty(name, MPRIS.objectPath, MPRIS.player, "Volume").double
            guard read == volume else { throw Mismatch(description: "set Volume \(volume), read \(read ?? -1)") }
        default:
            _ = try call(MPRIS.reel, "QueuePage", [.uint32(UInt32.random(in: 0...40, using: &rng)), .int32(20)])
        }
    }
}

/// The same kind of client over the MPD protocol: its own entries (addid,
/// deleteid, read back with playlistid), transport, status and queue pages.
final class MPDMixedClient {
    let client: MPDClient
    let file: String
    private(set) var own = Set<UInt64>()

    init(socket: String, file: String) throws {
        client = try MPDClient(path: socket)
        self.file = file
    }

    private func ok(_ line: String) throws -> [String] {
        let reply = try client.command(line, timeout: 10)
        guard reply.last == "OK" else { throw MixedClient.Mismatch(description: "\(line): \(reply.last ?? "")") }
        return reply
    }

    func step(using rng: inout SplitMix64) throws {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0...2 where own.count < 20:
            let reply = try ok("addid \"\(file)\"")
            guard let id = reply.first.flatMap({ UInt64($0.dropFirst(4)) }) else {
                throw MixedClient.Mismatch(description: "addid answered \(reply)")
            }
            own.insert(id)
        case 0...4:
            guard let id = own.randomElement(using: &rng) else { return }
            _ = try ok("deleteid \(id)")
            own.remove(id)
        case 5:
            for id in own { _ = try ok("playlistid \(id)") }   // an ACK if the daemon lost it
        case 6:
            _ = try ok("status")
        case 7:
            _ = try ok(["next", "previous", "pause", "play"].randomElement(using: &rng)!)
        default:
            // The two entries the daemon started with are always there; past the end is an ACK, as in MPD.
            let start = Int.random(in: 0...2, using: &rng)
            _ = try ok("playlistinfo \(start):\(start + 20)")
        }
    }
}
