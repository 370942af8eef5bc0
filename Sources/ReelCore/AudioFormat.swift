/// The format of the audio a load decodes to, as the backend reports it.
public struct AudioFormat: Equatable, Sendable {
    public var sampleRate: Int
    /// Bits a sample, or nil for floating point.
    public var bits: Int?
    public var channels: Int

    public init(sampleRate: Int, bits: Int?, channels: Int) {
        self.sampleRate = sampleRate
        self.bits = bits
        self.channels = channels
    }
}
