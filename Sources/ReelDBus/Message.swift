import FoundationEssentials
import Glibc
import CDBus

/// The kinds of D-Bus message.
public enum MessageKind: Sendable {
    case methodCall, methodReturn, error, signal, other
}

/// An owned libdbus message. Not thread-safe; it lives on the thread that made it.
public final class Message {
    let raw: OpaquePointer

    /// Takes over a reference the caller already owns.
    init(owning raw: OpaquePointer) { self.raw = raw }
    deinit { dbus_message_unref(raw) }

    public static func methodCall(destination: String?, path: String, interface: String?, member: String,
                                  _ args: [DBusValue] = []) throws -> Message {
        guard isValidPath(path) else { throw BusError.invalidArgs("invalid object path \(path)") }
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw BusError.failed("out of memory")
        }
        let message = Message(owning: raw)
        try message.append(args)
        return message
    }

    public static func signal(path: String, interface: String, member: String, _ args: [DBusValue]) throws -> Message {
        guard let raw = dbus_message_new_signal(path, interface, member) else { throw BusError.failed("out of memory") }
        let message = Message(owning: raw)
        try message.append(args)
        return message
    }

    /// A method return for this call, or nil when the caller asked for no reply.
    public func makeReturn(_ args: [DBusValue] = []) throws -> Message? {
        guard !noReply, let raw = dbus_message_new_method_return(self.raw) else { return nil }
        let message = Message(owning: raw)
        try message.append(args)
        return message
    }

    /// An error reply for this call, or nil when the caller asked for no reply.
    public func makeError(_ error: BusError) -> Message? {
        guard !noReply, let raw = dbus_message_new_error(self.raw, error.name, sanitized(error.message)) else { return nil }
        return Message(owning: raw)
    }

    public var kind: MessageKind {
        switch dbus_message_get_type(raw) {
        case 1: .methodCall
        case 2: .methodReturn
        case 3: .error
        case 4: .signal
        default: .other
        }
    }
    public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    public var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    public var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    public var noReply: Bool { dbus_message_get_no_reply(raw) != 0 }
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    /// For replies: the serial of the call answered.
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }

    /// Decodes the arguments. Call only after checking `signature`.
    public var arguments: [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            values.append(Message.decode(&iter))
        } while dbus_message_iter_next(&iter) != 0
        return values
    }

    /// The error carried by an error reply.
    public var asError: BusError? {
        guard kind == .error else { return nil }
        return BusError(errorName ?? "org.freedesktop.DBus.Error.Failed", arguments.first?.string ?? "")
    }

    // MARK: Marshalling

    func append(_ values: [DBusValue]) throws {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values { try Message.encode(value, into: &iter) }
    }

    private static func code(_ c: Character) -> Int32 { Int32(c.asciiValue!) }

    private static func encode(_ value: DBusValue, into iter: inout DBusMessageIter) throws {
        func basic<T: BitwiseCopyable>(_ type: Character, _ v: T) throws {
            let ok = withUnsafePointer(to: v) { dbus_message_iter_append_basic(&iter, code(type), $0) }
            guard ok != 0 else { throw BusError.failed("out of memory") }
        }
        func text(_ type: Character, _ s: String) throws {
            try sanitized(s).withCString { p in try basic(type, p) }
        }
        func container(_ type: Character, _ signature: String?, _ body: (inout DBusMessageIter) throws -> Void) throws {
            var sub = DBusMessageIter()
            let opened: dbus_bool_t
            if let signature {
                opened = signature.withCString { dbus_message_iter_open_container(&iter, code(type), $0, &sub) }
            } else {
                opened = dbus_message_iter_open_container(&iter, code(type), nil, &sub)
            }
            guard opened != 0 else { throw BusError.failed("out of memory") }
            do { try body(&sub) } catch {
                dbus_message_iter_abandon_container(&iter, &sub)
                throw error
            }
            guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw BusError.failed("out of memory") }
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let s): try text("s", s)
        case .objectPath(let s):
            guard isValidPath(s) else { throw BusError.invalidArgs("invalid object path \(s)") }
            try text("o", s)
        case .signature(let s):
            guard dbus_signature_validate(s, nil) != 0 else { throw BusError.invalidArgs("invalid signature \(s)") }
            try text("g", s)
        case .array(let element, let items):
            guard dbus_signature_validate_single("a" + element, nil) != 0 else {
                throw BusError.invalidArgs("invalid array element signature \(element)")
            }
            try container("a", element) { sub in
                for item in items {
                    guard item.signature == element else {
                        throw BusError.invalidArgs("array of \(element) holds a \(item.signature)")
                    }
                    try encode(item, into: &sub)
                }
            }
        case .dictEntry(let k, let v):
            try container("e", nil) { sub in
                try encode(k, into: &sub)
                try encode(v, into: &sub)
            }
        case .structure(let fields):
            try container("r", nil) { sub in for f in fields { try encode(f, into: &sub) } }
        case .variant(let inner):
            try container("v", inner.signature) { sub in try encode(inner, into: &sub) }
        }
    }

    private static func decode(_ iter: inout DBusMessageIter) -> DBusValue {
        func basic<T: BitwiseCopyable>(_ zero: T) -> T {
            var v = zero
            withUnsafeMutablePointer(to: &v) { dbus_message_iter_get_basic(&iter, $0) }
            return v
        }
        func text() -> String {
            var p: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iter, &p)
            return p.map { String(cString: $0) } ?? ""
        }
        func children() -> [DBusValue] {
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != 0 {
                items.append(decode(&sub))
                dbus_message_iter_next(&sub)
            }
            return items
        }
        let type = dbus_message_iter_get_arg_type(&iter)
        switch UInt8(truncatingIfNeeded: type) {
        case UInt8(ascii: "y"): return .byte(basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(basic(dbus_bool_t(0)) != 0)
        case UInt8(ascii: "n"): return .int16(basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(basic(Double(0)))
        case UInt8(ascii: "s"): return .string(text())
        case UInt8(ascii: "o"): return .objectPath(text())
        case UInt8(ascii: "g"): return .signature(text())
        case UInt8(ascii: "h"):
            // reel takes no file descriptors; close what arrives so it does not leak.
            let fd = basic(Int32(-1))
            if fd >= 0 { _ = close(fd) }
            return .int32(-1)
        case UInt8(ascii: "a"):
            let element = dbus_message_iter_get_signature(&iter).map { sig -> String in
                defer { dbus_free(sig) }
                return String(String(cString: sig).dropFirst())
            } ?? ""
            return .array(elementSignature: element, children())
        case UInt8(ascii: "e"):
            let pair = children()
            return .dictEntry(pair.first ?? .string(""), pair.count > 1 ? pair[1] : .string(""))
        case UInt8(ascii: "r"): return .structure(children())
        case UInt8(ascii: "v"): return .variant(children().first ?? .string(""))
        default: return .string("")
        }
    }
}

/// Whether `path` is a valid D-Bus object path.
public func isValidPath(_ path: String) -> Bool {
    dbus_validate_path(path, nil) != 0
}

/// libdbus aborts on strings with NUL bytes; replace them.
func sanitized(_ s: String) -> String {
    // A byte scan: Foundation's substring search made this a fifth of the cost of marshalling.
    s.utf8.contains(0) ? String(String.UnicodeScalarView(s.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 })) : s
}
