@testable import MediaEngine
import Testing

/// `JanusDownlinkEstimate` on a manual clock: one estimate of a Janus subscriber connection's whole
/// downlink from the bytes it reads and the loss of all its streams (issue 28 item 5).
@Suite struct JanusDownlinkEstimateTests {
    /// 500 ms steps of `bytes` read and, per stream, `expected` / `received` packets more.
    struct Link {
        var estimate = JanusDownlinkEstimate()
        var now: Int64 = 0
        var bytes: Int64 = 0
        var counts: [String: (expected: Int64, received: Int64)] = [:]

        mutating func step(bytes more: Int64, _ streams: [String: (expected: Int64, received: Int64)]) -> Int? {
            now += 500
            bytes += more
            for (mid, delta) in streams {
                let old = counts[mid] ?? (0, 0)
                counts[mid] = (old.expected + delta.expected, old.received + delta.received)
            }
            let current = counts.map { JanusDownlinkEstimate.StreamCounts(mid: $0.key, expected: $0.value.expected, received: $0.value.received) }
            estimate.observe(bytesReceived: bytes, streams: current, nowMilliseconds: now)
            return estimate.bitsPerSecond
        }
    }

    @Test func startsAtItsMaximumSoOnlyLossPausesAVideo() {
        var link = Link()
        #expect(link.step(bytes: 25_000, ["a": (50, 50)]) == nil)  // the first report only sets the baseline
        #expect(link.step(bytes: 25_000, ["a": (50, 50)]) == 20_000_000)
        #expect(link.step(bytes: 25_000, ["a": (50, 50), "b": (50, 50)]) == 20_000_000)
    }

    @Test func heavyLossOfAllStreamsTogetherFallsToWhatArrived() {
        var link = Link()
        _ = link.step(bytes: 25_000, ["a": (50, 50), "b": (50, 50)])
        _ = link.step(bytes: 25_000, ["a": (50, 50), "b": (50, 50)])
        // Half of all packets lost (b loses everything, a nothing): 12,500 bytes in 500 ms arrived.
        let squeezed = link.step(bytes: 12_500, ["a": (50, 50), "b": (50, 0)])
        #expect(squeezed == 200_000)
        // A loss of one stream only, under 2 % of all packets, does not lower it.
        let light = link.step(bytes: 12_500, ["a": (99, 99), "b": (1, 0)])
        #expect(light.map { $0 >= 200_000 } == true)
    }

    @Test func aResumedStreamsSequenceGapIsNotLossWithinTheGrace() {
        var link = Link()
        _ = link.step(bytes: 25_000, ["a": (50, 50), "b": (50, 50)])
        let before = link.step(bytes: 25_000, ["a": (50, 50), "b": (50, 50)])
        link.estimate.resumed(mid: "b", nowMilliseconds: link.now)
        // Janus numbered on through b's pause: 1,000 packets "expected" that never were sent.
        #expect(link.step(bytes: 25_000, ["a": (50, 50), "b": (1_050, 50)]) == before)
        // After the grace the same gap is loss.
        _ = link.step(bytes: 25_000, ["a": (50, 50), "b": (50, 50)])
        let after = link.step(bytes: 25_000, ["a": (50, 50), "b": (1_050, 50)])
        #expect(after.map { $0 <= 400_000 } == true)
    }
}
