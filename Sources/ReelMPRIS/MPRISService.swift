import FoundationEssentials
import Glibc
import ReelCore
import ReelDBus

/// Serves reel's object on the bus: decodes and checks calls against the
/// introspection XML, turns them into commands, and turns snapshot changes
/// and engine announcements into signals.
public final class MPRISService {
    let connection: Connection
    let host: any Session
    let library: (any LibrarySession)?
    let cache: (any CacheSession)?
    private let introspectionXML: String
    private let interfaces: [String: InterfaceSpec]
    private let version: String
    private var published: Snapshot
    private var publishedLibraryError: String?
    private var publishedWatch = ""

    public init(connection: Connection, host: any Session, library: (any LibrarySession)?, cache: (any CacheSession)? = nil,
                introspectionXML: String, version: String) {
        self.cache = cache
        self.connection = connection
        self.host = host
        self.library = library
        self.introspectionXML = introspectionXML
        self.version = version
        interfaces = Dictionary(InterfaceSpec.parse(introspectionXML).map { ($0.name, $0) }) { a, _ in a }
        published = host.snapshot
        publishedLibraryError = host.libraryError
        publishedWatch = library?.watchStatus ?? ""
    }

    // MARK: Incoming calls

    /// Answers one incoming message. Every method call gets a reply or an error.
    public func handle(_ message: Message) {
        guard message.kind == .methodCall else { return }
        let reply: Message?
        do {
            guard let out = try dispatch(message) else { return }   // answered later
            reply = try message.makeReturn(out)
        } catch let error as BusError {
            reply = message.makeError(error)
        } catch let error as SessionError {
            reply = message.makeError(Self.busError(error))
        } catch {
            reply = message.makeError(.failed("\(error)"))
        }
        if let reply { connection.enqueue(reply) }
    }

    /// Sends a reply that was deferred (a long-running call has finished).
    func reply(to message: Message, _ values: [DBusValue]) {
        if let reply = try? message.makeReturn(values) { connection.enqueue(reply) }
        connection.flush()
    }

    func flush() { connection.flush() }

