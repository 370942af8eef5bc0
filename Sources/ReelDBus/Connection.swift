import CDBus
import FoundationEssentials
import Glibc
import ReelSystem

/// A private libdbus connection to a bus. It does no dispatching of its own:
/// the owner polls `fd`, calls `readWrite()` and pops messages, so the whole
/// conversation stays on one thread.
public final class Connection {
    let raw: OpaquePointer

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`, or to `address`.
    public init(address: String? = nil) throws {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        let raw: OpaquePointer?
        if let address {
            raw = dbus_connection_open_private(address, &err)
            if let raw, dbus_bus_register(raw, &err) == 0 {
                dbus_connection_close(raw)
                dbus_connection_unref(raw)
                throw Connection.error(from: err)
            }
        } else {
            raw = dbus_bus_get_private(DBUS_BUS_SESSION, &err)
        }
        guard let raw else { throw Connection.error(from: err) }
        self.raw = raw
        // libdbus would otherwise _exit() the process when the bus goes away.
        dbus_connection_set_exit_on_disconnect(raw, 0)
    }

    deinit {
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
    }

    static func error(from err: CDBus.DBusError) -> BusError {
        BusError(err.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
                 err.message.map { String(cString: $0) } ?? "unknown D-Bus error")
    }

    /// Our unique name on the bus (":1.42").
    public var uniqueName: String { dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? "" }

    public var isConnected: Bool { dbus_connection_get_is_connected(raw) != 0 }

    /// The socket to poll for input.
    public var fd: Int32 {
        var fd: Int32 = -1
        dbus_connection_get_unix_fd(raw, &fd)
        return fd
    }

    public enum NameResult: Sendable { case owner, taken }

    /// Asks for a well-known name without queueing for it.
    public func requestName(_ name: String) throws -> NameResult {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        let result = dbus_bus_request_name(raw, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &err)
        if dbus_error_is_set(&err) != 0 { throw Connection.error(from: err) }
        return result == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER || result == DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER
            ? .owner : .taken
    }

    /// Subscribes to messages matching a rule such as `type='signal',interface='…'`.
    public func addMatch(_ rule: String) throws {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        dbus_bus_add_match(raw, rule, &err)
        if dbus_error_is_set(&err) != 0 { throw Connection.error(from: err) }
    }

    /// Queues a message and writes it out at once; returns its serial.
    @discardableResult
    public func send(_ message: Message) -> UInt32 {
        var serial: UInt32 = 0
        dbus_connection_send(raw, message.raw, &serial)
        dbus_connection_flush(raw)
        return serial
    }

    /// Queues a message; `flush()` writes everything queued.
    public func enqueue(_ message: Message) {
        dbus_connection_send(raw, message.raw, nil)
    }

    public func flush() { dbus_connection_flush(raw) }

    /// Reads what the socket has (waiting at most `timeoutMs`; -1 for ever)
    /// and writes what is queued. Returns false once disconnected.
    @discardableResult
    public func readWrite(timeoutMs: Int32 = 0) -> Bool {
        dbus_connection_read_write(raw, timeoutMs) != 0
    }

    /// Whether libdbus holds incoming messages that were read from the socket
    /// (while it was writing, say): then the socket may be empty though a
    /// call waits, and the loop must not sleep in poll.
    public var hasQueuedMessages: Bool {
        dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS
    }

    /// The next message already read, if any.
    public func popMessage() -> Message? {
        dbus_connection_pop_message(raw).map { Message(owning: $0) }
    }

    /// Sends a method call and waits for its reply; an error reply is thrown.
    public func call(_ message: Message, timeoutMs: Int32 = 5_000) throws -> Message {
        var err = CDBus.DBusError()
        dbus_error_init(&err)
        defer { dbus_error_free(&err) }
        guard let reply = dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMs, &err) else {
            throw Connection.error(from: err)
        }
        return Message(owning: reply)
    }

    /// Waits up to `timeoutMs` for the next incoming message.
    public func nextMessage(timeoutMs: Int32) -> Message? {
        if let m = popMessage() { return m }
        let deadline = monotonicNow() + Int64(max(timeoutMs, 0)) * 1000
        while true {
            let left = deadline - monotonicNow()
            // Even with no time left, read what the socket already holds.
            guard readWrite(timeoutMs: Int32(max(0, left / 1000))) else { return nil }
            if let m = popMessage() { return m }
            if left <= 0 { return nil }
        }
    }
}
