import ReelCore
import Foundation
import ReelDBus

/// Runs `reel` commands against a daemon over D-Bus.
public final class Client {
    static let path = "/org/mpris/MediaPlayer2"
    static let player = "org.mpris.MediaPlayer2.Player"
    static let trackList = "org.mpris.MediaPlayer2.TrackList"
    static let reel = "dev.reel.Daemon1"

    let connection: Connection
    let bus: String
    let output: (String, Bool) -> Void

    /// `write(text, newline)` prints the client's output.
    public init(connection: Connection, busName: String, write: @escaping (String, Bool) -> Void) {
        self.connection = connection
        self.bus = busName
        self.output = write
    }

    func write(_ text: String, newline: Bool = true) { output(text.terminalSafe, newline) }

    /// Asks the bus to start the daemon (D-Bus activation); whether it was running already.
    @discardableResult
    public func startDaemon() throws -> Bool {
        let reply = try connection.callMethod("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                              "StartServiceByName", [.string(bus), .uint32(0)], timeoutMs: 30_000)
        return reply.first?.int64 == 2   // DBUS_START_REPLY_ALREADY_RUNNING
    }

    /// Whether a daemon owns the bus name.
    public func daemonIsRunning() throws -> Bool {
        let reply = try connection.callMethod("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                              "NameHasOwner", [.string(bus)])
        return reply.first?.bool ?? false
    }

    public func run(_ command: CLICommand) throws {
        switch command {
        case .status(let json, let follow):
            if follow { try followStatus(json: json) } else {
                let status = try status()
                printStatus(status, json: json)
                // Where else the daemon listens, once: not in every line of --follow.
                if !json, let listeners = status.listeners { write(listeners) }
            }
        case .queue(let json): try printQueue(json: json)
        case .transport(let method): _ = try call(Client.player, method)
        case .seek(true, let micros): _ = try call(Client.player, "Seek", [.int64(micros)])
        case .seek(false, let micros):
            guard let track = try status().trackID else { throw BusError.failed("nothing is playing") }
            _ = try call(Client.player, "SetPosition", [.objectPath(track), .int64(micros)])
        case .start(let items):
            guard !items.isEmpty else { return }
            _ = try add(items, play: true)
        case .add(let items):
            let count = try add(items, play: false)
            write("added \(count) \(count == 1 ? "entry" : "entries")")
        case .goTo(let n): _ = try call(Client.trackList, "GoTo", [.objectPath(try track(n))])
        case .remove(let n): _ = try call(Client.trackList, "RemoveTrack", [.objectPath(try track(n))])
        case .clear: _ = try call(Client.reel, "Clear")
        case .rate(let x): try set("Rate", .double(x))
        case .volume(let x): try set("Volume", .double(x))
        case .loop(let mode): try set("LoopStatus", .string(mode))
        case .shuffle(let on): try set("Shuffle", .boolean(on))
        case .replayGain(let mode?): try set("ReplayGain", .string(mode), on: Client.reel)
        case .replayGain(nil): write(try get("ReplayGain", on: Client.reel).string ?? "?")
        case .video(let on?): try set("Video", .boolean(on), on: Client.reel)
        case .video(nil): write(try get("Video", on: Client.reel).bool == true ? "on" : "off")
        case .chapters(let place, let json): try printChapters(of: place, json: json)
        case .chapter(let which): _ = try call(Client.reel, "GoToChapter", [.string(which)])
        case .sleep(let when?): _ = try call(Client.reel, "Sleep", [.string(when)])
        case .sleep(nil):
            let mode = try get("SleepTimer", on: Client.reel).string ?? "off"
            let left = try get("SleepLeft", on: Client.reel).int64 ?? -1
            write(PlayerStatus.sleepText(mode: mode, left: left) ?? "off")
        case .libAdd, .libProblems, .libList, .libInfo, .libRemove, .libPlay, .libForget, .playlistSave, .playlistLoad, .playlistList,
             .feedList, .feedSet:
            try runLibrary(command)
        case .download, .cancelDownload, .cancelAllDownloads, .cacheList, .cachePath, .cacheClear, .cacheSize, .sync:
            try runCache(command)
        case .help, .version, .configCheck, .completion, .complete: break   // main answers these without a daemon
        }
    }


    /// Queues items 1,000 a call (the daemon takes at most 2,000 in one, and
    /// answers others between calls); the first call plays when `play`. Returns how many were queued.
    func add(_ items: [String], play: Bool) throws -> Int {
        var count = 0
        for start in stride(from: 0, to: items.count, by: 1_000) {
            let batch = items[start..<min(start + 1_000, items.count)].map(Client.absolute)
            count += try call(Client.reel, "Add", [.strings(batch), .boolean(play && start == 0)]).first?.array?.count ?? 0
        }
        return count
    }

    func call(_ interface: String, _ method: String, _ args: [DBusValue] = [], timeoutMs: Int32 = 5_000) throws -> [DBusValue] {
        try connection.callMethod(bus, Client.path, interface, method, args, timeoutMs: timeoutMs)
    }

    private func set(_ property: String, _ value: DBusValue, on interface: String = Client.player) throws {
        try connection.setProperty(bus, Client.path, interface, property, value)
    }

    private func get(_ property: String, on interface: String) throws -> DBusValue {
        try connection.getProperty(bus, Client.path, interface, property)
    }

    func status() throws -> PlayerStatus {
        let player = try connection.getAllProperties(bus, Client.path, Client.player)
        let reel = (try? connection.getAllProperties(bus, Client.path, Client.reel)) ?? [:]
        let sleep = reel["SleepTimer"]?.string.flatMap { $0 == "off" ? nil : ($0, reel["SleepLeft"]?.int64 ?? -1) }
        var status = PlayerStatus(player: player, lastError: reel["LastError"]?.string ?? "",
                                  libraryError: reel["LibraryError"]?.string ?? "", activity: reel["Activity"]?.string ?? "",
                                  sleep: sleep)
        status.libraryWatch = reel["LibraryWatch"]?.string ?? ""
        status.controlAddresses = reel["ControlAddresses"]?.stringArray ?? []
        status.audioOutput = reel["AudioOutput"]?.string ?? ""
        status.timeSaved = reel["TimeSaved"]?.int64.flatMap { $0 >= 0 ? $0 : nil }
        status.timeSavedInAll = reel["TimeSavedInAll"]?.int64.flatMap { $0 >= 0 ? $0 : nil }
        if case .structure(let fill) = reel["CacheFill"], fill.count == 2, let present = fill[0].int64, present >= 0 {
            status.cacheFill = (present, fill[1].int64 ?? -1)
        }
        return status
    }

    /// An entry's chapters (the current one's without a place), one a line: number, start, title;
    /// the one heard marked with "*".
    private func printChapters(of place: Int?, json: Bool) throws {
        let list: DBusValue?
        if let place {
            list = try call(Client.reel, "GetChapters", [.objectPath(try track(place))]).first
        } else {
            list = try get("Chapters", on: Client.reel)
        }
        let chapters: [(start: Int64, title: String)] = (list?.array ?? []).compactMap {
            guard case .structure(let fields) = $0, fields.count == 2, let start = fields[0].int64,
                  let title = fields[1].string else { return nil }
            return (start, title)
        }
        var isCurrent = place == nil
        if let place { isCurrent = try track(place) == status().trackID }
        let heard = isCurrent ? Int(try get("Chapter", on: Client.reel).int64 ?? -1) : -1
        if json {
            write(jsonLine(chapters.enumerated().map { n, chapter in
                ["number": n + 1, "start": chapter.start, "title": chapter.title, "playing": n == heard] as [String: Any]
            }))
            return
        }
        guard !chapters.isEmpty else {
            throw BusError.failed(place.map { "entry \($0) has no chapters" } ?? "the track that plays has no chapters")
        }
        for (n, chapter) in chapters.enumerated() {
            write("\(n == heard ? "*" : " ") \(n + 1)  \(ClockText.format(chapter.start))  \(chapter.title.printable)")
        }
    }

    private func printStatus(_ status: PlayerStatus, json: Bool) {
        write(json ? jsonLine(status.json) : status.line)
    }

    private func track(_ n: Int) throws -> String {
        let (total, _, rows) = try queuePage(n - 1, 1)
        guard let id = rows.first?.trackID else {
            throw BusError.failed("there is no entry \(n); the queue has \(total)")
        }
        return id
    }

    /// An entry of the queue as QueuePage gives it.
    struct Row {
        var trackID: String
        var title: String
        var artists: [String]
        var length: Int64?
        var url: String
    }

    /// One page of the queue: its length, the current index (-1: none), its entries.
    func queuePage(_ offset: Int, _ limit: Int) throws -> (total: Int, current: Int, rows: [Row]) {
        try decodePage(try awaitReply(try requestPage(offset, limit)))
    }

    private func requestPage(_ offset: Int, _ limit: Int) throws -> UInt32 {
        connection.send(try Message.methodCall(destination: bus, path: Client.path, interface: Client.reel,
                                               member: "QueuePage", [.uint32(UInt32(offset)), .int32(Int32(limit))]))
    }

    private func awaitReply(_ serial: UInt32) throws -> Message {
        let deadline = Date().addingTimeInterval(25)
        while connection.isConnected, Date() < deadline {
            guard let m = connection.nextMessage(timeoutMs: 1_000) else { continue }
            guard m.kind == .methodReturn || m.kind == .error, m.replySerial == serial else { continue }
            if let error = m.asError { throw error }
            return m
        }
        throw BusError.failed("no answer from the daemon")
    }

    private func decodePage(_ reply: Message) throws -> (total: Int, current: Int, rows: [Row]) {
        let args = reply.arguments
        guard args.count == 3 else { throw BusError.failed("unexpected reply to QueuePage") }
        let rows = (args[2].array ?? []).compactMap { value -> Row? in
            guard case .structure(let f) = value, f.count == 5, let id = f[0].int64 else { return nil }
            return Row(trackID: "/dev/reel/Track/\(id)", title: f[1].string ?? "?", artists: f[2].stringArray ?? [],
                       length: f[3].int64.flatMap { $0 < 0 ? nil : $0 }, url: f[4].string ?? "")
        }
        return (Int(args[0].int64 ?? 0), Int(args[1].int64 ?? -1), rows)
    }

    /// Streams the queue a page at a time; the next page is asked for before
    /// this one is decoded, so that the daemon encodes while reel decodes.
    private func printQueue(json: Bool) throws {
        var offset = 0
        var pending = try requestPage(0, Client.pageSize)
        if json { write("[", newline: false) }
        while true {
            let reply = try awaitReply(pending)
            pending = try requestPage(offset + Client.pageSize, Client.pageSize)
            let (total, current, rows) = try decodePage(reply)
            var text = ""
            for (i, row) in rows.enumerated() {
                let index = offset + i
                if json {
                    text += (index > 0 ? "," : "") + "{\"artists\":[" + row.artists.map(JSON.string).joined(separator: ",")
                        + "],\"current\":\(index == current),\"index\":\(index + 1)"
                        + (row.length.map { ",\"length\":\($0)" } ?? "")
                        + ",\"title\":\(JSON.string(row.title)),\"trackid\":\(JSON.string(row.trackID)),\"url\":\(JSON.string(row.url))}"
                } else {
                    text += "\(index == current ? "*" : " ") \(index + 1)  \(row.title.printable)"
                    if !row.artists.isEmpty { text += " — " + row.artists.joined(separator: ", ").printable }
                    if let length = row.length { text += "  " + ClockText.format(length) }
                    text += "\n"
                }
            }
            if !text.isEmpty { write(json ? text : String(text.dropLast()), newline: !json) }
            offset += rows.count
            if rows.isEmpty || offset >= total { break }
        }
        _ = try? awaitReply(pending)   // the page asked for past the end
        if json { write("]") }
    }

    static let pageSize = 1000

    /// Prints the status now and again after every change, until the daemon goes away.
    private func followStatus(json: Bool) throws {
        try connection.addMatch("type='signal',sender='\(bus)',path='\(Client.path)'")
        try connection.addMatch("type='signal',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(bus)'")
        var last = ""
        func show() throws {
            let status = try status()
            let line = json ? jsonLine(status.json) : status.line
            if line != last { write(line); last = line }
        }
        try show()
        while connection.isConnected {
            guard let message = connection.nextMessage(timeoutMs: 60_000) else { continue }
            guard message.kind == .signal else { continue }
            if message.member == "NameOwnerChanged" {
                if message.arguments.count == 3, message.arguments[2].string == "" {
                    throw BusError.failed("the daemon stopped")
                }
                continue
            }
            do { try show() } catch {
                // A signal sent while it shut down can arrive before NameOwnerChanged.
                if (try? daemonIsRunning()) == false { throw BusError.failed("the daemon stopped") }
                throw error
            }
        }
    }
}
