import ReelCore

/// What the scanner process found in one file: the file as it was read, and either
/// what describes it as media or why it is not.
public struct ScannedFile: Equatable, Sendable {
    /// As it was asked for.
    public var path: String
    public var size: Int64
    /// Modification time, ns since 1970.
    public var modified: Int64
    /// `FileIdentity` of its first and last bytes; 0 when it could not be read.
    public var identity: UInt64
    public var outcome: Outcome

    public enum Outcome: Equatable, Sendable {
        /// Tags, duration, format and chapters (`localPath` and `cover` are left for the caller);
        /// and whether a picture is embedded.
        case media(ProbedItem, picture: Bool)
        /// Why it is not playable media, in words.
        case unreadable(String)
    }

    public init(path: String, size: Int64, modified: Int64, identity: UInt64, outcome: Outcome) {
        self.path = path
        self.size = size
        self.modified = modified
        self.identity = identity
        self.outcome = outcome
    }
}
