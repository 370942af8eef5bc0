import Foundation
import ReelCore
import ReelDBus
import ReelMPRIS

/// Random and malformed calls to reel's object: real methods with random
/// arguments (of their signature, or not), property reads and writes of any
/// type, and names that do not exist. Never Quit, and never an import of a
/// big folder (a fuzz must not make the daemon walk the disk).
struct Fuzzer: Sendable {
    let interfaces: [InterfaceSpec]
    let files: [String]

    func call(using rng: inout SplitMix64) -> Message {
        let roll = Int.random(in: 0..<10, using: &rng)
        let message: Message?
        switch roll {
        case 0..<6: message = method(using: &rng)
        case 6..<8: message = property(using: &rng)
        default: message = nonsense(using: &rng)
        }
        return message ?? (try! Message.methodCall(destination: MPRIS.busName, path: MPRIS.objectPath,
                                                   interface: "org.freedesktop.DBus.Peer", member: "Ping", []))
    }

    private func method(using rng: inout SplitMix64) -> Message? {
        let spec = interfaces.randomElement(using: &rng)!
        guard let (name, method) = spec.methods.filter({ $0.key != "Quit" }).randomElement(using: &rng) else { return nil }
        let signature = Int.random(in: 0..<10, using: &rng) < 7 ? method.inSignature : randomSignature(using: &rng)
        let args = Signature.split(signature).map { value(of: $0, using: &rng) }
        return try? Message.methodCall(destination: MPRIS.busName, path: MPRIS.objectPath, interface: spec.name,
                                       member: name, args)
    }

    private func property(using rng: inout SplitMix64) -> Message? {
        let spec = interfaces.randomElement(using: &rng)!
        let name = spec.properties.keys.randomElement(using: &rng) ?? "Nope"
        let interface = Int.random(in: 0..<5, using: &rng) == 0 ? "org.example.Nope" : spec.name
        let args: [DBusValue]
        let member: String
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: (member, args) = ("Get", [.string(interface), .string(name)])
        case 1: (member, args) = ("GetAll", [.string(interface)])
        default:
            let type = Int.random(in: 0..<2, using: &rng) == 0 ? (spec.properties[name]?.type ?? "s") : randomSignature(using: &rng)
            (member, args) = ("Set", [.string(interface), .string(name), .variant(value(of: type, using: &rng))])
        }
        return try? Message.methodCall(destination: MPRIS.busName, path: MPRIS.objectPath,
                                       interface: "org.freedesktop.DBus.Properties", member: member, args)
    }

    private func nonsense(using rng: inout SplitMix64) -> Message? {
        let paths = [MPRIS.objectPath, "/", "/org", "/org/mpris", "/dev/reel/Track/1", "/nowhere"]
        let interfaces: [String?] = [nil, "org.example.Nope", MPRIS.player, MPRIS.reel]
        let members = ["Play", "NoSuchMethod", "Introspect", "Ping", "Get", "Seek"]
        let args = (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(of: randomSignature(using: &rng), using: &rng) }
        return try? Message.methodCall(destination: MPRIS.busName, path: paths.randomElement(using: &rng)!,
                                       interface: interfaces.randomElement(using: &rng)!,
                                       member: members.randomElement(using: &rng)!, args)
    }

    private func randomSignature(using rng: inout SplitMix64) -> String {
        ["", "s", "x", "d", "b", "o", "as", "ao", "u", "i", "v", "a{sv}", "(ss)", "sx", "ox", "sb", "asb", "t", "y"]
            .randomElement(using: &rng)!
    }

    private func value(of type: String, using rng: inout SplitMix64) -> DBusValue {
        switch type.first {
        case "s": return .string(string(using: &rng))
        case "o":
            return .objectPath(["/dev/reel/Track/\(Int.random(in: 0...40, using: &rng))", MPRIS.noTrack, "/",
                                "/dev/reel/Playlist/\(Int.random(in: 0...3, using: &rng))", MPRIS.objectPath]
                                .randomElement(using: &rng)!)
        case "b": return .boolean(Bool.random(using: &rng))
        case "y": return .byte(UInt8.random(in: 0...255, using: &rng))
        case "i": return .int32([0, -1, 1, Int32.max, Int32.min, 1000].randomElement(using: &rng)!)
        case "u": return .uint32([0, 1, 20, UInt32.max, 999_999].randomElement(using: &rng)!)
        case "x": return .int64([0, -1, 1_000_000, -5_000_000, Int64.max, Int64.min, 3_000_000_000].randomElement(using: &rng)!)
        case "t": return .uint64([0, 1, UInt64.max].randomElement(using: &rng)!)
        case "d": return .double([0, 1, 1.5, -1, .nan, .infinity, -.infinity, 1e308, 0.25, 4.01].randomElement(using: &rng)!)
        case "v":
            let inner = randomSignature(using: &rng)
            return .variant(value(of: inner.isEmpty ? "s" : inner, using: &rng))
        case "a":
            let element = String(type.dropFirst())
            if element.hasPrefix("{") {
                let inner = Signature.split(String(element.dropFirst().dropLast()))
                return .array(elementSignature: element, (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                    .dictEntry(value(of: inner[0], using: &rng), value(of: inner[1], using: &rng))
                })
            }
            return .array(elementSignature: element,
                          (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(of: element, using: &rng) })
        case "(":
            return .structure(Signature.split(String(type.dropFirst().dropLast())).map { value(of: $0, using: &rng) })
        default: return .string("")
        }
    }

    private func string(using rng: inout SplitMix64) -> String {
        let pool = files + [
            "", "None", "Track", "Playlist", "album", "off", "x", "-report", "../../etc/passwd", "file:///nonexistent.ogg",
            "file:///etc/passwd", "http://127.0.0.1:1/nothing.ogg", "mpv://x", "concat:/etc/passwd", "ftp://x/y",
            "file:///tmp/%FF.ogg", "\u{0}nul", "ünïcødé ☃ 🎵", String(repeating: "long ", count: 2000),
            "/dev/reel/Track/1", "Artist 1",
        ]
        return pool.randomElement(using: &rng)!
    }
}

/// Splitting a D-Bus signature into its complete types.
enum Signature {
    static func split(_ signature: String) -> [String] {
        var types: [String] = []
        var chars = Array(signature)[...]
        while !chars.isEmpty { types.append(one(&chars)) }
        return types
    }

    private static func one(_ chars: inout ArraySlice<Character>) -> String {
        guard let first = chars.popFirst() else { return "" }
        switch first {
        case "a": return "a" + one(&chars)
        case "(", "{":
            let close: Character = first == "(" ? ")" : "}"
            var inner = String(first)
            while let next = chars.first, next != close { inner += one(&chars) }
            _ = chars.popFirst()
            return inner + String(close)
        default: return String(first)
        }
    }
}
