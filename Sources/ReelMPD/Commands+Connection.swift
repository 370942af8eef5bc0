import ReelCore

/// Commands about the connection itself: who the client is and what it wants to see.
extension MPDCommands {
    static let connectionCommands: [String: Entry] = [
        "ping": Entry(arguments: 0...0, open: true) { _, _, _ in Reply() },
        "password": Entry(arguments: 1...1, open: true) { mpd, args, client throws(Ack) in
            guard let password = mpd.password, args[0] == password else {
                throw Ack(.password, "incorrect password")
            }
            client.authorized = true
            return Reply()
        },
        "commands": Entry(arguments: 0...0, open: true) { _, _, client in
            var reply = Reply()
            for name in (Array(table.keys) + MPDCommands.connectionNames).sorted()
            where client.authorized || table[name]?.open != false {
                reply.add("command", name)
            }
            return reply
        },
        "notcommands": Entry(arguments: 0...0, open: true) { _, _, client in
            var reply = Reply()
            for name in table.keys.sorted() where !client.authorized && table[name]?.open == false {
                reply.add("command", name)
            }
            return reply
        },
        "tagtypes": Entry(arguments: 0...Int.max) { _, args, client throws(Ack) in
            var reply = Reply()
            guard let verb = args[0] else {
                for tag in Tag.allCases where client.tags.contains(tag.bit) { reply.add("tagtype", tag.rawValue) }
                return reply
            }
            var named: [Tag] = []
            for name in args.values.dropFirst() {
                if let tag = Tag(named: name) { named.append(tag); continue }
                guard Tag.mpdSpelling[name.lowercased()] != nil else { throw Ack.argument("Unknown tag type: \(name)") }
            }
            switch verb {
            case "all": client.tags = .all
            case "clear": client.tags = []
            case "enable": client.tags.formUnion(TagSet(named))
            case "disable": client.tags.subtract(TagSet(named))
            default: throw Ack.argument("Unknown sub command: \(verb)")
            }
            return reply
        },
        // One partition, as MPD 0.23 has before any is made: cantata asks.
        "listpartitions": Entry(arguments: 0...0) { _, _, _ in
            var reply = Reply()
            reply.add("partition", "default")
            return reply
        },
        "partition": Entry(arguments: 1...1) { _, args, _ throws(Ack) in
            guard args[0] == "default" else { throw Ack.noExist("partition does not exist") }
            return Reply()
        },
        "urlhandlers": Entry(arguments: 0...0) { _, _, _ in
            var reply = Reply()
            for scheme in URLParts.playableSchemes { reply.add("handler", "\(scheme)://") }
            return reply
        },
        "decoders": Entry(arguments: 0...0) { _, _, _ in
            var reply = Reply()
            reply.add("plugin", "mpv")
            for suffix in MediaExtension.all.sorted() {
                reply.add("suffix", suffix)
            }
            return reply
        },
        "binarylimit": Entry(arguments: 1...1) { _, args, client throws(Ack) in
            let limit = try args.unsigned(0)
            guard limit >= 64 else { throw Ack.argument("Value too small") }
            client.binaryLimit = min(limit, 1 << 24)
            return Reply()
        },
        "outputs": Entry(arguments: 0...0) { _, _, _ in
            var reply = Reply()
            reply.add("outputid", 0)
            reply.add("outputname", "reel")
            reply.add("plugin", "mpv")
            reply.add("outputenabled", 1)
            return reply
        },
        "enableoutput": Entry(arguments: 1...1) { _, args, _ throws(Ack) in
            guard try args.unsigned(0) == 0 else { throw Ack.noExist("No such audio output") }
            return Reply()
        },
        "disableoutput": Entry(arguments: 1...1) { _, args, _ throws(Ack) in
            try MPDCommands.refuseToDisable(args)
        },
        "toggleoutput": Entry(arguments: 1...1) { _, args, _ throws(Ack) in
            try MPDCommands.refuseToDisable(args)
        },
    ]

    /// Handled by the connection rather than the table; `commands` lists them too.
    static let connectionNames = ["close", "command_list_begin", "command_list_end", "command_list_ok_begin", "idle", "noidle"]

    private static func refuseToDisable(_ args: Arguments) throws(Ack) -> Reply {
        guard try args.unsigned(0) == 0 else { throw Ack.noExist("No such audio output") }
        throw Ack(.system, "reel's one output cannot be turned off; pause, or set the volume to 0")
    }
}
