import Foundation

/// The verdict on one congestion case: RFC 8868's metrics (rate, utilization, queueing delay,
/// loss) and this project's acceptance criteria (issue 14): for one flow, after each capacity
/// step the link is ≥ 85 % used within 5 s, the 95th percentile of queueing delay ≤ 100 ms, loss
/// ≤ 2 % outside the first second after a drop; with two flows, their rates within 20 % of each
/// other after 30 s.
struct CongestionReport: Codable {
    struct Step: Codable {
        var atSeconds: Double
        var capacityKbps: Int
        /// From the step until the link's use first reached 85 % (nil: never before the next step).
        var secondsTo85Percent: Double?
        /// Mean use of the link from 5 s after the step to the next one.
        var meanUtilization: Double
    }

    var testCase: String
    var summary: String
    var steps: [Step]
    var meanDeliveredKbps: Int
    var meanUtilization: Double
    var queueingDelayP50Milliseconds: Double
    var queueingDelayP95Milliseconds: Double
    /// Datagrams lost at the bottleneck, outside the first second after a capacity drop.
    var lossOutsideDrops: Double
    /// Between two flows after 30 s: mean |a − b| / max(a, b) of their delivered rates.
    var flowRateDifference: Double?
    var checks: [String: Bool]
    var samples: [CongestionRun.Sample]

    init(testCase: CongestionCase, samples: [CongestionRun.Sample], queueingMilliseconds: [Double]) {
        self.testCase = testCase.name
        summary = testCase.summary
        self.samples = samples
        let boundaries = testCase.capacity.map(\.atSeconds) + [testCase.seconds]
        steps = testCase.capacity.enumerated().map { index, step in
            let until = boundaries[index + 1]
            let within = samples.filter { $0.atSeconds > step.atSeconds && $0.atSeconds <= until }
            let reached = within.first { Double($0.deliveredKbps) >= 0.85 * Double(step.bitsPerSecond) / 1000 }
            let settled = within.filter { $0.atSeconds >= step.atSeconds + 5 }
            let mean = settled.isEmpty ? 0 : settled.map { Double($0.deliveredKbps) / Double($0.capacityKbps) }.reduce(0, +)
                / Double(settled.count)
            return Step(atSeconds: step.atSeconds, capacityKbps: step.bitsPerSecond / 1000,
                        secondsTo85Percent: reached.map { (($0.atSeconds - step.atSeconds) * 10).rounded() / 10 },
                        meanUtilization: (mean * 1000).rounded() / 1000)
        }
        let all = samples.filter { $0.atSeconds >= 1 }
        meanDeliveredKbps = all.isEmpty ? 0 : all.map(\.deliveredKbps).reduce(0, +) / all.count
        meanUtilization = all.isEmpty ? 0
            : ((all.map { Double($0.deliveredKbps) / Double($0.capacityKbps) }.reduce(0, +) / Double(all.count)) * 1000).rounded() / 1000
        let sorted = queueingMilliseconds.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : (sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] * 10).rounded() / 10
        }
        queueingDelayP50Milliseconds = percentile(0.5)
        queueingDelayP95Milliseconds = percentile(0.95)
        // Drops: capacity steps down; the second after each is excused.
        let drops = testCase.capacity.enumerated().dropFirst().filter { $0.element.bitsPerSecond < testCase.capacity[$0.offset - 1].bitsPerSecond }
            .map(\.element.atSeconds)
        let outside = all.filter { sample in !drops.contains { sample.atSeconds > $0 && sample.atSeconds <= $0 + 1 } }
        lossOutsideDrops = outside.isEmpty ? 0 : ((outside.map(\.lossFraction).reduce(0, +) / Double(outside.count)) * 1000).rounded() / 1000
        if testCase.flows == 2 {
            let late = samples.filter { $0.atSeconds >= 30 && $0.deliveredPerFlowKbps.count == 2 }
            let differences = late.map { sample -> Double in
                let (a, b) = (Double(sample.deliveredPerFlowKbps[0]), Double(sample.deliveredPerFlowKbps[1]))
                return max(a, b) == 0 ? 0 : abs(a - b) / max(a, b)
            }
            flowRateDifference = differences.isEmpty ? nil : ((differences.reduce(0, +) / Double(differences.count)) * 1000).rounded() / 1000
        }
        // The criteria the issue sets: §5.1 (and its smoke) on link use, delay and loss; §5.2 on
        // fairness; the loss case is measured, not judged.
        var checks: [String: Bool] = [:]
        if testCase.flows == 1, testCase.lossProbability == 0 {
            checks["linkUse85PercentWithin5sOfEachStep"] = steps.allSatisfy { ($0.secondsTo85Percent ?? .infinity) <= 5 }
            checks["queueingDelayP95AtMost100ms"] = queueingDelayP95Milliseconds <= 100
            checks["lossOutsideDropsAtMost2Percent"] = lossOutsideDrops <= 0.02
        }
        if let flowRateDifference { checks["flowRatesWithin20PercentAfter30s"] = flowRateDifference <= 0.2 }
        self.checks = checks
    }

    /// One line per metric, for the terminal.
    var lines: [String] {
        var lines = ["case \(testCase): \(summary)"]
        for step in steps {
            lines.append(String(format: "  from %5.1f s at %5d kbps: 85 %% of the link used after %@, then %.0f %% used on average",
                                step.atSeconds, step.capacityKbps, step.secondsTo85Percent.map { String(format: "%.1f s", $0) } ?? "never",
                                step.meanUtilization * 100))
        }
        lines.append(String(format: "  delivered %d kbps on average (%.0f %% of capacity); queueing delay p50 %.1f ms, p95 %.1f ms; loss outside drops %.1f %%",
                            meanDeliveredKbps, meanUtilization * 100, queueingDelayP50Milliseconds, queueingDelayP95Milliseconds,
                            lossOutsideDrops * 100))
        if let flowRateDifference { lines.append(String(format: "  two flows after 30 s: rates differ by %.0f %% on average", flowRateDifference * 100)) }
        for (name, passed) in checks.sorted(by: { $0.key < $1.key }) { lines.append("  \(passed ? "PASS" : "FAIL") \(name)") }
        return lines
    }
}
