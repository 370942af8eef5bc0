import Glibc

/// A file's ReplayGain values as its tags give them (gains in dB, peaks as
/// linear sample values), and the level they set.
public struct ReplayGainTags: Equatable, Sendable {
    public var trackGain: Double?
    public var trackPeak: Double?
    public var albumGain: Double?
    public var albumPeak: Double?

    public init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    /// No real recording is levelled by more than this; a hostile tag must not deafen anyone.
    static let gainRange = -60.0...20.0

    /// What the file's samples are multiplied by under `mode`: the mode's gain
    /// (the other one when the file has only that), lowered so that its peak
    /// does not clip. A file without tags plays as it is.
    public func factor(_ mode: ReplayGain) -> Double {
        let (gain, peak): (Double?, Double?) = switch mode {
        case .off: (nil, nil)
        case .track: (trackGain ?? albumGain, trackGain != nil ? trackPeak : albumPeak)
        case .album: (albumGain ?? trackGain, albumGain != nil ? albumPeak : trackPeak)
        }
        guard let gain, gain.isFinite else { return 1 }
        let level = pow(10, min(max(gain, Self.gainRange.lowerBound), Self.gainRange.upperBound) / 20)
        guard let peak, peak.isFinite, peak > 0 else { return level }
        return min(level, 1 / peak)
    }
}
