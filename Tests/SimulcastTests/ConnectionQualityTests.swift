import Testing
import RTPWire
@testable import Simulcast

private func sample(loss: Double = 0, rtt: Double = 20, jitter: Double = 5, kbps: Double = 500) -> QualitySample {
    QualitySample(loss: loss, rttMilliseconds: rtt, jitterMilliseconds: jitter, bitrateKbps: kbps)
}

/// A sample (rtt 20 ms, jitter 5 ms) whose MOS is `target`, found by bisection on the loss.
private func sample(mos target: Double) -> QualitySample {
    var low = 0.0, high = 0.37
    for _ in 0..<60 {
        let mid = (low + high) / 2
        if MeanOpinionScore(sample(loss: mid)).value > target { low = mid } else { high = mid }
    }
    return sample(loss: (low + high) / 2)
}

@Suite struct MeanOpinionScoreTests {
    @Test func perfectNetworkScoresNearTheModelCeiling() {
        let mos = MeanOpinionScore(sample(loss: 0, rtt: 0, jitter: 0))
        // R = 93.2 − 10/40 = 92.95.
        #expect(abs(mos.rFactor - 92.95) < 1e-9)
        #expect(abs(mos.value - 4.41) < 0.01)
        #expect(mos.score == 97)
    }

    @Test func lossImpairmentIsTwoAndAHalfPerPercent() {
        let clean = MeanOpinionScore(sample(loss: 0))
        let lossy = MeanOpinionScore(sample(loss: 0.04))
        #expect(abs((clean.rFactor - lossy.rFactor) - 10) < 1e-9)
    }

    @Test func delayImpairmentHasAKneeAt160Milliseconds() {
        // Le = rtt/2 + 2·jitter + 10: rtt 280, jitter 0 → Le 150 → Id 3.75.
        #expect(abs(MeanOpinionScore(sample(rtt: 280, jitter: 0)).rFactor - (93.2 - 3.75)) < 1e-9)
        // rtt 500 → Le 260 → Id (260 − 120)/10 = 14.
        #expect(abs(MeanOpinionScore(sample(rtt: 500, jitter: 0)).rFactor - (93.2 - 14)) < 1e-9)
    }

    @Test func mosIsClampedToOneAndScoreToZero() {
        let mos = MeanOpinionScore(sample(loss: 0.9, rtt: 5_000, jitter: 500))
        #expect(mos.value == 1.0)
        #expect(mos.rFactor == 0)
        #expect(mos.score == 0)
    }

    @Test func nonFiniteInputsAreSanitised() {
        let weird = QualitySample(loss: .nan, rttMilliseconds: -.infinity, jitterMilliseconds: .infinity,
                                  bitrateKbps: .nan)
        #expect(weird.loss == 1)
        #expect(weird.rttMilliseconds == QualitySample.maximumMilliseconds)
        #expect(weird.jitterMilliseconds == QualitySample.maximumMilliseconds)
        #expect(weird.bitrateKbps == 0)
        #expect(MeanOpinionScore(weird).value == 1.0)
    }
}

@Suite struct QualitySampleTests {
    @Test func sampleFromAReportBlockConvertsLossAndJitter() {
        let block = ReportBlock(ssrc: 1, fractionLost: 64, interarrivalJitter: 960)
        let sample = QualitySample(reportBlock: block, clockRate: 48_000, rttMilliseconds: 42, bitrateKbps: 32)
        #expect(sample.loss == 0.25)
        #expect(sample.jitterMilliseconds == 20)
        #expect(sample.rttMilliseconds == 42)
        #expect(sample.bitrateKbps == 32)
    }

    @Test func zeroClockRateDoesNotDivideByZero() {
        let sample = QualitySample(reportBlock: ReportBlock(ssrc: 1, interarrivalJitter: 5), clockRate: 0,
                                   rttMilliseconds: 10, bitrateKbps: 0)
        #expect(sample.jitterMilliseconds == QualitySample.maximumMilliseconds)
    }
}

@Suite struct ConnectionQualityLevelTests {
    @Test func levelsOrderByBadness() {
        #expect(ConnectionQualityLevel.allCases == [.unknown, .excellent, .good, .poor, .lost])
        #expect(ConnectionQualityLevel.allCases == ConnectionQualityLevel.allCases.sorted())
        #expect(max(ConnectionQualityLevel.good, .poor) == .poor)
    }

    @Test func levelThresholds() {
        let thresholds = ConnectionQualityThresholds()
        #expect(thresholds.level(mos: 4.5, loss: 0) == .excellent)
        #expect(thresholds.level(mos: 4.3, loss: 0) == .excellent)
        #expect(thresholds.level(mos: 4.29, loss: 0) == .good)
        #expect(thresholds.level(mos: 3.6, loss: 0) == .good)
        #expect(thresholds.level(mos: 3.59, loss: 0) == .poor)
        #expect(thresholds.level(mos: 1.0, loss: 0.49) == .poor)
        #expect(thresholds.level(mos: 1.0, loss: 0.5) == .lost)
    }

