import ReelCore

/// `addtagid` and `cleartagid`: tags a client gives a queued stream (a station's name, a show's
/// title), for as long as it is queued, as in MPD; a local file's tags are its own.
extension MPDCommands {
    static let tagCommands: [String: Entry] = [
        "addtagid": Entry(arguments: 3...3) { mpd, args, _ throws(Ack) in
            let (entry, tag) = try mpd.editableTag(args)
            guard let tag else { throw Ack.argument("reel keeps no \(args[1]!) tags") }
            var metadata = entry.metadata
            try tag.add(args[2]!, to: &metadata)
            try mpd.run(.setTags(entry.id, metadata))
            return Reply()
        },
        "cleartagid": Entry(arguments: 1...2) { mpd, args, _ throws(Ack) in
            let (entry, tag) = try mpd.editableTag(args)
            var metadata = entry.metadata
            if let tag { tag.clear(&metadata) } else if args.count == 1 { Tag.allCases.forEach { $0.clear(&metadata) } }
            try mpd.run(.setTags(entry.id, metadata))
            return Reply()
        },
    ]

    /// The entry of the request's id, if its tags may be edited, and the tag named (nil: none named,
    /// or one of MPD's that reel keeps no values for).
    private func editableTag(_ args: Arguments) throws(Ack) -> (QueueEntry, Tag?) {
        let (entry, _) = try entry(id: try args.id(0))
        var tag: Tag?
        if let name = args[1], case .kept(let kept) = try MPDCommands.tag(name) { tag = kept }
        guard entry.isRemote else { throw Ack(.permission, "Cannot edit tags of local file") }
        return (entry, tag)
    }
}

extension Tag {
    /// Adds a value, as MPD's TagBuilder does: a list tag gets one more, another takes this one.
    func add(_ value: String, to metadata: inout TrackMetadata) throws(Ack) {
        func number() throws(Ack) -> Int {
            guard let n = Int(value) else { throw Ack.argument("reel keeps \(rawValue) as a number, not \(value)") }
            return n
        }
        switch self {
        case .artist: metadata.artists.append(value)
        case .albumArtist: metadata.albumArtists.append(value)
        case .genre: metadata.genres.append(value)
        case .album: metadata.album = value
        case .title: metadata.title = value
        case .name: metadata.station = value
        case .date: metadata.date = value
        case .track: metadata.trackNumber = try number()
        case .disc: metadata.disc = try number()
        }
    }

    func clear(_ metadata: inout TrackMetadata) {
        switch self {
        case .artist: metadata.artists = []
        case .albumArtist: metadata.albumArtists = []
        case .genre: metadata.genres = []
        case .album: metadata.album = nil
        case .title: metadata.title = nil; metadata.streamTitle = nil
        case .name: metadata.station = nil
        case .date: metadata.date = nil
        case .track: metadata.trackNumber = nil
        case .disc: metadata.disc = nil
        }
    }
}
