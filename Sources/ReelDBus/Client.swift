extension Connection {
    /// Calls a method and returns the reply's arguments; an error reply is thrown.
    public func callMethod(_ destination: String, _ path: String, _ interface: String, _ member: String,
                           _ args: [DBusValue] = [], timeoutMs: Int32 = 5_000) throws -> [DBusValue] {
        let message = try Message.methodCall(destination: destination, path: path, interface: interface,
                                             member: member, args)
        return try call(message, timeoutMs: timeoutMs).arguments
    }

    /// Reads a property through org.freedesktop.DBus.Properties.Get.
    public func getProperty(_ destination: String, _ path: String, _ interface: String,
                            _ name: String) throws -> DBusValue {
        let reply = try callMethod(destination, path, "org.freedesktop.DBus.Properties", "Get",
                                   [.string(interface), .string(name)])
        guard let value = reply.first else { throw BusError.failed("empty reply to Get \(name)") }
        return value.unwrapped
    }

    /// Reads all properties of an interface.
    public func getAllProperties(_ destination: String, _ path: String,
                                 _ interface: String) throws -> [String: DBusValue] {
        let reply = try callMethod(destination, path, "org.freedesktop.DBus.Properties", "GetAll",
                                   [.string(interface)])
        return reply.first?.dictionary ?? [:]
    }

    /// Writes a property through org.freedesktop.DBus.Properties.Set.
    public func setProperty(_ destination: String, _ path: String, _ interface: String, _ name: String,
                            _ value: DBusValue) throws {
        _ = try callMethod(destination, path, "org.freedesktop.DBus.Properties", "Set",
                           [.string(interface), .string(name), .variant(value)])
    }
}
