import FoundationEssentials
import Glibc
import ReelCore
import ReelDBus
import ReelMPRIS

/// What a lock-screen widget knows of the position: it listens to
/// PropertiesChanged and Seeked and extrapolates between them, never polling.
/// With `usesRate` false it behaves like playerctl, which ignores Rate.
public struct WidgetModel: Sendable {
    public private(set) var position: MediaTime = 0
    public private(set) var at: MonotonicTime = 0
    public private(set) var rate = 1.0
    public private(set) var playing = false
    public private(set) var trackID: String?
    public let usesRate: Bool

    public init(usesRate: Bool = true) { self.usesRate = usesRate }

    /// The widget's estimate of the position at `now`.
    public func estimate(at now: MonotonicTime) -> MediaTime {
        guard playing else { return position }
        return position + MediaTime((Double(now - at) * (usesRate ? rate : 1)).rounded())
    }

    /// Starts from a full read of the Player properties.
    public mutating func reset(properties: [String: DBusValue], at now: MonotonicTime) {
        playing = properties["PlaybackStatus"]?.string == "Playing"
        rate = properties["Rate"]?.double ?? 1
        position = properties["Position"]?.int64 ?? 0
        trackID = properties["Metadata"]?.dictionary?["mpris:trackid"]?.string
        at = now
    }

    /// Updates the model from a signal received at `now`.
    public mutating func apply(_ message: Message, at now: MonotonicTime) {
        guard message.kind == .signal else { return }
        let args = message.arguments
        switch (message.interface, message.member) {
        case (MPRIS.player, "Seeked"):
            position = args.first?.int64 ?? position
            at = now
        case (MPRIS.properties, "PropertiesChanged"):
            guard args.first?.string == MPRIS.player, let changed = args.dropFirst().first?.dictionary else { return }
            // Re-base at the change, then take what the signal says.
            position = estimate(at: now)
            at = now
            if let status = changed["PlaybackStatus"]?.string { playing = status == "Playing" }
            if let rate = changed["Rate"]?.double { self.rate = rate }
            if let id = changed["Metadata"]?.dictionary?["mpris:trackid"]?.string, id != trackID {
                trackID = id
                position = 0
            }
            if let reported = changed["Position"]?.int64 { position = reported }
        default:
            return
        }
    }
}
