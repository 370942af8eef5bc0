/// A D-Bus error: an error name (`org.freedesktop.DBus.Error.InvalidArgs`, …) and a message.
public struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public let message: String
    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }
    public var description: String { "\(name): \(message)" }

    public static func invalidArgs(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.InvalidArgs", message)
    }
    public static func unknownMethod(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.UnknownMethod", message)
    }
    public static func unknownInterface(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.UnknownInterface", message)
    }
    public static func unknownObject(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.UnknownObject", message)
    }
    public static func unknownProperty(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.UnknownProperty", message)
    }
    public static func propertyReadOnly(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.PropertyReadOnly", message)
    }
    public static func failed(_ message: String) -> BusError {
        BusError("org.freedesktop.DBus.Error.Failed", message)
    }
}