    /// Loss 0 % / 3 % / 15 % with rtt 20 or 100 ms: excellent / good / poor or worse.
    @Test(arguments: [
        (0.00, 20.0, ConnectionQualityLevel.excellent), (0.00, 100.0, .excellent),
        (0.03, 20.0, .good), (0.03, 100.0, .good),
        (0.15, 20.0, .poor), (0.15, 100.0, .poor),
    ])
    func lossAndRttTable(loss: Double, rtt: Double, expected: ConnectionQualityLevel) {
        var monitor = ConnectionQualityMonitor()
        let measured = sample(loss: loss, rtt: rtt, jitter: 5)
        let update = monitor.record(uplink: measured, downlink: measured)
        if expected == .poor {
            #expect(update.report.overall >= .poor)
        } else {
            #expect(update.report.overall == expected)
        }
    }
}

@Suite struct ConnectionQualityMonitorTests {
    @Test func nilBeforeFirstReport() {
        let monitor = ConnectionQualityMonitor()
        #expect(monitor.connectionQuality() == nil)
    }

    @Test func missedIntervalBeforeFirstReportReportsNothing() {
        var monitor = ConnectionQualityMonitor()
        let update = monitor.recordMissedInterval()
        #expect(update == nil)
        #expect(monitor.connectionQuality() == nil)
    }

    @Test func nilAgainAfterReconnect() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(), downlink: sample())
        #expect(monitor.connectionQuality() != nil)
        monitor.reconnected()
        #expect(monitor.connectionQuality() == nil)
    }

    @Test func previousIsUnknownOnFirstChange() {
        var monitor = ConnectionQualityMonitor()
        let update = monitor.record(uplink: sample(), downlink: sample())
        #expect(update.change?.previous == .unknown)
        #expect(update.change?.overall == .excellent)
    }

    @Test func previousIsUnknownAgainOnFirstChangeAfterReconnect() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(), downlink: sample())
        monitor.reconnected()
        let update = monitor.record(uplink: sample(loss: 0.15), downlink: sample(loss: 0.15))
        #expect(update.change?.previous == .unknown)
        #expect(update.change?.overall == .poor)
    }

    @Test func overallIsTheWorseDirectionAndMosTheSmaller() {
        var monitor = ConnectionQualityMonitor()
        let up = sample(loss: 0.15)
        let down = sample(loss: 0)
        let update = monitor.record(uplink: up, downlink: down)
        #expect(update.report.uplink.level == .poor)
        #expect(update.report.downlink.level == .excellent)
        #expect(update.report.overall == .poor)
        #expect(update.change?.overall == .poor)
        #expect(update.change?.mos == MeanOpinionScore(up).value)
        #expect(update.report.mos == min(update.report.uplink.mos, update.report.downlink.mos))
    }

    @Test func reportCarriesTheMeasurements() {
        var monitor = ConnectionQualityMonitor()
        let update = monitor.record(uplink: sample(loss: 0.03, rtt: 100, jitter: 7, kbps: 1200), downlink: sample())
        let up = update.report.uplink
        #expect(up.loss == 0.03)
        #expect(up.rttMilliseconds == 100)
        #expect(up.jitterMilliseconds == 7)
        #expect(up.bitrateKbps == 1200)
        #expect(up.mos == MeanOpinionScore(sample(loss: 0.03, rtt: 100, jitter: 7)).value)
        #expect(up.score == MeanOpinionScore(sample(loss: 0.03, rtt: 100, jitter: 7)).score)
    }

    @Test func changeIsEmittedOnlyWhenTheLevelChanges() {
        var monitor = ConnectionQualityMonitor()
        var changes: [ConnectionQualityChange] = []
        for loss in [0.0, 0.001, 0.002, 0.0] {
            if let change = monitor.record(uplink: sample(loss: loss), downlink: sample()).change { changes.append(change) }
        }
        #expect(changes.count == 1)
    }

    @Test func onlyOverallChangesAreEmitted() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(loss: 0.15), downlink: sample())
        // The downlink gets worse but stays better than the uplink: overall is still poor.
        let update = monitor.record(uplink: sample(loss: 0.15), downlink: sample(loss: 0.03))
        #expect(update.report.downlink.level == .good)
        #expect(update.change == nil)
    }

    @Test func levelHysteresisAtAThresholdDoesNotFlap() {
        var monitor = ConnectionQualityMonitor()
        let excellentBoundary = ConnectionQualityThresholds().excellentMOS
        var changes: [ConnectionQualityChange] = []
        var rawLevels: Set<ConnectionQualityLevel> = []
        for index in 0..<40 {
            // ±0.03 MOS around the excellent/good boundary, alternating every report.
            let measured = sample(mos: excellentBoundary + (index.isMultiple(of: 2) ? 0.03 : -0.03))
            rawLevels.insert(ConnectionQualityThresholds().level(measured))
            if let change = monitor.record(uplink: measured, downlink: measured).change { changes.append(change) }
        }
        #expect(rawLevels == [.excellent, .good])  // without hysteresis it would flap 40 times
        #expect(changes.count == 1)
        #expect(changes.first?.previous == .unknown)
    }

    @Test func largeSwingsAroundAThresholdChangeAtMostOnce() {
        var monitor = ConnectionQualityMonitor()
        let boundary = ConnectionQualityThresholds().goodMOS
        var changes = 0
        for index in 0..<40 {
            // ±0.15 MOS: beyond the band, but improvements need two reports in a row.
            let measured = sample(mos: boundary + (index.isMultiple(of: 2) ? 0.15 : -0.15))
            if monitor.record(uplink: measured, downlink: measured).change != nil { changes += 1 }
        }
        #expect(changes <= 2)  // the first grading, and at most one move down
    }

    @Test func degradationIsAppliedAtOnce() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(), downlink: sample())
        let update = monitor.record(uplink: sample(loss: 0.15), downlink: sample())
        #expect(update.change?.previous == .excellent)
        #expect(update.change?.overall == .poor)
    }

    @Test func improvementNeedsTwoConsecutiveReports() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(loss: 0.15), downlink: sample())
        let first = monitor.record(uplink: sample(), downlink: sample())
        #expect(first.change == nil)
        #expect(first.report.overall == .poor)
        let second = monitor.record(uplink: sample(), downlink: sample())
        #expect(second.change?.previous == .poor)
        #expect(second.change?.overall == .excellent)
    }

    @Test func improvementStreakAppliesTheSmallestImprovementSeen() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(loss: 0.15), downlink: sample())
        _ = monitor.record(uplink: sample(loss: 0.03), downlink: sample())  // good
        let update = monitor.record(uplink: sample(), downlink: sample())    // excellent
        #expect(update.change?.overall == .good)
    }

    @Test func heavyLossIsLost() {
        var monitor = ConnectionQualityMonitor()
        let update = monitor.record(uplink: sample(loss: 0.6), downlink: sample())
        #expect(update.report.overall == .lost)
        #expect(update.report.uplink.mos == 1.0)
    }

    @Test func missedIntervalsBecomeLostAfterThree() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(), downlink: sample())
        let first = monitor.recordMissedInterval()
        let second = monitor.recordMissedInterval()
        #expect(first?.change == nil)
        #expect(second?.change == nil)
        #expect(second?.report.overall == .excellent)
        let third = monitor.recordMissedInterval()
        #expect(third?.change?.previous == .excellent)
        #expect(third?.change?.overall == .lost)
        #expect(third?.report.uplink.loss == 1)
        #expect(third?.report.downlink.bitrateKbps == 0)
        #expect(third?.report.mos == 1.0)
    }

    @Test func aReportResetsTheMissedIntervalCount() {
        var monitor = ConnectionQualityMonitor()
        _ = monitor.record(uplink: sample(), downlink: sample())
        _ = monitor.recordMissedInterval()
        _ = monitor.recordMissedInterval()
        _ = monitor.record(uplink: sample(), downlink: sample())
        let update = monitor.recordMissedInterval()
        #expect(update?.report.overall == .excellent)
    }
}