    private func dispatch(_ message: Message) throws -> [DBusValue]? {
        let member = message.member ?? ""
        let path = message.path ?? ""
        guard path == MPRIS.objectPath else {
            if message.interface == "org.freedesktop.DBus.Introspectable", member == "Introspect",
               let xml = parentNode(path) { return [.string(xml)] }
            if message.interface == "org.freedesktop.DBus.Peer" || (message.interface == nil && member == "Ping") {
                return []
            }
            throw BusError.unknownObject("no object at \(path); reel serves \(MPRIS.objectPath)")
        }
        let (interface, method) = try resolve(interface: message.interface, member: member)
        let signature = message.signature
        guard signature == method.inSignature else {
            throw BusError.invalidArgs("\(interface).\(member) takes (\(method.inSignature)), not (\(signature))")
        }
        let args = message.arguments
        switch (interface, member) {
        case ("org.freedesktop.DBus.Introspectable", "Introspect"): return [.string(introspectionXML)]
        case ("org.freedesktop.DBus.Peer", "Ping"): return []
        case ("org.freedesktop.DBus.Peer", "GetMachineId"): return [.string(machineID())]
        case (MPRIS.properties, "Get"):
            let (interface, name) = (args[0].string!, args[1].string!)
            _ = try property(interface, name)   // unknown interface or property: a clear error
            return [.variant(try read(interface, name))]
        case (MPRIS.properties, "GetAll"):
            let name = args[0].string!
            guard let spec = interfaces[name] else { throw BusError.unknownInterface("no interface \(name)") }
            let pairs = try spec.properties.keys.sorted().map { ($0, try read(name, $0)) }
            return [.vardict(pairs)]
        case (MPRIS.properties, "Set"):
            try write(args[0].string!, args[1].string!, args[2])
            return []
        case (MPRIS.root, "Raise"): return []   // CanRaise is false: no window to raise
        case (MPRIS.root, "Quit"): host.quit(); return []
        case (MPRIS.player, "Next"): try run(.next)
        case (MPRIS.player, "Previous"): try run(.previous)
        case (MPRIS.player, "Pause"): try run(.pause)
        case (MPRIS.player, "PlayPause"): try run(.playPause)
        case (MPRIS.player, "Stop"): try run(.stop)
        case (MPRIS.player, "Play"): try run(.play)
        case (MPRIS.player, "Seek"): try run(.seek(by: args[0].int64!))
        case (MPRIS.player, "SetPosition"):
            // A track id that is not ours can never be current: ignored, as MPRIS says.
            if let id = TrackID.entry(args[0].string!) { try run(.setPosition(id, args[1].int64!)) }
        case (MPRIS.player, "OpenUri"):
            let uris = try expanded(args[0].string!)
            try run(.add(uris: uris, after: nil, atStart: false, play: true))
        case (MPRIS.trackList, "GetTracksMetadata"):
            let queue = host.queue
            let wanted = (args[0].array ?? []).compactMap { $0.string.flatMap(TrackID.entry) }
            return [.array(elementSignature: "a{sv}", wanted.compactMap { queue[$0].map(MetadataMap.of) })]
        case (MPRIS.trackList, "AddTrack"):
            let uris = try expanded(args[0].string!)
            let afterPath = args[1].string!
            let atStart = afterPath == MPRIS.noTrack
            let after = atStart ? nil : try entry(afterPath)
            try run(.add(uris: uris, after: after, atStart: atStart, play: args[2].bool!))
        case (MPRIS.trackList, "RemoveTrack"): try run(.remove(try entry(args[0].string!)))
        case (MPRIS.trackList, "GoTo"): try run(.goTo(try entry(args[0].string!)))
        case (MPRIS.reel, "Add"):
            let given = args[0].stringArray ?? []
            try Self.checkAddSize(given.count)
            let uris = try given.flatMap(expanded)
            try Self.checkAddSize(uris.count)   // a playlist's entries count
            // Ids are handed out in sequence: the new entries have the ids between these two.
            let first = host.queue.nextID
            try run(.add(uris: uris, after: nil, atStart: false, play: args[1].bool!))
            return [.objectPaths((first..<host.queue.nextID).map { TrackID.path(EntryID($0)) })]
        case (MPRIS.reel, "QueuePage"):
            return queuePage(offset: Int(args[0].int64!), limit: Int(args[1].int64!))
        case (MPRIS.reel, "Clear"): try run(.clear)
        case (MPRIS.reel, "GetChapters"):
            guard let entry = host.queue[try entry(args[0].string!)] else { return [] }
            return [PropertyValues.chapters(entry.metadata.chapters)]
        case (MPRIS.reel, "GoToChapter"): try run(.goToChapter(try Self.chapterMove(args[0].string!)))
        case (MPRIS.reel, "Sleep"):
            let mode: SleepMode?
            do { mode = try SleepMode.parse(args[0].string!) } catch { throw Self.busError(SessionError(error)) }
            try run(.setSleep(mode))
        case (MPRIS.reel, _):
            return try dispatchCache(message, member, args)   // which hands the library's calls on
        case (MPRIS.playlists, _):
            return try dispatchLibrary(message, interface, member, args)
        default:
            throw BusError.unknownMethod("\(interface).\(member) is not implemented")
        }
        return []
    }

    private func resolve(interface: String?, member: String) throws -> (String, InterfaceSpec.Method) {
        if let interface {
            guard let spec = interfaces[interface] else {
                throw BusError.unknownInterface("no interface \(interface) at \(MPRIS.objectPath)")
            }
            guard let method = spec.methods[member] else {
                throw BusError.unknownMethod("no method \(member) in \(interface)")
            }
            return (interface, method)
        }
        // D-Bus allows calls without an interface: take the unique match.
        let matches = interfaces.values.filter { $0.methods[member] != nil }
        guard matches.count == 1, let only = matches.first else {
            throw BusError.unknownMethod(matches.isEmpty ? "no method \(member)" : "\(member) is ambiguous; name the interface")
        }
        return (only.name, only.methods[member]!)
    }

