import ReelCore
@testable import ReelMPD
import XCTest

final class ClientProtocolTests: XCTestCase {
    func testTheGreetingNamesAProtocolThatNcmpcAccepts() throws {
        let client = ClientProtocol(commands: try MPDCommands(session: ScriptedSession(), library: nil, password: nil), authorized: true)
        XCTAssertEqual(String(decoding: client.takeOutput(), as: UTF8.self), "OK MPD 0.23.5\n")
    }

    func testEveryAnswerEndsInOKOrOneACK() {
        let c = Conversation()
        XCTAssertEqual(c.send("ping"), "OK\n")
        XCTAssertEqual(c.send("frobnicate"), "ACK [5@0] {} unknown command \"frobnicate\"\n")
        XCTAssertEqual(c.send("play 3"), "ACK [2@0] {play} Bad song index\n")
        XCTAssertEqual(c.send("setvol"), "ACK [2@0] {setvol} too few arguments for \"setvol\"\n")
        XCTAssertEqual(c.send("ping 1"), "ACK [2@0] {ping} too many arguments for \"ping\"\n")
        XCTAssertEqual(c.send("setvol loud"), "ACK [2@0] {setvol} Integer expected: loud\n")
        XCTAssertEqual(c.send("add relative/path.ogg").prefix(11), "ACK [50@0] ")
    }

    func testACommandListStopsAtItsFirstErrorAndNamesItsPlace() {
        let c = Conversation()
        XCTAssertEqual(c.send("command_list_ok_begin", "add /a.ogg", "add /b.ogg", "command_list_end"), "list_OK\nlist_OK\nOK\n")
        XCTAssertEqual(c.send("command_list_begin", "add /c.ogg", "playid 99", "add /d.ogg", "command_list_end"),
                       "ACK [50@1] {playid} No such song\n")
        XCTAssertEqual(c.session.queue.count, 3, "the command after the error must not run")
        XCTAssertEqual(c.send("command_list_begin", "ping", "idle", "command_list_end"),
                       "ACK [2@1] {idle} idle is not allowed in a command list\n")
        XCTAssertEqual(c.send("command_list_end"), "ACK [1@0] {command_list_end} not in command list mode\n")
    }

    func testALongCommandListRunsWhole() {
        let c = Conversation()
        let reply = c.send(["command_list_ok_begin"] + Array(repeating: "ping", count: 20_000) + ["command_list_end"])
        XCTAssertEqual(reply.split(separator: "\n").count, 20_001)
        XCTAssertTrue(reply.hasSuffix("list_OK\nOK\n"))
    }

    func testIdleWaitsForAChangeAndNoidleEndsIt() {
        let c = Conversation()
        XCTAssertEqual(c.send("idle"), "", "nothing changed yet: idle waits")
        XCTAssertEqual(c.endTurn(), "")
        XCTAssertEqual(c.send("noidle"), "OK\n")
        XCTAssertEqual(c.send("add /a.ogg"), "OK\n")
        XCTAssertEqual(c.send("idle mixer options"), "")
        XCTAssertEqual(c.endTurn(), "", "a queue change is not what it waits for")
        c.send("noidle")
        XCTAssertEqual(c.send("idle"), "", "changes are forgotten once an idle ends")
        c.send("noidle")
        XCTAssertEqual(c.send("idle mixer"), "")
        try? c.session.run(.setVolume(0.3))   // from another bus
        XCTAssertTrue(c.client.isIdle)
        XCTAssertEqual(c.endTurn(), "changed: mixer\nOK\n")
    }

    func testChangesBeforeIdleAnswerItAtOnce() {
        let c = Conversation()
        c.send("add /a.ogg", "random 1")
        _ = c.endTurn()
        XCTAssertEqual(c.send("idle"), "changed: playlist\nchanged: player\nchanged: options\nOK\n")
        XCTAssertEqual(c.send("idle playlist"), "")
    }

    func testSavingWherePlaybackIsWakesNoOne() {
        let c = Conversation()
        c.send("add /a", "play 0")
        c.session.loaded()
        c.settle()
        c.send("idle")
        c.session.now += 1_500_000
        try? c.session.run(.pause)   // saves the position in the entry: not something MPD clients see
        XCTAssertEqual(c.endTurn(), "changed: player\nOK\n", "the pause itself")
        c.send("idle")
        _ = c.session.engine.checkpoint(now: c.session.now + 1_000_000)
        XCTAssertEqual(c.endTurn(), "", "a saved position is no change of the player")
    }

