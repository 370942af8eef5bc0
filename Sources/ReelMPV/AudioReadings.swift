import ReelCore

/// The playing file's decoded format and bitrate as mpv last told them, for MPD's `status`.
/// They are asked for without waiting (`PropertyRead`): a read waits for mpv's core thread, and
/// a `status` that read them itself took 0.2–0.5 ms instead of 0.06, most of all while a file
/// opened. So `status` shows what the last answer said: both are asked for at once when mpv has
/// set up or restarted the audio (and the format only then: asked at each `status` while a file
/// opened, the answers made a loop turn of their own each), the bitrate again when it is a second
/// old, as MPD's is.
struct AudioReadings {
    private(set) var format: AudioFormat?
    private(set) var bitrate: Int?
    private var bitrateRead: MonotonicTime?
    /// False until mpv has answered for the audio as it is now (its answer may be none yet).
    private var formatCurrent = false
    private var pending: Set<PropertyRead.Purpose> = []
    /// Counts the files and restarts: an answer asked for before one is dropped.
    private var generation: UInt64 = 0

    /// Another file: what was read of the last one is not shown for it.
    mutating func fileChanged() {
        restarted()
        format = nil
        bitrate = nil
    }

    /// The audio was set up or restarted: both are asked for again, and shown as they were until answered.
    mutating func restarted() {
        generation += 1
        pending = []
        formatCurrent = false
        bitrateRead = nil
    }

    /// What to ask mpv now; each is counted as asked until answered.
    mutating func wanted(now: MonotonicTime) -> [PropertyRead] {
        var purposes: [PropertyRead.Purpose] = []
        if !formatCurrent { purposes.append(.audioFormat) }
        if bitrateRead.map({ now - $0 >= 1_000_000 }) ?? true { purposes.append(.bitrate) }
        purposes.removeAll { pending.contains($0) }
        pending.formUnion(purposes)
        return purposes.map { PropertyRead($0, generation: generation) }
    }

    /// mpv's answer: a format, nil while the file has no audio yet (asked again at `restarted`).
    mutating func answered(_ read: PropertyRead, format: AudioFormat?) {
        guard take(read) else { return }
        self.format = format
        formatCurrent = true
    }

    /// mpv's answer: the bitrate in kbit/s, nil if it has none.
    mutating func answered(_ read: PropertyRead, bitrate: Int?, now: MonotonicTime) {
        guard take(read) else { return }
        self.bitrate = bitrate
        bitrateRead = now
    }

    /// Whether the answer is to the latest question; it is no longer pending.
    private mutating func take(_ read: PropertyRead) -> Bool {
        read.generation == PropertyRead(read.purpose, generation: generation).generation && pending.remove(read.purpose) != nil
    }
}
