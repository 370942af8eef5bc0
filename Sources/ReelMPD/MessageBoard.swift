/// MPD's client-to-client messages: channels a client subscribes to, and the messages sent to
/// them, kept for each subscriber until it reads them. As in MPD 0.23: at most 16 subscriptions
/// and 64 unread messages a client; a message reaches only clients subscribed when it is sent.
/// Beyond MPD: at most 256 KiB of unread text a client, so that one sender of 64 KiB lines cannot
/// make the daemon hold 4 MiB for each of 100 subscribers.
struct MessageBoard {
    static let maxSubscriptions = 16
    static let maxUnread = 64
    static let maxUnreadBytes = 256 << 10

    private var subscriptions: [Int: Set<String>] = [:]
    private var unread: [Int: [(channel: String, text: String)]] = [:]

    /// Letters, digits and `_-.:`, as MPD allows.
    static func isValid(_ channel: String) -> Bool {
        !channel.isEmpty && channel.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "_-.:".utf8.contains(byte)
        }
    }

    mutating func subscribe(_ client: Int, to channel: String) throws(Ack) {
        guard Self.isValid(channel) else { throw Ack.argument("invalid channel name") }
        let current = subscriptions[client, default: []]
        guard current.count < Self.maxSubscriptions else { throw Ack(.exist, "subscription list is full") }
        guard !current.contains(channel) else { throw Ack(.exist, "already subscribed to this channel") }
        subscriptions[client, default: []].insert(channel)
    }

    mutating func unsubscribe(_ client: Int, from channel: String) throws(Ack) {
        guard subscriptions[client]?.remove(channel) != nil else { throw Ack.noExist("not subscribed to this channel") }
    }

    /// Every channel some client is subscribed to, sorted.
    var channels: [String] { Set(subscriptions.values.joined()).sorted() }

    /// Delivers `text` to the channel's subscribers; the clients whose unread list was empty (an
    /// `idle message` of theirs is to wake).
    mutating func send(_ text: String, to channel: String) throws(Ack) -> [Int] {
        guard Self.isValid(channel) else { throw Ack.argument("invalid channel name") }
        var delivered = false
        var woken: [Int] = []
        for (client, channels) in subscriptions where channels.contains(channel) {
            let list = unread[client, default: []]
            let bytes = list.reduce(0) { $0 + $1.text.utf8.count }
            guard list.count < Self.maxUnread, bytes + text.utf8.count <= Self.maxUnreadBytes else { continue }
            if list.isEmpty { woken.append(client) }
            unread[client, default: []].append((channel, text))
            delivered = true
        }
        guard delivered else { throw Ack.noExist("nobody is subscribed to this channel") }
        return woken
    }

    /// The client's unread messages, oldest first; they are read.
    mutating func read(_ client: Int) -> [(channel: String, text: String)] {
        unread.removeValue(forKey: client) ?? []
    }

    /// Whether the client is subscribed to anything (its leaving changes `channels`).
    func hasSubscriptions(_ client: Int) -> Bool { !(subscriptions[client]?.isEmpty ?? true) }

    /// A client that left: its subscriptions and unread messages go.
    mutating func remove(_ client: Int) {
        subscriptions[client] = nil
        unread[client] = nil
    }
}
