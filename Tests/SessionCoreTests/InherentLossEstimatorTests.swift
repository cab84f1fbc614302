import Testing
@testable import SessionCore

@Suite struct InherentLossEstimatorTests {
    @Test func steadyLossAtASteadyRateWithoutQueueingIsLearnedAsTheLinksOwn() {
        var estimator = InherentLossEstimator()
        var congestion: [Double] = []
        for _ in 0..<10 {
            congestion.append(estimator.congestionLoss(lossFraction: 0.05, packets: 60, sendingBitsPerSecond: 1_000_000, queueing: false))
        }
        #expect(congestion.first! < 0.1)  // never a back-off, not even the first interval
        #expect(congestion.suffix(5).allSatisfy { $0 < 0.02 })
        #expect(abs(estimator.inherentLoss - 0.05) < 0.01)
    }

    @Test func lossThatGrowsWithTheSendingRateIsCongestion() {
        var estimator = InherentLossEstimator()
        for _ in 0..<10 {
            _ = estimator.congestionLoss(lossFraction: 0.01, packets: 60, sendingBitsPerSecond: 1_000_000, queueing: false)
        }
        let congestion = estimator.congestionLoss(lossFraction: 0.14, packets: 60, sendingBitsPerSecond: 1_400_000, queueing: false)
        #expect(congestion >= 0.12)
        #expect(estimator.inherentLoss < 0.02)  // nothing learned from it
    }

    @Test func lossWithQueueingCountsWhole() {
        var estimator = InherentLossEstimator()
        for _ in 0..<10 {
            _ = estimator.congestionLoss(lossFraction: 0.05, packets: 60, sendingBitsPerSecond: 1_000_000, queueing: false)
        }
        let congestion = estimator.congestionLoss(lossFraction: 0.12, packets: 60, sendingBitsPerSecond: 1_000_000, queueing: true)
        #expect(congestion == 0.12)
        #expect(estimator.inherentLoss < 0.06)
    }

    @Test func aCollapseIsCongestionAndTeachesNothing() {
        var estimator = InherentLossEstimator()
        let congestion = estimator.congestionLoss(lossFraction: 0.85, packets: 40, sendingBitsPerSecond: 2_000_000, queueing: false)
        #expect(congestion == 0.85)
        #expect(estimator.inherentLoss == 0)
    }

    @Test func withoutDelayInformationAJumpInLossIsCongestionUntilItProvesSteady() {
        var estimator = InherentLossEstimator()
        let first = estimator.congestionLoss(lossFraction: 0.2, packets: nil, sendingBitsPerSecond: 800_000, queueing: nil)
        #expect(first >= 0.19)
        var congestion = first
        for _ in 0..<60 {
            congestion = estimator.congestionLoss(lossFraction: 0.08, packets: nil, sendingBitsPerSecond: 800_000, queueing: nil)
        }
        #expect(congestion < 0.02)
        #expect(estimator.inherentLoss <= InherentLossEstimator.maximumInherentLoss)
    }

    @Test func theInherentLossNeverPassesItsMaximum() {
        var estimator = InherentLossEstimator()
        for _ in 0..<100 {
            _ = estimator.congestionLoss(lossFraction: 0.25, packets: 100, sendingBitsPerSecond: 1_000_000, queueing: false)
        }
        #expect(estimator.inherentLoss == InherentLossEstimator.maximumInherentLoss)
        let congestion = estimator.congestionLoss(lossFraction: 0.25, packets: 100, sendingBitsPerSecond: 1_000_000, queueing: false)
        #expect(congestion >= 0.09)
    }
}
