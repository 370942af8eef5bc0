import ReelCore

/// The progress line of an import: files a second over the last few seconds, and the time left at that rate.
struct ImportRate {
    /// How far back the rate looks (seconds).
    static let window = 5.0
    private var samples: [(at: Double, done: Int64)] = []

    mutating func line(done: Int64, total: Int64, at now: Double) -> String {
        samples.append((now, done))
        while let first = samples.first, now - first.at > Self.window, samples.count > 2 { samples.removeFirst() }
        let first = samples[0]
        let rate = now > first.at ? Double(done - first.done) / (now - first.at) : 0
        let left = rate > 0 ? ClockText.format(Int64(Double(total - done) / rate * 1_000_000)) : "–"
        return "importing \(done)/\(total)  \(Int(rate.rounded())) files/s  ETA \(left)"
    }
}
