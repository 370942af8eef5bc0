import ReelCore

/// Transport, seeking, volume and play options.
extension MPDCommands {
    static let playbackCommands: [String: Entry] = [
        "play": Entry(arguments: 0...1) { mpd, args, _ throws(Ack) in
            if args.count == 1, try args.int(0) >= 0 {
                try mpd.run(.goTo(try mpd.entry(at: args.int(0)).id))
            } else {
                try mpd.run(.play)   // MPD: -1 or nothing plays the current song
            }
            return Reply()
        },
        "playid": Entry(arguments: 0...1) { mpd, args, _ throws(Ack) in
            if args.count == 1, try args.int(0) >= 0 {
                try mpd.run(.goTo(try mpd.entry(id: args.id(0)).0.id))
            } else {
                try mpd.run(.play)
            }
            return Reply()
        },
        "pause": Entry(arguments: 0...1) { mpd, args, _ throws(Ack) in
            try mpd.run(args.count == 0 ? .playPause : .setPaused(try args.bool(0)))
            return Reply()
        },
        "stop": Entry(arguments: 0...0) { mpd, _, _ throws(Ack) in try mpd.run(.stop); return Reply() },
        "next": Entry(arguments: 0...0) { mpd, _, _ throws(Ack) in try mpd.skip(.next); return Reply() },
        "previous": Entry(arguments: 0...0) { mpd, _, _ throws(Ack) in try mpd.skip(.previous); return Reply() },
        "seek": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            try mpd.seek(mpd.entry(at: args.int(0)), to: args.seconds(1))
            return Reply()
        },
        "seekid": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            try mpd.seek(mpd.entry(id: args.id(0)).0, to: args.seconds(1))
            return Reply()
        },
        "seekcur": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            guard let current = mpd.session.snapshot.current, mpd.session.snapshot.status != .stopped else {
                throw Ack(.playerSync, "Not playing")
            }
            let time = try args.seconds(0)
            if let sign = args[0]?.first, sign == "+" || sign == "-" {
                try mpd.run(.seek(by: time))
            } else {
                try mpd.seek(current, to: time)
            }
            return Reply()
        },
        "setvol": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let volume = try args.int(0)
            guard (0...100).contains(volume) else { throw Ack.argument("Invalid volume value") }
            try mpd.run(.setVolume(Double(volume) / 100))
            return Reply()
        },
        "volume": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let change = try args.int(0)
            guard (-100...100).contains(change) else { throw Ack.argument("Invalid volume value") }
            try mpd.run(.setVolume(Double(min(max(mpd.volume + change, 0), 100)) / 100))
            return Reply()
        },
        // MPD's repeat and single are two of reel's settings: the loop (None, Track or
        // Playlist, as MPRIS shows it) and whether to stop after the song. Repeat with
        // single is Loop Track; single alone stops after each song, oneshot after this one.
        "repeat": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let snapshot = mpd.session.snapshot
            if try args.bool(0) {
                try mpd.run(.setLoop(snapshot.loop == .track || snapshot.stopAfter == .eachEntry ? .track : .playlist))
            } else {
                if snapshot.loop == .track { try mpd.run(.setStopAfter(.eachEntry)) }   // single stays on
                try mpd.run(.setLoop(.none))
            }
            return Reply()
        },
        "single": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            let loop = mpd.session.snapshot.loop
            switch args[0] {
            case "oneshot":
                try mpd.run(.setStopAfter(.thisEntry))
            case _ where try args.bool(0):
                if loop == .playlist { try mpd.run(.setLoop(.track)) }
                try mpd.run(.setStopAfter(.eachEntry))
            default:
                if loop == .track { try mpd.run(.setLoop(.playlist)) }
                try mpd.run(.setStopAfter(.never))
            }
            return Reply()
        },
        "random": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            try mpd.run(.setShuffle(try args.bool(0)))
            return Reply()
        },
        "consume": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            try mpd.run(.setConsume(try args.bool(0)))   // (oneshot is MPD 0.24's)
            return Reply()
        },
        "crossfade": Entry(arguments: 1...1) { _, args, _ throws(Ack) in
            guard try args.unsigned(0) == 0 else {
                throw Ack.argument("reel plays tracks gapless, without crossfade")
            }
            return Reply()
        },
        "mixrampdb": Entry(arguments: 1...1) { _, args, _ throws(Ack) in
            guard let value = Double(args[0] ?? ""), value == 0 else {
                throw Ack.argument("reel plays tracks gapless, without MixRamp")
            }
            return Reply()
        },
        "mixrampdelay": Entry(arguments: 1...1) { _, _, _ throws(Ack) in
            throw Ack.argument("reel plays tracks gapless, without MixRamp")
        },
        "replay_gain_mode": Entry(arguments: 1...1) { mpd, args, _ throws(Ack) in
            guard let mode = ReplayGain(rawValue: args[0] ?? "") else {
                throw Ack.argument(args[0] == "auto" ? "reel levels by off, track or album, not auto"
                                   : "Unrecognized replay gain mode: \(args[0] ?? "")")
            }
            try mpd.run(.setReplayGain(mode))
            return Reply()
        },
    ]

    /// Seeks within an entry, starting it first when another plays; `time` counts from the
    /// start of its range, as in MPD.
    func seek(_ entry: QueueEntry, to time: MediaTime) throws(Ack) {
        if let length = entry.playedLength, time > length {
            throw Ack.argument("Seek position is past the end of the song")
        }
        guard time >= 0 else { throw Ack.argument("Negative seek position") }
        try run(.startAt(entry.id, time + (entry.range?.start ?? 0)))
    }

    /// `next` and `previous`: as in MPD, a paused player plays the song it goes to
    /// (MPRIS's Next keeps a pause: the engine's rule).
    func skip(_ command: Command) throws(Ack) {
        let paused = session.snapshot.status == .paused
        try run(command)
        if paused { try run(.play) }
    }
}
