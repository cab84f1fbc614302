import Testing
@testable import SessionCore

/// Bandwidth probing on a simulated clock: what a cluster measures, when the controller probes,
/// and how a proven rate lifts the send-side estimate.
@Suite struct BandwidthProbingTests {
    /// `count` probe packets of `bytes` sent every `sendSpacing` µs, arriving every
    /// `arrivalSpacing` µs (a bottleneck spreads them).
    func cluster(_ id: Int, count: Int, bytes: Int, sendSpacing: Int64, arrivalSpacing: Int64, start: Int64 = 0) -> [PacketResult] {
        (0..<count).map { index in
            PacketResult(sendMicroseconds: start + Int64(index) * sendSpacing,
                         arrivalMicroseconds: start + 20_000 + Int64(index) * arrivalSpacing, bytes: bytes, probeCluster: id)
        }
    }

    @Test func aClusterMeasuresTheLowerOfItsSendAndArrivalRates() {
        var estimator = ProbeBitrateEstimator()
        // 300 B every 1 ms is 2.4 Mbps sent; a 1.2 Mbps bottleneck spreads them to every 2 ms.
        for result in cluster(1, count: 10, bytes: 300, sendSpacing: 1_000, arrivalSpacing: 2_000) { estimator.add(result) }
        let squeezed = estimator.measured()
        #expect(squeezed.map { abs(Double($0) - 1_200_000) < 1_200_000 * 0.05 } == true)
        #expect(estimator.measured() == nil)  // counted once
        // An open link: it arrives as fast as it left.
        for result in cluster(2, count: 10, bytes: 300, sendSpacing: 1_000, arrivalSpacing: 1_000) { estimator.add(result) }
        #expect(estimator.measured().map { abs(Double($0) - 2_400_000) < 2_400_000 * 0.05 } == true)
    }

    @Test func tooFewPacketsMediaOrNoSpreadMeasureNothing() {
        var estimator = ProbeBitrateEstimator()
        for result in cluster(1, count: 4, bytes: 300, sendSpacing: 1_000, arrivalSpacing: 1_000) { estimator.add(result) }
        #expect(estimator.measured() == nil)
        for index in 0..<20 {
            estimator.add(PacketResult(sendMicroseconds: Int64(index) * 1_000, arrivalMicroseconds: Int64(index) * 1_000, bytes: 1_200))
        }
        #expect(estimator.measured() == nil)
        for result in cluster(2, count: 8, bytes: 300, sendSpacing: 0, arrivalSpacing: 0) { estimator.add(result) }
        #expect(estimator.measured() == nil)
        // Lost packets (no arrival) do not count.
        for index in 0..<8 {
            estimator.add(PacketResult(sendMicroseconds: Int64(index) * 1_000, arrivalMicroseconds: nil, bytes: 300, probeCluster: 3))
        }
        #expect(estimator.measured() == nil)
    }

    @Test func theControllerClimbsExponentiallyWhileProbesSucceedAndWaitsAfterAFailure() throws {
        var configuration = ProbeController.Configuration(clusterMilliseconds: 30, rateFactor: 2, retryIntervalMilliseconds: 2_000)
        configuration.minimumBytes = 0  // every cluster lasts its 30 ms
        var controller = ProbeController(configuration: configuration)
        func probe(_ estimate: UInt64, overuseAt: Int64? = nil, at now: Int64) -> ProbeController.Cluster? {
            controller.cluster(estimate: estimate, wanted: 2_000_000, lastOveruseMilliseconds: overuseAt, nowMilliseconds: now)
        }
        // Nothing to probe for when the estimate already covers what the sender wants.
        #expect(probe(3_000_000, at: 0) == nil)
        // Not right after over-use.
        #expect(probe(300_000, overuseAt: 0, at: 500) == nil)
        let first = try #require(probe(300_000, overuseAt: 0, at: 1_000))
        #expect(first.bitsPerSecond == 600_000)
        // Paced over its 30 ms: a third is due after 10 ms, all of it by the end.
        #expect(abs(first.bytesDue(nowMilliseconds: 1_009) - 750) <= 25)
        #expect(first.bytesDue(nowMilliseconds: 1_030) == first.totalBytes)
        controller.sent(bytes: first.totalBytes)
        #expect(probe(300_000, at: 1_031) == nil)
        // Proven: the next one starts at once, twice as high.
        controller.measured(590_000, nowMilliseconds: 1_080)
        let second = try #require(probe(590_000, at: 1_080))
        #expect(second.bitsPerSecond == 1_180_000)
        controller.sent(bytes: second.totalBytes)
        // Not proven (the link carried half): wait the retry interval.
        controller.measured(600_000, nowMilliseconds: 1_150)
        #expect(probe(600_000, at: 2_000) == nil)
        #expect(probe(600_000, at: 3_200) != nil)
        #expect(controller.clustersStarted == 3 && controller.clustersSucceeded == 1)
        // A slow cluster lasts long enough for the packets a measurement needs (6,000 bytes).
        var slow = ProbeController()
        let long = slow.cluster(estimate: 30_000, wanted: 2_000_000, lastOveruseMilliseconds: nil, nowMilliseconds: 0)
        #expect(long.map { $0.totalBytes >= 6_000 && $0.durationMilliseconds > 30 } == true)
        // Never far beyond what the sender wants.
        var capped = ProbeController(configuration: configuration)
        let near = capped.cluster(estimate: 1_900_000, wanted: 2_000_000, lastOveruseMilliseconds: nil, nowMilliseconds: 0)
        #expect(near?.bitsPerSecond == 2_400_000)
    }

    @Test func aProvenRateLiftsTheEstimateAndItsLossCeiling() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 300_000))
        #expect(estimator.targetBitsPerSecond == 300_000)
        // 2 Mbps proven by a 20-packet cluster that arrived as fast as it left.
        estimator.update(cluster(1, count: 20, bytes: 250, sendSpacing: 1_000, arrivalSpacing: 1_000), nowMilliseconds: 100)
        #expect(estimator.probeResults == 1)
        #expect(estimator.targetBitsPerSecond >= 1_800_000)
        // Within the ceiling whatever a probe says.
        var capped = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 300_000, maximumBitsPerSecond: 1_000_000))
        capped.update(cluster(1, count: 20, bytes: 250, sendSpacing: 100, arrivalSpacing: 100), nowMilliseconds: 100)
        #expect(capped.targetBitsPerSecond == 1_000_000)
    }
}
