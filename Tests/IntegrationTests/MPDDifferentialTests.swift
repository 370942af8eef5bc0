import Foundation
import ReelHarness
import XCTest

/// reel's MPD protocol beside MPD 0.23 itself: one generated library (albums, a compilation,
/// songs without some tags, several genres, names outside ASCII), both servers updated from it,
/// the same requests to both. Every difference left is one docs/mpd.md explains, and is named here.
final class MPDDifferentialTests: DaemonTestCase {
    var mpd: ChildProcess?

    override func tearDown() {
        mpd?.stop()
        mpd = nil
        super.tearDown()
    }

    /// Starts MPD 0.23 on the music folder and waits until its database is made.
    func startMPD(_ music: URL) throws -> MPDClient {
        guard ReferenceMPD.isInstalled else { throw XCTSkip("mpd is not installed (make deps)") }
        let (process, socket) = try ReferenceMPD.start(music: music, dir: home.appendingPathComponent("mpd"))
        mpd = process
        let client = try connect(socket)
        try updateAndWait(client)
        return client
    }

    /// The reply as lines, with what differs by design taken out (docs/mpd.md): the Format line, and
    /// the order of a song's tags (MPD keeps the file's order, reel a fixed one; clients read them
    /// as a map), so each song's tag lines are sorted.
    func normalized(_ lines: [String]) -> [String] {
        var records: [[String]] = []
        for line in lines.compactMap(normalizedLine) {
            if line.hasPrefix("file: ") || line.hasPrefix("directory: ") || line.hasPrefix("playlist: ") || records.isEmpty {
                records.append([line])
            } else {
                records[records.count - 1].append(line)
            }
        }
        return records.flatMap { record in
            record.first!.hasPrefix("file: ") ? [record[0]] + record.dropFirst().sorted() : record
        }
    }

    func normalizedLine(_ line: String) -> String? {
            // Format is the decoder's output: MPD's libmad gives 24-bit samples, mpv floating point.
            if line.hasPrefix("Format: ") { return nil }
            // Lengths: MPD's decoder and ffprobe agree to the millisecond at best; to a tenth here.
            if line.hasPrefix("duration: ") || line.hasPrefix("playtime: ") || line.hasPrefix("Time: ") {
                let parts = line.split(separator: " ", maxSplits: 1)
                return "\(parts[0]) \(Double(parts[1]).map { String(format: "%.1f", $0) } ?? String(parts[1]))"
            }
            return line
    }

    /// reeld and MPD 0.23 on the tagged library, both updated.
    func startBoth() throws -> (ours: MPDClient, theirs: MPDClient) {
        let music = home.appendingPathComponent("music")
        try makeTaggedLibrary(music)
        let theirs = try startMPD(music)
        try startWithMPD([], ["--music-dir", music.path])
        let ours = try connect(socketPath)
        try updateAndWait(ours)
        return (ours, theirs)
    }

    /// Sends each request to both and fails with every pair of answers that differ. A request's
    /// "ID" is the id each server gave, and an `Id:` line with it reads `Id: ID`.
    func compare(_ requests: [String], _ ours: MPDClient, _ theirs: MPDClient, ids: (ours: String, theirs: String) = ("", "")) throws {
        func answer(_ request: String, from client: MPDClient, id: String) throws -> [String] {
            let sent = id.isEmpty ? request : request.replacingOccurrences(of: "ID", with: id)
            let lines = normalized(try client.command(sent, timeout: 10))
            return id.isEmpty ? lines : lines.map { $0 == "Id: \(id)" ? "Id: ID" : $0 }
        }
        var differences: [String] = []
        for request in requests {
            let a = try answer(request, from: ours, id: ids.ours), b = try answer(request, from: theirs, id: ids.theirs)
            if a != b {
                differences.append("\(request):\n  reel: \(a.joined(separator: " | "))\n  MPD:  \(b.joined(separator: " | "))")
            }
        }
        XCTAssertTrue(differences.isEmpty, "reel and MPD 0.23 answer differently:\n" + differences.joined(separator: "\n"))
    }

    func testTheSameRequestsGetTheSameAnswers() throws {
        let (ours, theirs) = try startBoth()
        try compare([
            "lsinfo", "lsinfo Abba", "listall", "listallinfo Various", "list artist", "list album", "list albumartist",
            "list album group albumartist", "list album group date", "list genre", "list date", "list track",
            #"list album "Abba""#, "list title group album", #"find albumartist "Various Artists""#,
            #"find "(artist == \"Abba\")""#, #"search title "o""#, "find date 1992", #"find date """#,
            "count group artist", "count album Gold", #"find disc "2""#, "list disc", "list album group genre",
            #"search any "ärzte""#, "find genre Disco", #"lsinfo "Loose/untagged.mp3""#, "lsinfo Various/Hits",
            #"find "(AlbumArtist == \"Abba\")""#, "list albumartist group date", #"count "(date == \"2001\")" group album"#,
            "listall Various", #"search "(title contains \"O\")" sort Title"#, #"find "(album != \"Gold\")""#,
            // Mistakes: the same errors, codes included.
            #"find "(artist == "Abba")""#, "list nonsense", "lsinfo Nowhere", #"find "(title ~= \"x\")""#, "count",
            "list album group album", #"find artist"#,
        ], ours, theirs)
    }

    /// The queue's ranges (`rangeid`): the same Range, Time and duration lines, and the same
    /// errors, on a queue of two songs.
    func testRangesAreSetShownAndRefusedAsMPDDoes() throws {
        let (ours, theirs) = try startBoth()
        func id(_ client: MPDClient) throws -> String {
            _ = try client.command(#"add "Abba/Gold/01 Dancing Queen.mp3""#)
            return try XCTUnwrap(try client.pairs(#"addid "Abba/Gold/02 Waterloo.mp3""#)["Id"])
        }
        try compare([
            "rangeid ID 0.25:0.75", "playlistinfo", "rangeid ID 0.5:", "playlistinfo", "rangeid ID :", "playlistinfo",
            "rangeid ID 0.2:5", "playlistid ID", "rangeid ID 0:0", "playlistid ID",
            // Mistakes: the same errors, codes included.
            "rangeid ID 0.75:0.25", "rangeid ID 5:", "rangeid 999 0:1", "rangeid ID x", "rangeid ID 1", "rangeid ID -1:",
        ], ours, theirs, ids: (try id(ours), try id(theirs)))
    }
}
