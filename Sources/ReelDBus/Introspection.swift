import FoundationEssentials
import Glibc
import ReelSystem

/// An interface as described by introspection XML: the one source of truth
/// for which methods and properties exist, their signatures and access.
public struct InterfaceSpec: Equatable, Sendable {
    public struct Method: Equatable, Sendable {
        public var inSignature = ""
        public var outSignature = ""
    }
    public struct Property: Equatable, Sendable {
        public var type: String
        public var writable: Bool
        /// The EmitsChangedSignal annotation: "true", "invalidates", "const" or "false".
        public var emitsChanged: String
    }
    public var name: String
    public var methods: [String: Method] = [:]
    public var properties: [String: Property] = [:]
    public var signals: Set<String> = []

    /// Parses the `<interface>` elements of an introspection document.
    /// It reads only the elements and attributes introspection uses.
    public static func parse(_ xml: String) -> [InterfaceSpec] {
        var interfaces: [InterfaceSpec] = []
        var current: InterfaceSpec?
        var interfaceEmits = "true"
        var method: (name: String, spec: Method)?
        var property: (name: String, spec: Property)?
        for tag in tags(in: xml) {
            switch (tag.name, tag.closing) {
            case ("interface", false):
                current = InterfaceSpec(name: tag.attributes["name"] ?? "")
                interfaceEmits = "true"
            case ("interface", true):
                if let c = current { interfaces.append(c) }
                current = nil
            case ("method", false):
                method = (tag.attributes["name"] ?? "", Method())
                if tag.selfClosing { current?.methods[method!.name] = method!.spec; method = nil }
            case ("method", true):
                if let m = method { current?.methods[m.name] = m.spec }
                method = nil
            case ("arg", false):
                guard var m = method else { continue }
                let type = tag.attributes["type"] ?? ""
                if tag.attributes["direction"] == "out" { m.spec.outSignature += type } else { m.spec.inSignature += type }
                method = m
            case ("property", false):
                let p = (tag.attributes["name"] ?? "",
                         Property(type: tag.attributes["type"] ?? "", writable: tag.attributes["access"] == "readwrite",
                                  emitsChanged: interfaceEmits))
                if tag.selfClosing { current?.properties[p.0] = p.1 } else { property = p }
            case ("property", true):
                if let p = property { current?.properties[p.name] = p.spec }
                property = nil
            case ("annotation", false) where tag.attributes["name"] == "org.freedesktop.DBus.Property.EmitsChangedSignal":
                let value = tag.attributes["value"] ?? "true"
                if property != nil { property!.spec.emitsChanged = value } else if method == nil { interfaceEmits = value }
            case ("signal", false):
                current?.signals.insert(tag.attributes["name"] ?? "")
            default:
                continue
            }
        }
        return interfaces
    }

    private struct Tag {
        var name: String
        var closing: Bool
        var selfClosing: Bool
        var attributes: [String: String]
    }

    private static func tags(in xml: String) -> [Tag] {
        var result: [Tag] = []
        var rest = Substring(xml)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            if rest.hasPrefix("!--") {
                guard let end = rest.firstRange(of: "-->") else { break }
                rest = rest[end.upperBound...]
                continue
            }
            guard let close = rest.firstIndex(of: ">") else { break }
            var body = rest[..<close]
            rest = rest[rest.index(after: close)...]
            if body.hasPrefix("?") || body.hasPrefix("!") { continue }
            let closing = body.hasPrefix("/")
            if closing { body = body.dropFirst() }
            let selfClosing = body.hasSuffix("/")
            if selfClosing { body = body.dropLast() }
            let name = body.prefix { !$0.isWhitespace }
            result.append(Tag(name: String(name), closing: closing, selfClosing: selfClosing,
                              attributes: attributes(body.dropFirst(name.count))))
        }
        return result
    }

    private static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text
        while let eq = rest.firstIndex(of: "=") {
            let key = String(rest[..<eq].filter { !$0.isWhitespace })   // an XML name holds none
            rest = rest[rest.index(after: eq)...].drop { $0.isWhitespace }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { break }
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: quote) else { break }
            result[key] = XMLText.unescaped(String(rest[..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return result
    }
}
