/// Order statistics of a sample, for figures that survive a noisy machine.
struct Stats {
    let sorted: [Double]
    init(_ values: [Double]) { sorted = values.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
    var median: Double { percentile(50) }
}

func ms(_ micros: Double) -> String {
    micros.isNaN ? "n/a" : String(format: "%.2f ms", micros / 1000)
}
