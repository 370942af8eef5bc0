import Foundation
import ReelCore
import ReelHarness
import ReelMPD
import ReelSystem
import XCTest

/// The MPD bus under abuse: random requests, silent and greedy clients,
/// too many clients. Each gets an ACK or a closed connection; the daemon
/// and every other client go on.
final class MPDHostileTests: DaemonTestCase {
    static let long = ProcessInfo.processInfo.environment["REEL_STRESS"] != nil

    /// What a fuzzing client says: real commands with random arguments, and noise.
    func randomLine(_ rng: inout SplitMix64, names: [String]) -> String {
        let pieces = ["0", "1", "-1", "99999999999999999999", "1:", "0:3", "5:2", "+1", "-0", "1e309", "nan", "0.5",
                      #""quoted \"inner\" \\ text""#, #""unterminated"#, "\u{0}", "artist", "(artist == \"x\")",
                      "((title contains 'a') AND (!(album == \"b\")))", "(base \"@remote\")", "group", "window", "sort",
                      "/nonexistent.ogg", "http://127.0.0.1:9/none.ogg", "file:///etc/passwd", "../../etc", "",
                      String(repeating: "ü", count: 300), "player", "mixer", "all", "clear", "Artist"]
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:
            return String((0..<Int.random(in: 0..<40, using: &rng)).map { _ in
                Character(Unicode.Scalar(UInt8.random(in: 1...255, using: &rng)))
            }).replacingOccurrences(of: "\n", with: " ")
        default:
            let name = names.randomElement(using: &rng)!
            let args = (0..<Int.random(in: 0..<4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }
            return ([name] + args).joined(separator: " ")
        }
    }

    func testRandomRequestsGetAnAnswerOrAHangUpAndNothingElse() throws {
        try startWithMPD(Array(media.tones.prefix(3)), ["--paused"])
        var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: monotonicNow()))
        let seed = rng
        let names = try MPDClient(path: socketPath).command("commands").compactMap { $0.hasPrefix("command: ") ? String($0.dropFirst(9)) : nil }
            .filter { !["close", "idle", "noidle", "command_list_begin", "command_list_ok_begin", "command_list_end", "update", "rescan"].contains($0) }
        XCTAssertGreaterThan(names.count, 60)
        var client = try MPDClient(path: socketPath)
        var hangUps = 0
        for n in 0..<(Self.long ? 20_000 : 1_000) {
            let line = randomLine(&rng, names: names)
            client.send(line + "\n")
            guard let reply = client.reply(timeout: 10) else {
                // Only a line that breaks the protocol may end a connection.
                XCTAssertTrue(client.isClosed(timeout: 0.5), "no answer to request \(n) (seed \(seed)): \(line.debugDescription)")
                hangUps += 1
                client = try MPDClient(path: socketPath)
                continue
            }
            XCTAssertTrue(reply.last == "OK" || reply.last?.hasPrefix("ACK [") == true, "\(line.debugDescription): \(reply)")
        }
        // The last request may have been one answered and then hung up on (a wrong password too
        // many): the ping goes on a new connection then, as the loop's next request would.
        if client.isClosed(timeout: 0.2) {
            hangUps += 1
            client = try MPDClient(path: socketPath)
        }
        XCTAssertLessThan(hangUps, 50, "most noise is answered, not hung up on")
        XCTAssertEqual(try client.pairs("ping"), [:])
        XCTAssertNoThrow(try status(), "MPRIS still answers")
    }

    func testSilentClientsAreHungUpOnButIdleOnesStay() throws {
        try writeConfig("mpd-timeout = 1\n")
        try startWithMPD([media.tones[0]], ["--paused"])
        let silent = try MPDClient(path: socketPath)
        let waiting = try MPDClient(path: socketPath)
        waiting.send("idle player\n")
        XCTAssertTrue(silent.isClosed(timeout: 5), "a client silent past mpd-timeout is hung up on")
        try player("Play")
        XCTAssertEqual(waiting.reply(), ["changed: player", "OK"], "a client in idle is never timed out")
    }

    func testOneClientTooManyIsHungUpOnAndTheOthersGoOn() throws {
        try startWithMPD([media.tones[0]], ["--paused"])
        let clients = try (0..<100).map { _ in try MPDClient(path: socketPath) }
        XCTAssertThrowsError(try MPDClient(path: socketPath), "the 101st gets no greeting")
        XCTAssertEqual(try clients[99].pairs("status")["state"], "pause")
        clients[0].hangUp()
        // Its end of file is seen no later than this request, which comes after it.
        XCTAssertEqual(try clients[1].pairs("ping"), [:])
        let late = try? MPDClient(path: socketPath)
        XCTAssertNotNil(late, "a freed place can be taken")
    }

    func testAClientThatNeverReadsBlocksNoOne() throws {
        try startWithMPD([], ["--paused"])
        let many = (0..<2_000).map { _ in media.tones[0].path }
        let filler = try MPDClient(path: socketPath)
        filler.send("command_list_begin\n" + many.map { "add \(RequestLine.quote($0))\n" }.joined() + "command_list_end\n")
        XCTAssertEqual(filler.reply(timeout: 30), ["OK"])
        let greedy = try MPDClient(path: socketPath)
        for _ in 0..<20 { greedy.send("playlistinfo\n") }   // ~6 MB of replies it does not read yet
        let other = try MPDClient(path: socketPath)
        for _ in 0..<20 { XCTAssertEqual(try other.pairs("status")["playlistlength"], "2000") }
        // It gets all of it once it reads: held back, not lost.
        var songs = 0
        while songs < 20 * 2000, let line = greedy.readLine(timeout: 30) { if line.hasPrefix("Id: ") { songs += 1 } }
        XCTAssertEqual(songs, 20 * 2000)
    }
}
