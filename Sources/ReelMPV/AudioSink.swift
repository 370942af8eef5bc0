import ReelCore

/// Where the backend's sound goes instead of a sound server: a relay that
/// reads the PCM mpv writes into a FIFO and passes it on (to snapserver).
/// The daemon hands it to the backend; called on the loop's thread and the relay's.
public protocol AudioSink: AnyObject, Sendable {
    /// The FIFO mpv writes 48000 Hz, 16-bit, stereo PCM into; the sink reads it.
    var fifoPath: String { get }
    /// How long after mpv counts audio as played it is heard: what waits in
    /// the pipes now, plus the buffer of whatever plays it out.
    func delay() -> MediaTime
    /// The delay when the pipes are as full as they run in steady playback.
    var nominalDelay: MediaTime { get }
    /// Before a resume (on the loop's thread, mpv still paused): drops the
    /// silence the pause left waiting, so that the resumed sound is not queued behind it.
    func dropSilence()
    /// Told (on the sink's thread) when it first passes audio on (nil), when
    /// it stops, with the reason, and when it takes audio again (nil).
    var onChange: (@Sendable (_ problem: String?) -> Void)? { get set }
}
