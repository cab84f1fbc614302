import Foundation

/// The verdict on one congestion case: RFC 8868's metrics (rate, utilization, queueing delay,
/// loss, fairness between flows) and the acceptance checks its `CongestionCase.Criteria` names
/// (issues 14 and 31): for one flow, after each capacity step the link is ≥ 85 % used within 5 s
/// (§5.1: 3 s, and ≥ 85 % on average, p95 queueing ≤ 50 ms), p95 queueing ≤ 100 ms, loss ≤ 2 %
/// outside the first second after a drop; two flows within 20 % of each other after 30 s; random
/// loss: ≥ 80 % used (5 %), still backing off on a congested link (15 %); several flows: Jain's
/// fairness index; beside a TCP-like flow: neither starves; after a pause: the share back.
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
    /// Each media flow's mean delivered rate once every flow sends (from 10 s after the last
    /// joined; kbps), and Jain's fairness index (Σx)² / (n Σx²) over them, averaged per sample
    /// (RFC 8868 §4.1's fairness between flows; 1 is an equal share).
    var meanFlowKbps: [Int]
    var jainFairness: Double?
    /// With a TCP-like flow: its share and the media's of the capacity from 10 s after it started.
    var bulkShare: Double?
    var mediaShare: Double?
    /// After a pause (resumed at `resumeAtSeconds`): until the flow first got 80 % of an equal share.
    var resumeAtSeconds: Double?
    var secondsToShareAfterResume: Double?
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
        let joined = testCase.allStartedSeconds + 10
        let shared = samples.filter { sample in sample.atSeconds >= joined && sample.sending.allSatisfy { $0 } }
        meanFlowKbps = (0..<testCase.flows).map { flow in
            shared.isEmpty ? 0 : shared.map { $0.deliveredPerFlowKbps[flow] }.reduce(0, +) / shared.count
        }
        if testCase.flows >= 2 {
            let indices = shared.map { sample -> Double in
                let rates = sample.deliveredPerFlowKbps.map(Double.init)
                let squares = rates.map { $0 * $0 }.reduce(0, +)
                return squares == 0 ? 1 : pow(rates.reduce(0, +), 2) / (Double(rates.count) * squares)
            }
            jainFairness = indices.isEmpty ? nil : ((indices.reduce(0, +) / Double(indices.count)) * 1000).rounded() / 1000
        }
        if let start = testCase.bulkFlowStartSeconds {
            let competing = samples.filter { $0.atSeconds >= start + 10 }
            func share(_ kbps: (CongestionRun.Sample) -> Int) -> Double? {
                competing.isEmpty ? nil : ((competing.map { Double(kbps($0)) / Double($0.capacityKbps) }.reduce(0, +)
                    / Double(competing.count)) * 1000).rounded() / 1000
            }
            bulkShare = share { $0.bulkKbps ?? 0 }
            mediaShare = share { $0.deliveredPerFlowKbps.reduce(0, +) }
        }
        if case let .pauseAndResume(flow, resumed) = testCase.criteria {
            let reached = samples.first { sample in
                sample.atSeconds > resumed
                    && Double(sample.deliveredPerFlowKbps[flow]) >= 0.8 * Double(sample.capacityKbps) / Double(testCase.flows)
            }
            resumeAtSeconds = resumed
            secondsToShareAfterResume = reached.map { (($0.atSeconds - resumed) * 10).rounded() / 10 }
        }
        if testCase.flows == 2 {
            let late = samples.filter { $0.atSeconds >= 30 && $0.deliveredPerFlowKbps.count == 2 }
            let differences = late.map { sample -> Double in
                let (a, b) = (Double(sample.deliveredPerFlowKbps[0]), Double(sample.deliveredPerFlowKbps[1]))
                return max(a, b) == 0 ? 0 : abs(a - b) / max(a, b)
            }
            flowRateDifference = differences.isEmpty ? nil : ((differences.reduce(0, +) / Double(differences.count)) * 1000).rounded() / 1000
        }
        self.checks = [:]
        var checks: [String: Bool] = [:]
        func reachedWithin(_ seconds: Double) -> Bool { steps.allSatisfy { ($0.secondsTo85Percent ?? .infinity) <= seconds } }
        switch testCase.criteria {
        case .singleFlowBasic:
            checks["linkUse85PercentWithin5sOfEachStep"] = reachedWithin(5)
            checks["queueingDelayP95AtMost100ms"] = queueingDelayP95Milliseconds <= 100
            checks["lossOutsideDropsAtMost2Percent"] = lossOutsideDrops <= 0.02
        case .singleFlowStrict:
            checks["linkUse85PercentWithin3sOfEachStep"] = reachedWithin(3)
            checks["meanLinkUseAtLeast85Percent"] = meanUtilization >= 0.85
            checks["queueingDelayP95AtMost50ms"] = queueingDelayP95Milliseconds <= 50
            checks["lossOutsideDropsAtMost2Percent"] = lossOutsideDrops <= 0.02
        case .twoFlows:
            checks["linkUse85PercentWithin5sOfEachStep"] = reachedWithin(5)
            checks["flowRatesWithin20PercentAfter30s"] = (flowRateDifference ?? 1) <= 0.2
        case .randomLoss:
            checks["meanLinkUseAtLeast80Percent"] = meanUtilization >= 0.8
        case .congestedRandomLoss:
            checks["queueingDelayP95AtMost100ms"] = queueingDelayP95Milliseconds <= 100
        case let .sharing(jain):
            checks[String(format: "jainFairnessAtLeast%.1f", jain)] = (jainFairness ?? 0) >= jain
            checks["queueingDelayP95AtMost100ms"] = queueingDelayP95Milliseconds <= 100
        case .competingBulk:
            checks["mediaFlowGetsAtLeast20PercentOfTheLink"] = (mediaShare ?? 0) >= 0.2
            checks["bulkFlowGetsAtLeast20PercentOfTheLink"] = (bulkShare ?? 0) >= 0.2
        case .pauseAndResume:
            checks["resumedFlowAt80PercentOfAnEqualShareWithin10s"] = (secondsToShareAfterResume ?? .infinity) <= 10
            checks["queueingDelayP95AtMost100ms"] = queueingDelayP95Milliseconds <= 100
        }
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
        if let jainFairness {
            lines.append(String(format: "  once all flows send: %@ kbps on average, Jain's fairness index %.3f",
                                meanFlowKbps.map(String.init).joined(separator: " / "), jainFairness))
        }
        if let bulkShare, let mediaShare {
            lines.append(String(format: "  beside the TCP-like flow: media %.0f %%, TCP-like %.0f %% of the link", mediaShare * 100, bulkShare * 100))
        }
        if let resumeAtSeconds {
            lines.append("  after the resume at \(Int(resumeAtSeconds)) s: 80 % of an equal share after "
                         + (secondsToShareAfterResume.map { String(format: "%.1f s", $0) } ?? "never"))
        }
        for (name, passed) in checks.sorted(by: { $0.key < $1.key }) { lines.append("  \(passed ? "PASS" : "FAIL") \(name)") }
        return lines
    }
}