@Suite struct ConnectionQualityRobustnessTests {
    @Test(arguments: [UInt64(21), 22, 23])
    func arbitrarySamplesGiveBoundedScores(seed: UInt64) {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 16
        }
        func value() -> Double {
            switch next() % 10 {
            case 0: return .nan
            case 1: return .infinity
            case 2: return -.infinity
            case 3: return -Double(next() % 1_000)
            default: return Double(next() % 100_000) / 100
            }
        }
        var monitor = ConnectionQualityMonitor()
        for _ in 0..<5_000 {
            let choice = next() % 20
            let update: ConnectionQualityUpdate?
            if choice == 0 {
                monitor.reconnected()
                update = nil
            } else if choice < 4 {
                update = monitor.recordMissedInterval()
            } else {
                let sample = QualitySample(loss: value() / 100, rttMilliseconds: value(), jitterMilliseconds: value(),
                                           bitrateKbps: value())
                update = monitor.record(uplink: sample, downlink: QualitySample(loss: value(), rttMilliseconds: value(),
                                                                                jitterMilliseconds: value(), bitrateKbps: value()))
            }
            guard let report = update?.report else { continue }
            for direction in [report.uplink, report.downlink] {
                #expect((1.0...4.5).contains(direction.mos))
                #expect((0...100).contains(direction.score))
                #expect((0.0...1.0).contains(direction.loss))
                #expect(direction.level != .unknown)
            }
            if let change = update?.change { #expect(change.previous != change.overall) }
        }
    }
}