    func testAnythingButNoidleDuringIdleClosesTheConnection() {
        let c = Conversation()
        c.send("idle")
        XCTAssertEqual(c.send("status"), "")
        XCTAssertTrue(c.client.closing)
        XCTAssertEqual(c.send("ping"), "", "a closing connection answers nothing more")
    }

    func testIdleRefusesUnknownSubsystems() {
        let c = Conversation()
        XCTAssertEqual(c.send("idle player dance"), "ACK [2@0] {idle} Unrecognized idle event: dance\n")
        XCTAssertFalse(c.client.isIdle)
    }

    func testAPasswordGuardsEverythingButPasswordAndPing() {
        let c = Conversation(password: "s3cret", authorized: false)
        XCTAssertEqual(c.send("ping"), "OK\n")
        XCTAssertEqual(c.send("status"), "ACK [4@0] {status} you don't have permission for \"status\"\n")
        XCTAssertEqual(c.send("idle"), "ACK [4@0] {idle} you don't have permission for \"idle\"\n")
        XCTAssertEqual(c.send("password nope"), "ACK [3@0] {password} incorrect password\n")
        XCTAssertFalse(c.send("notcommands").contains("command: ping"))
        XCTAssertTrue(c.send("notcommands").contains("command: status"))
        XCTAssertEqual(c.send("password s3cret"), "OK\n")
        XCTAssertTrue(c.send("status").hasSuffix("OK\n"))
        XCTAssertEqual(c.send("notcommands"), "OK\n")
    }

    func testCloseEndsTheConversation() {
        let c = Conversation()
        XCTAssertEqual(c.send("close"), "")
        XCTAssertTrue(c.client.closing)
    }

    func testACommandListRunsInStepsThatStopAtTheOutputLimit() {
        let c = Conversation()
        c.send("add /a.ogg", "add /b.ogg")
        let lines = ["command_list_ok_begin"] + Array(repeating: "playlistinfo", count: 50) + ["command_list_end"]
        let whole = Conversation()
        whole.send("add /a.ogg", "add /b.ogg")
        let expected = whole.send(lines)
        for line in lines { c.client.receive(Substring(line)) }
        XCTAssertTrue(c.client.isBusy, "the list waits for the server to run it")
        var steps: [Int] = []
        var text = ""
        while c.client.isBusy {
            c.client.proceed(outputLimit: 1, deadline: .max)
            let out = c.client.takeOutput()
            steps.append(out.count)
            text += String(decoding: out, as: UTF8.self)
        }
        XCTAssertEqual(text, expected, "the same answers, in the same order")
        XCTAssertEqual(steps.count, 51, "one command a step past the limit, then the final OK")
        XCTAssertLessThan(steps.max()!, 1000, "no step answers more than one command")
    }

    /// A long `playlistinfo` is written a step at a time, as the client reads and the loop's
    /// time allows, and lists the queue as it was when asked, whatever changes meanwhile.
    func testALongListingIsWrittenInStepsOfTheQueueAsItWas() {
        let c = Conversation(), whole = Conversation()
        let adds = ["command_list_begin"] + (0..<350).map { "add /song\($0).ogg" } + ["command_list_end"]
        c.send(adds)
        whole.send(adds)
        let expected = whole.send("playlistinfo")
        let other = ClientProtocol(commands: c.commands, authorized: true, local: true)
        _ = other.takeOutput()
        c.client.receive("playlistinfo")
        var steps: [String] = []
        while c.client.isBusy {
            c.client.proceed(outputLimit: 1, deadline: .max)
            steps.append(String(decoding: c.client.takeOutput(), as: UTF8.self))
            if steps.count == 1 {
                other.receive("delete 0")   // another client's change, between two steps
                XCTAssertEqual(String(decoding: other.takeOutput(), as: UTF8.self), "OK\n")
            }
        }
        XCTAssertEqual(steps.joined(), expected, "the same listing, of the queue as it was")
        XCTAssertEqual(steps.map { $0.components(separatedBy: "\nId: ").count - 1 }, [100, 100, 100, 50, 0],
                       "100 entries a step past the limit, then the OK")
        XCTAssertTrue(steps[3].hasSuffix("Id: 350\n"))
        XCTAssertEqual(steps.last, "OK\n")
        XCTAssertEqual(c.send("playlistinfo").components(separatedBy: "\nId: ").count - 1, 349, "the change shows next time")
        // In a command list, the list goes on after it.
        let listed = c.send("command_list_ok_begin", "playlistinfo 0:2", "ping", "command_list_end")
        XCTAssertTrue(listed.hasSuffix("Id: 3\nlist_OK\nlist_OK\nOK\n"), listed)
    }

