import RTPWire
import Testing
@testable import SessionCore

/// 1000-byte packets every 10 ms: 800 kbps.
private func feed(_ estimator: inout BandwidthEstimator, from start: Int64, to end: Int64) {
    var time = start
    while time < end {
        estimator.packetReceived(bytes: 1000, nowMilliseconds: time)
        time += 10
    }
}

@Suite struct BandwidthEstimatorTests {
    @Test func incomingBitrateIsMeasuredOverTheWindow() {
        var estimator = BandwidthEstimator()
        feed(&estimator, from: 0, to: 2000)
        let rate = estimator.incomingBitsPerSecond(nowMilliseconds: 1999)
        #expect(rate >= 760_000 && rate <= 840_000)
    }

    @Test func heavyLossDropsTheEstimateToAtMostWhatGotThrough() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 5_000_000))
        feed(&estimator, from: 0, to: 1000)
        let estimate = estimator.update(lossFraction: 0.3, nowMilliseconds: 999)
        #expect(estimate <= 800_000)
        #expect(estimate >= 700_000)
    }

    @Test func heavyLossAfterASqueezeDropsToWhatArrivedSinceThePreviousUpdate() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 800_000))
        feed(&estimator, from: 0, to: 2000)
        _ = estimator.update(lossFraction: 0, nowMilliseconds: 1999)
        // Squeezed to a quarter: 1000-byte packets every 40 ms (200 kbps), 75 % lost, for 500 ms.
        var time: Int64 = 2000
        while time < 2500 {
            estimator.packetReceived(bytes: 1000, nowMilliseconds: time)
            time += 40
        }
        let estimate = estimator.update(lossFraction: 0.75, nowMilliseconds: 2499)
        // The 1 s window still says ~500 kbps; what arrived since the previous update is ~200 kbps.
        #expect(estimate <= 230_000)
        #expect(estimate >= 150_000)
    }

    @Test func lowLossLetsTheEstimateGrowFromTheIncomingRate() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 100_000, increasePerSecond: 0.25))
        feed(&estimator, from: 0, to: 1000)
        _ = estimator.update(lossFraction: 0, nowMilliseconds: 999)
        feed(&estimator, from: 1000, to: 2000)
        let grown = estimator.update(lossFraction: 0, nowMilliseconds: 1999)
        #expect(grown >= 960_000)  // ≥ 800 kbps × 1.25 minus window rounding
        #expect(grown <= 1_100_000)
    }

    @Test func moderateLossHoldsTheEstimate() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 1_000_000))
        feed(&estimator, from: 0, to: 1000)
        let held = estimator.update(lossFraction: 0.05, nowMilliseconds: 999)
        #expect(held == 1_000_000)
    }

    @Test func incomingCapRatioBoundsTheEstimate() {
        var estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 5_000_000, incomingCapRatio: 1.5))
        feed(&estimator, from: 0, to: 1000)
        let capped = estimator.update(lossFraction: 0, nowMilliseconds: 999)
        #expect(capped <= 1_210_000)
    }

    @Test func rembPacketCarriesTheEstimate() throws {
        let estimator = BandwidthEstimator(configuration: .init(initialBitsPerSecond: 1_000_000))
        let remb = estimator.rembPacket(senderSSRC: 9, mediaSSRCs: [42])
        let bytes = try RTCPCompoundPacket(packets: [.receiverEstimatedMaxBitrate(remb)]).serialized()
        let parsed = try RTCPCompoundPacket(parsing: bytes)
        guard case let .receiverEstimatedMaxBitrate(back)? = parsed.packets.first else {
            Issue.record("not a REMB")
            return
        }
        #expect(back.bitrate == 1_000_000)
        #expect(back.ssrcs == [42])
    }
}