    private func property(_ interface: String, _ name: String) throws -> (InterfaceSpec.Property, String) {
        guard let spec = interfaces[interface] else { throw BusError.unknownInterface("no interface \(interface)") }
        guard let property = spec.properties[name] else {
            throw BusError.unknownProperty("no property \(name) in \(interface)")
        }
        return (property, name)
    }

    private func read(_ interface: String, _ name: String) throws -> DBusValue {
        if interface == MPRIS.reel, name == "CacheFill" {
            let fill = cache?.cacheFill
            return .structure([.int64(fill?.present ?? -1), .int64(fill.map { $0.length ?? -1 } ?? -1)])
        }
        if interface == MPRIS.reel, name == "LibraryWatch" { return .string(library?.watchStatus ?? "") }
        if interface == MPRIS.reel, name == "TimeSavedInAll" {
            return .int64((try? library?.timeSavedInAll()) ?? -1)
        }
        guard let value = interface == MPRIS.playlists ? libraryProperty(name)
                : PropertyValues.value(interface, name, host: host, version: version) else {
            throw BusError.unknownProperty("no property \(name) in \(interface)")
        }
        return value
    }

    private func write(_ interface: String, _ name: String, _ variant: DBusValue) throws {
        let (spec, _) = try property(interface, name)
        guard spec.writable else { throw BusError.propertyReadOnly("\(interface).\(name) is read-only") }
        let value = variant.unwrapped
        guard value.signature == spec.type else {
            throw BusError.invalidArgs("\(name) is of type \(spec.type), not \(value.signature)")
        }
        switch name {
        case "LoopStatus":
            guard let loop = LoopStatus(rawValue: value.string!) else {
                throw BusError.invalidArgs("LoopStatus must be None, Track or Playlist, not \"\(value.string!)\"")
            }
            try run(.setLoop(loop))
        case "Rate": try run(.setRate(value.double!))
        case "Shuffle": try run(.setShuffle(value.bool!))
        case "Volume": try run(.setVolume(value.double!))
        case "ReplayGain":
            guard let mode = ReplayGain(rawValue: value.string!) else {
                throw BusError.invalidArgs("ReplayGain must be off, track or album, not \"\(value.string!)\"")
            }
            try run(.setReplayGain(mode))
        case "Video": try run(.setVideo(value.bool!))
        case "ChapterKeys":
            guard let keys = ChapterKeys(rawValue: value.string!) else {
                throw BusError.invalidArgs("ChapterKeys must be auto or never, not \"\(value.string!)\"")
            }
            try run(.setChapterKeys(keys))
        default: throw BusError.propertyReadOnly("\(interface).\(name) cannot be set")
        }
    }

    private func entry(_ path: String) throws -> EntryID {
        guard let id = TrackID.entry(path), host.queue[id] != nil else {
            throw BusError(MPRIS.errorNoSuchTrack, "no track \(path) in the queue")
        }
        return id
    }

    /// A URI problem under the D-Bus error names reel's clients know.
    /// A session's refusal under the D-Bus error names reel's clients know.
    public static func busError(_ error: SessionError) -> BusError {
        switch error.kind {
        case .invalidArgument: BusError.invalidArgs(error.message)
        case .invalidURI: BusError(MPRIS.errorInvalidURI, error.message)
        case .noSuchFile: BusError(MPRIS.errorNoSuchFile, error.message)
        case .noSuchItem: BusError(MPRIS.errorNoSuchItem, error.message)
        case .noLibrary: BusError(MPRIS.errorNoLibrary, error.message)
        case .failed: BusError.failed(error.message)
        case .noSuchTrack(let id): BusError(MPRIS.errorNoSuchTrack, "no track \(TrackID.path(id)) in the queue")
        }
    }

    /// The most entries one Add queues: each costs the loop 28 µs in a debug
    /// build, and no other client is answered meanwhile (`reel add` sends 1,000 a call).
    static let longestAdd = 2_000

    private static func checkAddSize(_ count: Int) throws {
        guard count <= longestAdd else {
            throw BusError.invalidArgs("\(count) entries in one Add; at most \(longestAdd) at once (send the rest in further calls)")
        }
    }

