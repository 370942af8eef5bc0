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

    /// What mpv writes into a sink (Snapcast's FIFO), and snapserver's pipe takes: 48000 Hz, 16 bit, stereo.
    public static let sink = AudioFormat(sampleRate: 48_000, bits: 16, channels: 2)

    /// Bytes a second of interleaved integer samples (floating point counts as 32 bit).
    public var bytesPerSecond: Int { sampleRate * channels * (bits ?? 32) / 8 }
}
