import ReelCore
import Foundation
import ReelDBus

/// `reel lib …` and `reel playlist …`.
extension Client {
    func runLibrary(_ command: CLICommand) throws {
        switch command {
        case .libAdd(let inputs, let rescan): try importItems(inputs.map(Client.absolute), rescan: rescan)
        case .libProblems(let json):
            let problems = (try call(Client.reel, "LibraryProblems").first?.array ?? []).compactMap { value -> (String, String)? in
                guard case .structure(let f) = value, f.count == 2, let path = f[0].string, let why = f[1].string else { return nil }
                return (path, why)
            }
            if json { write(jsonLine(problems.map { ["path": $0.0, "reason": $0.1] })) } else {
                problems.forEach { write("\($0.0.printable): \($0.1)") }
            }
        case .libList(let query, let json, let limit):
            try listLibrary(query, json: json, limit: limit)
        case .libInfo(let id, let json):
            let item = try call(Client.reel, "LibraryItem", [.int64(id)]).first?.dictionary ?? [:]
            if json { write(jsonLine(Client.json(item))) } else {
                for key in ["id", "title", "artist", "album", "duration", "position", "finished", "playCount", "lastPlayed",
                            "addedAt", "localPath", "remoteURL", "cover", "timeSaved"] {
                    guard let value = item[key] else { continue }
                    // The time saved reads as `reel lib ls` and `reel status` say it; JSON keeps the key.
                    let label = key == "timeSaved" ? "trimmed" : key
                    write("\(label.padding(toLength: 10, withPad: " ", startingAt: 0)) \(Client.text(key, value))")
                }
            }
        case .libRemove(let id): _ = try call(Client.reel, "LibraryRemove", [.int64(id)])
        case .libForget(let id): _ = try call(Client.reel, "LibraryForgetPosition", [.int64(id)])
        case .libPlay(let what):
            let count = try call(Client.reel, "LibraryPlay", [.string(what)]).first?.int64 ?? 0
            write("playing \(count) \(count == 1 ? "item" : "items")")
        case .playlistSave(let name):
            let count = try call(Client.reel, "PlaylistSave", [.string(name)]).first?.int64 ?? 0
            write("saved \"\(name)\" (\(count) \(count == 1 ? "entry" : "entries"))")
        case .playlistLoad(let name):
            let count = try call(Client.reel, "PlaylistLoad", [.string(name)]).first?.int64 ?? 0
            write("loaded \"\(name)\" (\(count) \(count == 1 ? "entry" : "entries"))")
        case .playlistList(let json):
            let lists = try call(Client.reel, "PlaylistList").first?.array ?? []
            let rows = lists.compactMap { value -> (String, Int64)? in
                guard case .structure(let f) = value, f.count == 2, let name = f[0].string, let n = f[1].int64 else { return nil }
                return (name, n)
            }
            if json { write(jsonLine(rows.map { ["name": $0.0, "count": $0.1] })) } else {
                rows.forEach { write("\($0.0)  (\($0.1))") }
            }
        case .feedList(let json):
            let feeds = try call(Client.reel, "FeedList").first?.array ?? []
            let rows = feeds.compactMap { value -> (String, Int64, [String: DBusValue])? in
                guard case .structure(let f) = value, f.count == 3, let name = f[0].string, let n = f[1].int64 else { return nil }
                return (name, n, f[2].dictionary ?? [:])
            }
            if json {
                write(jsonLine(rows.map { ["feed": $0.0, "episodes": $0.1, "settings": Client.json($0.2)] as [String: Any] }))
            } else {
                rows.forEach { write("\($0.0.printable)  \($0.1) episode\($0.1 == 1 ? "" : "s")  \(Self.feedSettings($0.2))") }
            }
        case .feedSet(let feed, let change):
            let name = try call(Client.reel, "FeedSet", [.string(feed), .vardict(change.dbus)]).first?.string ?? feed
            let settings = (try call(Client.reel, "FeedList").first?.array ?? []).lazy.compactMap { value -> [String: DBusValue]? in
                guard case .structure(let f) = value, f.count == 3, f[0].string == name else { return nil }
                return f[2].dictionary
            }.first ?? [:]
            write("\(name.printable)  \(Self.feedSettings(settings))")
        default: break
        }
    }

    /// "rate 1.3, skip-intro 0:30, skip-outro 0:15, boost on, trim on", or "no settings".
    static func feedSettings(_ map: [String: DBusValue]) -> String {
        var parts: [String] = []
        if let rate = map["rate"]?.double, rate > 0 { parts.append("rate \(rate)") }
        if let intro = map["skipIntro"]?.int64, intro > 0 { parts.append("skip-intro " + ClockText.format(intro)) }
        if let outro = map["skipOutro"]?.int64, outro > 0 { parts.append("skip-outro " + ClockText.format(outro)) }
        if map["voiceBoost"]?.bool == true { parts.append("boost on") }
        if map["trimSilence"]?.bool == true { parts.append("trim on") }
        return parts.isEmpty ? "no settings" : parts.joined(separator: ", ")
    }

