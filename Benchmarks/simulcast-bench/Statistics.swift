/// Order statistics over a sample of measurements (nanoseconds, kbps, ratios, ...).
struct Distribution: Codable, Sendable {
    var median: Double
    var p95: Double
    var min: Double
    var max: Double
    var count: Int

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        guard !sorted.isEmpty else {
            median = .nan; p95 = .nan; min = .nan; max = .nan
            return
        }
        median = Self.quantile(sorted, 0.5)
        p95 = Self.quantile(sorted, 0.95)
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    /// Linear interpolation between closest ranks.
    static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
