/// Why the session refused a request or could not carry it out, by kind, so
/// that each control bus can name it in its own protocol (a D-Bus error name,
/// an MPD ACK code).
public struct SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case invalidArgument, invalidURI, noSuchFile, noSuchItem, noLibrary, failed
        /// The queue has no such entry (each bus names it its own way).
        case noSuchTrack(EntryID)
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

    /// The engine's refusal of a command.
    public init(_ error: CommandError) {
        switch error {
        case .noSuchTrack(let id): self.init(.noSuchTrack(id), "no entry \(id.raw) in the queue")
        case .invalidArgument(let message): self.init(.invalidArgument, message)
        }
    }

    public var description: String { message }
}
