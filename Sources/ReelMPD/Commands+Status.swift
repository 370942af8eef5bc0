import Glibc
import ReelCore
import ReelSystem

/// `status`, `currentsong`, `stats` and the mixer, from the session's snapshot.
extension MPDCommands {
    static let statusCommands: [String: Entry] = [
        "status": Entry(arguments: 0...0) { mpd, _, _ in mpd.status() },
        "currentsong": Entry(arguments: 0...0) { mpd, _, client in
            var reply = Reply()
            let queue = mpd.queue
            if let current = queue.currentID, let position = queue.index(of: current) {
                mpd.addQueueSongs([position], tags: client.tags, to: &reply)
                // The chapter heard, as `Name` (which MPD gives a stream's name, and clients show
                // before the title: mpc's "Interview: Host - Episode 1"); a station keeps its own.
                let snapshot = mpd.session.snapshot, entry = queue.entries[position]
                if let chapter = snapshot.chapter, entry.metadata.station == nil, client.tags.contains(Tag.name.bit),
                   entry.metadata.chapters.indices.contains(chapter) {
                    reply.add("Name", entry.metadata.chapters[chapter].title)
                }
            }
            return reply
        },
        "stats": Entry(arguments: 0...0) { mpd, _, _ in mpd.stats() },
        "getvol": Entry(arguments: 0...0) { mpd, _, _ in
            var reply = Reply()
            reply.add("volume", mpd.volume)
            return reply
        },
        "replay_gain_status": Entry(arguments: 0...0) { mpd, _, _ in
            var reply = Reply()
            reply.add("replay_gain_mode", mpd.session.snapshot.replayGain.rawValue)
            return reply
        },
    ]

    /// The volume as MPD shows it, 0 to 100 (reel's 100 % is MPD's 100; above it shows as 100).
    var volume: Int { min(Int((session.snapshot.volume * 100).rounded()), 100) }

    static func single(_ stopAfter: StopAfter) -> String {
        switch stopAfter {
        case .never: "0"
        case .eachEntry: "1"
        case .thisEntry: "oneshot"
        }
    }

    func status() -> Reply {
        changes.syncQueue(session)
        let snapshot = session.snapshot
        let queue = self.queue
        var reply = Reply()
        reply.add("volume", volume)
        reply.add("repeat", snapshot.loop == .none ? 0 : 1)
        reply.add("random", snapshot.shuffle ? 1 : 0)
        reply.add("single", snapshot.loop == .track ? "1" : Self.single(snapshot.stopAfter))
        reply.add("consume", snapshot.consume ? 1 : 0)
        reply.add("partition", "default")
        reply.add("playlist", changes.version)
        reply.add("playlistlength", snapshot.queueCount)
        reply.add("mixrampdb", "0.000000")
        let state = snapshot.status.mpdState
        reply.add("state", state)
        if let current = snapshot.current, let position = queue.index(of: current.id) {
            reply.add("song", position)
            reply.add("songid", current.id.raw)
            if state != "stop" {
                // A ranged song's time runs from its range's start, as in MPD.
                let elapsed = max(session.position() - (current.range?.start ?? 0), 0)
                let length = current.playedLength
                reply.add("time", "\((elapsed + 500_000) / 1_000_000):\(((length ?? 0) + 500_000) / 1_000_000)")
                reply.addSeconds("elapsed", elapsed)
                if let length { reply.addSeconds("duration", length) }
                let (audio, bitrate) = session.audioNow()
                if let bitrate { reply.add("bitrate", bitrate) }
                if let audio {
                    // MPD's notation: rate:bits:channels, "f" for floating-point samples.
                    reply.add("audio", "\(audio.sampleRate):\(audio.bits.map(String.init) ?? "f"):\(audio.channels)")
                }
            }
            let next = snapshot.loop == .track ? current.id : queue.entry(after: current.id, wrap: snapshot.loop == .playlist)
            if let next, let nextPosition = queue.index(of: next) {
                reply.add("nextsong", nextPosition)
                reply.add("nextsongid", next.raw)
            }
        }
        if let updating { reply.add("updating_db", updating) }
        if let error = snapshot.lastError { reply.add("error", error) }
        return reply
    }

    func stats() -> Reply {
        var reply = Reply()
        let items = library == nil ? [] : ((try? tree().songs.map(\.item)) ?? [])
        reply.add("artists", Set(items.compactMap(\.artist)).count)
        reply.add("albums", Set(items.compactMap(\.album)).count)
        reply.add("songs", items.count)
        reply.add("uptime", (monotonicNow() - started) / 1_000_000)
        reply.add("db_playtime", items.compactMap(\.duration).reduce(0, +) / 1_000_000)
        reply.add("playtime", playtime / 1_000_000)
        // Cantata loads no library without it, and mpc prints 1970: the last update, else the
        // last item added, else start-up.
        reply.add("db_update", lastUpdate ?? items.map(\.addedAt).filter { $0 > 0 }.max() ?? startedAt)
        return reply
    }

    /// Now, in Unix seconds.
    static func wallClock() -> Int64 { wallClockNanoseconds() / 1_000_000_000 }
}