    /// Prints matches a page at a time, so that a large library streams out
    /// and no single call holds the daemon for long.
    private func listLibrary(_ query: String, json: Bool, limit: Int) throws {
        let pageSize = 1_000
        var offset = 0
        if json { write("[") }
        while limit < 0 || offset < limit {
            let want = limit < 0 ? pageSize : min(pageSize, limit - offset)
            let items = try call(Client.reel, "LibrarySearch", [.string(query), .uint32(UInt32(offset)), .int32(Int32(want))])
                .first?.array?.compactMap(\.dictionary) ?? []
            for (i, item) in items.enumerated() {
                if json { write((offset + i == 0 ? "" : ",") + jsonLine(Client.json(item))) } else { write(Client.line(item)) }
            }
            offset += items.count
            if items.count < want { break }
        }
        if json { write("]") }
    }

    /// Paths become absolute (the daemon has another working directory); URIs pass through.
    static func absolute(_ item: String) -> String {
        if item.contains("://") { return item }
        let path = item.hasPrefix("/") ? item : FileManager.default.currentDirectoryPath + "/" + item
        return URL(fileURLWithPath: path).standardized.path
    }

    /// Runs LibraryImport, showing progress on a terminal, then a summary.
    private func importItems(_ inputs: [String], rescan: Bool) throws {
        try connection.addMatch("type='signal',sender='\(bus)',interface='\(Client.reel)',member='ImportProgress'")
        let message = try Message.methodCall(destination: bus, path: Client.path, interface: Client.reel, member: "LibraryImport",
                                             [.strings(inputs), .vardict(rescan ? [("rescan", .boolean(true))] : [])])
        let serial = connection.send(message)
        let terminal = isatty(2) == 1
        var reply: Message?
        // Files a second over the last seconds: the rate of the start (folders listed, unchanged
        // files passed over) says little of the rest.
        var rate = ImportRate()
        while reply == nil, connection.isConnected {
            guard let m = connection.nextMessage(timeoutMs: 1_000) else { continue }
            if m.kind == .methodReturn || m.kind == .error, m.replySerial == serial { reply = m; break }
            guard terminal, m.member == "ImportProgress", m.arguments.count == 2,
                  let done = m.arguments[0].int64, let total = m.arguments[1].int64 else { continue }
            let text = total == 0 ? "looking for what changed…" : rate.line(done: done, total: total, at: Date().timeIntervalSince1970)
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        }
        if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        guard let reply else { throw BusError.failed("the daemon went away during the import") }
        if let error = reply.asError { throw error }
        let summary = reply.arguments.first?.dictionary ?? [:]
        func count(_ key: String) -> Int64 { summary[key]?.int64 ?? 0 }
        var parts = ["added \(count("added"))", "already known \(count("known"))"]
        for (key, label) in [("updated", "read again"), ("moved", "moved"), ("removed", "gone from disk, removed")] where count(key) > 0 {
            parts.append("\(label) \(count(key))")
        }
        if let ignored = summary["ignored"]?.array, !ignored.isEmpty {
            let byExtension = ignored.compactMap { entry -> String? in
                guard case .dictEntry(let k, let v) = entry, let ext = k.string, let n = v.int64 else { return nil }
                return "\(n) .\(ext)"
            }
            parts.append("not media by their names: " + byExtension.joined(separator: ", "))
        }
        let problems = summary["problems"]?.array ?? []
        if count("standingProblems") > 0 { parts.append("\(count("standingProblems")) still unreadable (reel lib problems)") }
        write(parts.joined(separator: ", ") + (problems.isEmpty ? "" : "; \(problems.count) skipped:"))
        for case .structure(let f) in problems where f.count == 2 {
            write("  \((f[0].string ?? "?").printable): \(f[1].string ?? "?")")
        }
    }

    static func line(_ item: [String: DBusValue]) -> String {
        var parts = ["\(item["id"]?.int64 ?? 0)", (item["title"]?.string ?? (item["localPath"] ?? item["remoteURL"])?.string ?? "?").printable]
        if let artist = item["artist"]?.string { parts[1] += " — " + artist.printable }
        if let album = item["album"]?.string { parts[1] += " (\(album.printable))" }
        if let duration = item["duration"]?.int64 { parts.append(ClockText.format(duration)) }
        if let position = item["position"]?.int64, position > 0 { parts.append("at " + ClockText.format(position)) }
        if let saved = item["timeSaved"]?.int64, saved > 0 { parts.append("trimmed " + ClockText.format(saved)) }
        return parts.joined(separator: "  ")
    }

    static func text(_ key: String, _ value: DBusValue) -> String {
        switch key {
        case "duration", "position", "timeSaved": ClockText.format(value.int64 ?? 0)
        case "lastPlayed", "addedAt":
            ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(value.int64 ?? 0)))
        default: value.string ?? value.bool.map { $0 ? "yes" : "no" } ?? value.int64.map(String.init) ?? "?"
        }
    }

    static func json(_ item: [String: DBusValue]) -> [String: Any] {
        item.mapValues { v -> Any in
            if let s = v.string { return s }
            if let b = v.bool { return b }
            if let n = v.int64 { return n }
            return NSNull()
        }
    }
}