    func testAListStepStopsAtItsDeadline() {
        let c = Conversation()
        for line in ["command_list_begin"] + Array(repeating: "ping", count: 1000) + ["command_list_end"] {
            c.client.receive(Substring(line))
        }
        c.client.proceed(outputLimit: .max, deadline: 0)
        XCTAssertTrue(c.client.isBusy, "a deadline already past runs one command and stops")
        c.client.proceed(outputLimit: .max, deadline: .max)
        XCTAssertFalse(c.client.isBusy)
        XCTAssertEqual(String(decoding: c.client.takeOutput(), as: UTF8.self), "OK\n")
    }

    func testBeforeThePasswordACommandListIsSmall() {
        let c = Conversation(password: "s3cret", authorized: false)
        c.send(["command_list_begin"] + Array(repeating: "notcommands", count: 1500))
        XCTAssertTrue(c.client.closing, "16 KiB of list before the password closes the connection")
        let authorized = Conversation()
        authorized.send(["command_list_begin"] + Array(repeating: "notcommands", count: 1500) + ["command_list_end"])
        XCTAssertFalse(authorized.client.closing)
    }

    func testWrongPasswordsAreAnsweredLaterEachTimeAndTheThirdCloses() {
        let c = Conversation(password: "s3cret", authorized: false)
        var delays: [MediaTime] = []
        for guess in ["a", "b", "c"] {
            XCTAssertEqual(c.send("password \(guess)"), "ACK [3@0] {password} incorrect password\n")
            delays.append(c.client.takeDelay())
        }
        XCTAssertEqual(delays, [250_000, 500_000, 1_000_000])
        XCTAssertTrue(c.client.closing)
        XCTAssertEqual(c.client.takeDelay(), 0, "a delay is taken once")
        let inList = Conversation(password: "s3cret", authorized: false)
        inList.client.receive("command_list_begin")
        for guess in ["a", "b"] { inList.client.receive(Substring("password \(guess)")) }
        inList.client.receive("command_list_end")
        inList.client.proceed(outputLimit: .max, deadline: .max)
        XCTAssertEqual(inList.client.takeDelay(), 250_000, "a list stops at its first wrong password")
        XCTAssertEqual(String(decoding: inList.client.takeOutput(), as: UTF8.self), "ACK [3@0] {password} incorrect password\n")
        XCTAssertEqual(inList.send("password s3cret"), "OK\n")
    }

    func testOnePartitionAsMPDHasBeforeAnyIsMade() {
        let c = Conversation()
        XCTAssertEqual(c.send("listpartitions"), "partition: default\nOK\n")
        XCTAssertEqual(c.send("partition default"), "OK\n")
        XCTAssertEqual(c.send("partition other"), "ACK [50@0] {partition} partition does not exist\n")
        XCTAssertEqual(c.pairs("status")["partition"], "default")
    }
}

/// How a session's refusal reads as MPD's ACK.
final class SessionAckTests: XCTestCase {
    func testEachKindOfRefusalHasMPDsCode() {
        XCTAssertEqual(Ack(SessionError(CommandError.noSuchTrack(EntryID(4)))), Ack(.noExist, "No such song"))
        XCTAssertEqual(Ack(SessionError(.noSuchFile, "no such file: /x")), Ack(.noExist, "no such file: /x"))
        XCTAssertEqual(Ack(SessionError(.invalidURI, "bad")), Ack(.argument, "bad"))
        XCTAssertEqual(Ack(SessionError(CommandError.invalidArgument("Rate 0"))), Ack(.argument, "Rate 0"))
        XCTAssertEqual(Ack(SessionError(.failed, "disk")).code, .system)
    }
}
