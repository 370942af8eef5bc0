import ReelCore

/// An MPD protocol error: `ACK [code@index] {command} message`.
public struct Ack: Error, Equatable, Sendable {
    /// MPD's error codes (its ack.h), which clients switch on.
    public enum Code: Int, Sendable {
        case notList = 1, argument = 2, password = 3, permission = 4, unknown = 5
        case noExist = 50, playlistMax = 51, system = 52, playlistLoad = 53, updateAlready = 54
        case playerSync = 55, exist = 56
        /// Not MPD's and never sent: the command waits for a read off the loop, and runs again once it is done.
        case wait = -1
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The line a client reads; `index` is the command's place in a command list (0 outside one).
    public func line(command: String, index: Int) -> String {
        var text = Array("ACK [\(code.rawValue)@\(index)] {\(command)} ".utf8)
        Reply.appendOneLine(message, to: &text)
        return String(decoding: text, as: UTF8.self) + "\n"
    }

    /// A session's refusal as MPD names it: a missing song or file does not exist, a bad
    /// argument or URI is an argument error, and the rest is the system's.
    init(_ error: SessionError) {
        switch error.kind {
        case .noSuchTrack: self.init(.noExist, "No such song")
        case .noSuchFile, .noSuchItem: self.init(.noExist, error.message)
        case .invalidArgument, .invalidURI: self.init(.argument, error.message)
        case .noLibrary, .failed: self.init(.system, error.message)
        }
    }

    static func argument(_ message: String) -> Ack { Ack(.argument, message) }
    static func noExist(_ message: String) -> Ack { Ack(.noExist, message) }
    static let wait = Ack(.wait, "")
}
