import ReelCore

/// How far ahead of what is heard mpv 0.35's `audio-pts` reads at a rate other than 1.
///
/// There mpv plays through its tempo filter, scaletempo2, which counts the audio it holds as what
/// it has read less what it has written times the rate (mpv #12028; 0.37 reads its buffers
/// instead). That count leaves out where its output comes from: the centre of its search window,
/// half the search interval and half the overlap window ahead of the audio it holds, and the hop
/// it is writing, which stood for `hop × rate` of the input. So the time it stamps on its output,
/// and every sample after it, is `centre + hop × rate` ahead: 40 ms at rate 1.5 with mpv's
/// defaults. Measured against the recorded sound (docs/design.md, *Position at other rates*), what
/// is left is 0-4.5 ms on PipeWire and 0-2.4 ms on PulseAudio from 1.1 to 2.
///
/// A change between two rates other than 1 keeps the filter and its count. The centre of its
/// search window then jumps by `centre × (new / old − 1)`, which the count never sees, and the
/// lead shrinks by that much (0.75 then 1.5: 18.5 ms measured, 15 by this; 1.25, 1.5 then 2:
/// 37 ms measured, 32 by this). mpv starts the filter afresh when the rate leaves 1, at a
/// seek and with each file. The model is only approximate over many such changes, so the engine
/// restarts the sound at every change of rate where it can (`Engine.rateChanged`); the count
/// is followed for a stream that cannot seek and behind Snapcast.
struct TempoLead: Equatable, Sendable {
    /// Half of scaletempo2's default search interval (30 ms) and half its window (20 ms).
    static let centre = 25_000.0
    /// Half its window: what one hop of output stands for at rate 1.
    static let hop = 10_000.0

    /// The rate mpv plays at.
    private(set) var rate = 1.0
    /// What the filter's count lost at changes of rate since it started.
    private var carried = 0.0

    /// How far mpv's samples run ahead of what is heard, now.
    var lead: MediaTime {
        rate == 1 ? 0 : MediaTime((Self.centre + Self.hop * rate - carried).rounded())
    }

    /// The rate was set: from 1 mpv puts the filter in afresh, to 1 it takes it out.
    mutating func setRate(_ new: Double) {
        if rate == 1 || new == 1 {
            carried = 0
        } else {
            carried += Self.centre * (new / rate - 1)
        }
        rate = new
    }

    /// mpv started the filter again: a seek, or another file.
    mutating func restart() { carried = 0 }
}
