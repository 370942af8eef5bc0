/// Client-to-client messages (`subscribe`, `sendmessage`, …), as MPD 0.23 has them: mpdscribble
/// and cantata's dynamic playlists talk to their users through them.
extension MPDCommands {
    static let messageCommands: [String: Entry] = [
        "subscribe": Entry(arguments: 1...1) { mpd, args, client throws(Ack) in
            try mpd.messages.subscribe(client.id, to: args[0]!)
            mpd.raised.insert(.subscription)
            return Reply()
        },
        "unsubscribe": Entry(arguments: 1...1) { mpd, args, client throws(Ack) in
            try mpd.messages.unsubscribe(client.id, from: args[0]!)
            mpd.raised.insert(.subscription)
            return Reply()
        },
        "channels": Entry(arguments: 0...0) { mpd, _, _ in
            var reply = Reply()
            for channel in mpd.messages.channels { reply.add("channel", channel) }
            return reply
        },
        "readmessages": Entry(arguments: 0...0) { mpd, _, client in
            var reply = Reply()
            for message in mpd.messages.read(client.id) {
                reply.add("channel", message.channel)
                reply.add("message", message.text)
            }
            return reply
        },
        "sendmessage": Entry(arguments: 2...2) { mpd, args, _ throws(Ack) in
            mpd.messageNews.formUnion(try mpd.messages.send(args[1]!, to: args[0]!))
            return Reply()
        },
    ]

    /// The clients that have new messages since the last call (their `idle message` wakes).
    public func takeMessageNews() -> Set<Int> {
        defer { messageNews = [] }
        return messageNews
    }

    /// A client's connection ended: its subscriptions go, which other clients' `idle subscription` sees.
    public func clientLeft(_ id: Int) {
        if messages.hasSubscriptions(id) { raised.insert(.subscription) }
        messages.remove(id)
    }

    /// A number for a new connection, never given before.
    func newClientID() -> Int {
        nextClientID += 1
        return nextClientID
    }
}
