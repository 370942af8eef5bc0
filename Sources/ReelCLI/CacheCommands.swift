import Foundation
import ReelCore
import ReelDBus

/// `reel download`, `reel sync` and `reel cache …`.
extension Client {
    func runCache(_ command: CLICommand) throws {
        switch command {
        case .download(let items, let background):
            try watchDownloads(background: background) {
                // Library ids stay ids; anything else that is not a URL is a path, made absolute.
                let named = items.map { Int64($0) != nil ? $0 : Client.absolute($0) }
                return try call(Client.reel, "Download", [.strings(named)]).first?.stringArray ?? []
            }
        case .cancelDownload(let urls):
            for url in urls {
                let pending = try call(Client.reel, "CancelDownload", [.string(url)]).first?.bool ?? false
                write(pending ? "cancelled \(url)" : "\(url) was not downloading")
            }
        case .cancelAllDownloads:
            let n = try call(Client.reel, "CancelAllDownloads").first?.int64 ?? 0
            write("cancelled \(n) \(n == 1 ? "download" : "downloads")")
        case .sync(let feed, let download, let background):
            try watchDownloads(background: background) {
                let reply = try call(Client.reel, "Sync", [.string(Client.absolute(feed)), .boolean(download)], timeoutMs: 120_000)
                let urls = reply.count > 2 ? reply[2].stringArray ?? [] : []
                write("added \(reply.first?.int64 ?? 0), already known \(reply.count > 1 ? reply[1].int64 ?? 0 : 0)"
                      + (download ? ", \(urls.count) to download" : ""))
                return urls
            }
        case .cacheList(let json):
            let rows = (try call(Client.reel, "CacheList").first?.array ?? []).compactMap { value -> [String: Any]? in
                guard case .structure(let f) = value, f.count == 5 else { return nil }
                return ["url": f[0].string ?? "", "length": f[1].int64 ?? -1, "present": f[2].int64 ?? 0,
                        "lastRead": f[3].int64 ?? 0, "downloaded": f[4].string ?? ""]
            }
            let failed = (try call(Client.reel, "FailedDownloads").first?.array ?? []).compactMap { value -> [String: Any]? in
                guard case .structure(let f) = value, f.count == 2 else { return nil }
                return ["url": f[0].string ?? "", "error": f[1].string ?? ""]
            }
            if json { write(jsonLine(rows + failed)); return }
            for row in rows {
                let length = row["length"] as! Int64, present = row["present"] as! Int64
                let percent = length > 0 ? "\(present * 100 / length) %" : "?"
                let date = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(row["lastRead"] as! Int64)))
                let stored = (row["downloaded"] as! String).isEmpty ? "" : "  downloaded"
                write("\((row["url"] as! String).printable)  \(length >= 0 ? ByteCount.text(length) : "? B")  \(percent)  \(date)\(stored)")
            }
            for row in failed {
                write("\((row["url"] as! String).printable)  download failed: \((row["error"] as! String).printable)")
            }
        case .cachePath(let url): write(try call(Client.reel, "CachePath", [.string(url)]).first?.string ?? "")
        case .cacheClear(let url):
            let n = try call(Client.reel, "CacheClear", [.string(url ?? "")]).first?.int64 ?? 0
            write("dropped \(n) \(n == 1 ? "resource" : "resources")")
        case .cacheSize:
            let reply = try call(Client.reel, "CacheSize")
            write("\(ByteCount.text(reply.first?.int64 ?? 0)) of \(ByteCount.text(reply.count > 1 ? reply[1].int64 ?? 0 : 0))")
        default: break
        }
    }

    /// Starts downloads with `start` (which returns their URLs) and, unless
    /// `background`, shows their progress until each has finished.
    private func watchDownloads(background: Bool, _ start: () throws -> [String]) throws {
        try connection.addMatch("type='signal',sender='\(bus)',interface='\(Client.reel)',member='DownloadProgress'")
        try connection.addMatch("type='signal',sender='\(bus)',interface='\(Client.reel)',member='DownloadFinished'")
        let urls = try start()
        guard !background, !urls.isEmpty else {
            if !urls.isEmpty { write("downloading \(urls.count) in the background") }
            return
        }
        var waiting = Set(urls)
        var progress: [String: (Int64, Int64)] = [:]
        var failures: [(String, String)] = []
        let started = Date()
        let terminal = isatty(2) == 1
        while !waiting.isEmpty, connection.isConnected {
            guard let m = connection.nextMessage(timeoutMs: 1_000), m.kind == .signal,
                  let url = m.arguments.first?.string, waiting.contains(url) else { continue }
            if m.member == "DownloadProgress", m.arguments.count == 3 {
                progress[url] = (m.arguments[1].int64 ?? 0, m.arguments[2].int64 ?? -1)
            } else if m.member == "DownloadFinished", m.arguments.count == 3 {
                waiting.remove(url)
                let error = m.arguments[2].string ?? ""
                if error.isEmpty {
                    if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    write("downloaded \(url) → \(m.arguments[1].string ?? "")")
                } else {
                    failures.append((url, error))
                }
            }
            guard terminal else { continue }
            let present = progress.values.reduce(0) { $0 + $1.0 }
            let total = progress.values.reduce(0) { $0 + max($1.1, $1.0) }
            let rate = Double(present) / max(Date().timeIntervalSince(started), 0.001)
            let eta = rate > 0 && total > present ? Int64(Double(total - present) / rate * 1_000_000) : 0
            FileHandle.standardError.write(Data(String(format: "\r\u{1B}[K%d/%d  %@ of %@  %@/s  ETA %@",
                                                       urls.count - waiting.count, urls.count, ByteCount.text(present),
                                                       ByteCount.text(total), ByteCount.text(Int64(rate)),
                                                       ClockText.format(eta)).utf8))
        }
        if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        guard connection.isConnected else { throw BusError.failed("the daemon went away during the download") }
        guard failures.isEmpty else {
            throw BusError.failed(failures.map { "cannot download \($0.0): \($0.1)" }.joined(separator: "\n"))
        }
    }

}
