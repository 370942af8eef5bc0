/// Why a URI a client gave cannot be played; each control bus names it in its own protocol.
public enum URIProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not a URI reel plays, or malformed.
    case invalid(String)
    /// A local file that is not there or cannot be read.
    case noSuchFile(String)

    public var description: String {
        switch self {
        case .invalid(let message), .noSuchFile(let message): message
        }
    }
}
