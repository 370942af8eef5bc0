/// A D-Bus value with its type. Arrays carry their element signature so that
/// empty arrays still marshal with the right type.
public indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case array(elementSignature: String, [DBusValue])
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictEntry(let k, let v): "{" + k.signature + v.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// An `a{sv}` dictionary, the shape of MPRIS metadata and property maps.
    public static func vardict(_ pairs: [(String, DBusValue)]) -> DBusValue {
        .array(elementSignature: "{sv}", pairs.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    public static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map { .string($0) })
    }

    public static func objectPaths(_ values: [String]) -> DBusValue {
        .array(elementSignature: "o", values.map { .objectPath($0) })
    }

    // Accessors for decoding; each returns nil for any other type.
    public var string: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }
    public var bool: Bool? { if case .boolean(let b) = self { b } else { nil } }
    public var double: Double? { if case .double(let d) = self { d } else { nil } }
    public var int64: Int64? {
        switch self {
        case .int64(let v): v
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .byte(let v): Int64(v)
        case .uint64(let v): Int64(exactly: v)
        default: nil
        }
    }
    /// The value inside a variant, or the value itself.
    public var unwrapped: DBusValue { if case .variant(let v) = self { v.unwrapped } else { self } }
    public var array: [DBusValue]? { if case .array(_, let items) = self { items } else { nil } }
    /// An `a{s…}` array as a dictionary, variants unwrapped.
    public var dictionary: [String: DBusValue]? {
        guard let items = array else { return nil }
        var result: [String: DBusValue] = [:]
        for item in items {
            guard case .dictEntry(let k, let v) = item, let key = k.string else { return nil }
            result[key] = v.unwrapped
        }
        return result
    }
    public var stringArray: [String]? {
        guard let items = array else { return nil }
        let strings = items.compactMap(\.string)
        return strings.count == items.count ? strings : nil
    }
}