    private func expanded(_ text: String) throws -> [String] {
        try host.expand(text)
    }

    private func run(_ command: Command) throws(SessionError) {
        try host.run(command)
    }

    /// Introspection for the nodes above our object, so that tools can walk down to it.
    private func parentNode(_ path: String) -> String? {
        let target = MPRIS.objectPath
        let prefix = path == "/" ? "/" : path + "/"
        guard target.hasPrefix(prefix) else { return nil }
        let child = target.dropFirst(prefix.count).split(separator: "/").first.map(String.init) ?? ""
        return "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
            + " \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n  <node name=\"\(child)\"/>\n</node>\n"
    }

    private func machineID() -> String {
        ((try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? "")
            .trimmed()
    }

    // MARK: Outgoing signals

    /// Emits, for one loop turn, the PropertiesChanged signals for whatever
    /// changed since the last call and the engine's announcements, then flushes.
    /// Without `sessionChanged` (the session is as it was at the last call) and
    /// announcements, only what lies outside the session is looked at.
    public func publish(_ announcements: [Announcement], sessionChanged: Bool = true) {
        guard sessionChanged || !announcements.isEmpty else {
            let changes = outsideChanges()
            if !changes.isEmpty { emitPropertiesChanged(MPRIS.reel, changes, []) }
            connection.flush()
            return
        }
        let now = host.snapshot
        var changed: [(String, DBusValue)] = []
        func check<T: Equatable>(_ name: String, _ key: (Snapshot) -> T) {
            if key(published) != key(now), let value = try? read(MPRIS.player, name) { changed.append((name, value)) }
        }
        check("PlaybackStatus", \.status)
        check("LoopStatus", \.loop)
        check("Rate", \.rate)
        check("Shuffle", \.shuffle)
        // What the map is made of, not the whole entry (its stored position changes every second),
        // and not the map itself: making two maps each loop turn cost more than the MPD request it served.
        if published.current?.id != now.current?.id || published.current?.uri != now.current?.uri
            || published.current?.metadata != now.current?.metadata || published.chapter != now.chapter, let value = try? read(MPRIS.player, "Metadata") {
            changed.append(("Metadata", value))
        }
        check("Volume", \.volume)
        check("CanGoNext", \.canGoNext)
        check("CanGoPrevious", \.canGoPrevious)
        check("CanPlay", \.canPlay)
        check("CanPause", \.canPause)
        check("CanSeek", \.canSeek)
        if published.status != now.status || published.rate != now.rate {
            // The position the change took effect at, so widgets need not guess.
            changed.append(("Position", .int64(host.position())))
        }
        if !changed.isEmpty { emitPropertiesChanged(MPRIS.player, changed, []) }
        if published.queueRevision != now.queueRevision {
            emitPropertiesChanged(MPRIS.trackList, [], ["Tracks"])
        }
        var reelChanged: [(String, DBusValue)] = []
        if published.lastError != now.lastError { reelChanged.append(("LastError", .string(now.lastError ?? ""))) }
        if published.replayGain != now.replayGain { reelChanged.append(("ReplayGain", .string(now.replayGain.rawValue))) }
        if published.video != now.video { reelChanged.append(("Video", .boolean(now.video))) }
        if published.activity != now.activity { reelChanged.append(("Activity", .string(now.activity ?? ""))) }
        if published.current?.metadata.chapters ?? [] != now.current?.metadata.chapters ?? [] {
            reelChanged.append(("Chapters", PropertyValues.chapters(now)))
        }
        if published.chapter != now.chapter { reelChanged.append(("Chapter", .int32(Int32(clamping: now.chapter ?? -1)))) }
        if published.sleep != now.sleep { reelChanged.append(("SleepTimer", .string(now.sleep?.name ?? "off"))) }
        if published.chapterKeys != now.chapterKeys { reelChanged.append(("ChapterKeys", .string(now.chapterKeys.rawValue))) }
        reelChanged += outsideChanges()
        if !reelChanged.isEmpty { emitPropertiesChanged(MPRIS.reel, reelChanged, []) }
        let queue = host.queue
        func entry(_ id: EntryID) -> QueueEntry? { queue[id] }
        // Many entries added at once are one TrackListReplaced, not a signal each.
        let added = announcements.filter { if case .trackAdded = $0 { true } else { false } }.count
        let bulk = added > Self.bulkAdd
        if bulk { emitTrackListReplaced(queue) }
        for announcement in announcements {
            switch announcement {
            case .seeked(let position), .settled(let position):
                emit(MPRIS.player, "Seeked", [.int64(position)])
            case .trackAdded(let id, let after):
                guard !bulk, let entry = entry(id) else { continue }
                emit(MPRIS.trackList, "TrackAdded", [MetadataMap.of(entry), .objectPath(after.map(TrackID.path) ?? MPRIS.noTrack)])
            case .trackRemoved(let id):
                emit(MPRIS.trackList, "TrackRemoved", [.objectPath(TrackID.path(id))])
            case .trackListReplaced:
                emitTrackListReplaced(queue)
            case .trackMetadataChanged(let id):
                guard let entry = entry(id) else { continue }
                emit(MPRIS.trackList, "TrackMetadataChanged", [.objectPath(TrackID.path(id)), MetadataMap.of(entry)])
            }
        }
        published = now
        connection.flush()
    }

    /// LibraryError's and LibraryWatch's new values, those that changed since they were last published.
    private func outsideChanges() -> [(String, DBusValue)] {
        var changes: [(String, DBusValue)] = []
        let libraryError = host.libraryError
        if libraryError != publishedLibraryError {
            publishedLibraryError = libraryError
            changes.append(("LibraryError", .string(libraryError ?? "")))
        }
        let watch = library?.watchStatus ?? ""
        if watch != publishedWatch {
            publishedWatch = watch
            changes.append(("LibraryWatch", .string(watch)))
        }
        return changes
    }

    /// More entries added in one turn than this are announced as one TrackListReplaced.
    static let bulkAdd = 50

    func emitTrackListReplaced(_ queue: Queue) {
        emit(MPRIS.trackList, "TrackListReplaced", [.objectPaths(TrackWindow.ids(queue).map(TrackID.path)),
                                                    .objectPath(queue.currentID.map(TrackID.path) ?? MPRIS.noTrack)])
    }

    /// GoToChapter's argument: next, previous, or a chapter's number from 1.
    static func chapterMove(_ text: String) throws -> ChapterMove {
        switch text {
        case "next": return .next
        case "previous", "prev": return .previous
        default:
            guard let n = Int(text), n >= 1 else {
                throw BusError.invalidArgs("a chapter is next, previous or a number from 1, not \"\(text.prefix(40))\"")
            }
            return .number(n)
        }
    }

    /// A page of the queue in track-list order, with each entry's Metadata.
    func queuePage(offset: Int, limit: Int) -> [DBusValue] {
        let queue = host.queue
        let start = min(max(offset, 0), queue.count)
        let end = limit < 0 ? queue.count : min(start + limit, queue.count)
        let current = queue.currentID.flatMap(queue.index(of:)) ?? -1
        let rows = queue.entries[start..<end].map { entry -> DBusValue in
            .structure([.uint64(entry.id.raw), .string(entry.displayTitle),
                        .strings(entry.metadata.artists), .int64(entry.metadata.length ?? -1), .string(entry.uri)])
        }
        return [.uint32(UInt32(queue.count)), .int32(Int32(current)), .array(elementSignature: "(tsasxs)", rows)]
    }

    func emitPropertiesChanged(_ interface: String, _ changed: [(String, DBusValue)], _ invalidated: [String]) {
        emit(MPRIS.properties, "PropertiesChanged", [.string(interface), .vardict(changed), .strings(invalidated)])
    }

    func emit(_ interface: String, _ member: String, _ args: [DBusValue]) {
        guard let signal = try? Message.signal(path: MPRIS.objectPath, interface: interface, member: member, args) else { return }
        connection.enqueue(signal)
    }
}
