/// Why the session refused a request or could not carry it out, by kind, so
/// that each control bus can name it in its own protocol (a D-Bus error name,
/// an MPD ACK code).
public struct SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case invalidArgument, invalidURI, noSuchFile, noSuchItem, noLibrary, failed
    }
    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public init(_ problem: URIProblem) {
        switch problem {
        case .invalid(let message): self.init(.invalidURI, message)
        case .noSuchFile(let message): self.init(.noSuchFile, message)
        }
    }

    public var description: String { message }
}
