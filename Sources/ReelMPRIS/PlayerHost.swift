import ReelCore

/// What the MPRIS adapter needs from the daemon: the engine's view, a way to
/// run commands, the real position, and a way to quit.
public protocol PlayerHost: AnyObject {
    var snapshot: Snapshot { get }
    /// The queue, for lookups by id and pages of it (the snapshot does not copy it).
    var queue: Queue { get }
    /// Runs a command through the engine and performs its effects.
    func run(_ command: Command) -> Result<Void, CommandError>
    /// The position now, in µs: the backend's real one while something is loaded.
    func position() -> MediaTime
    func quit()
    /// A URI or absolute path checked as something that can be played.
    func validate(_ text: String) -> Result<String, URIProblem>
    /// Like `validate`, but a local playlist becomes its entries.
    func expand(_ text: String) -> Result<[String], URIProblem>
    /// Why the media library is unavailable, if it is.
    var libraryError: String? { get }
}
