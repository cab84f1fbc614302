import Testing
@testable import SessionCore

/// The downlink policer the demo throttles a subscriber with.
@Suite struct TokenBucketTests {
    /// Offers one datagram per (bytes, time) and returns which passed.
    private func offer(_ bucket: inout TokenBucket, _ offers: [(bytes: Int, at: Int64)]) -> [Bool] {
        offers.map { bucket.admit(bytes: $0.bytes, nowMilliseconds: $0.at) }
    }

    @Test func unlimitedLetsEverythingThrough() {
        var bucket = TokenBucket(bitsPerSecond: nil)
        let passed = offer(&bucket, Array(repeating: (1500, 0), count: 1000))
        #expect(passed.allSatisfy { $0 })
    }

    @Test func aBurstPassesThenTheRateHolds() {
        // 240 kbps = 30 bytes per ms; a 15 000-byte bucket.
        var bucket = TokenBucket(bitsPerSecond: 240_000, burstBytes: 15_000)
        let burst = offer(&bucket, Array(repeating: (1000, 0), count: 20))
        #expect(burst.filter { $0 }.count == 15)
        // Over the next second: 30 000 bytes of tokens = 30 packets of 1000 bytes, offered 100.
        let paced = offer(&bucket, (1...100).map { (1000, Int64($0) * 10) })
        #expect(paced.filter { $0 }.count == 30)
    }

    @Test func tokensNeverExceedTheDepthAndTimeGoingBackEarnsNothing() {
        var bucket = TokenBucket(bitsPerSecond: 8_000, burstBytes: 1500)
        let passed = offer(&bucket, [(1500, 0), (1, -5_000), (1500, 1), (1500, 3_600_000), (1500, 3_600_000)])
        // The step back earned nothing, not even once time moved on; an hour later: one full bucket.
        #expect(passed == [true, false, false, true, false])
    }

    @Test func changingTheRateTakesEffectAtOnce() {
        var bucket = TokenBucket(bitsPerSecond: 80_000, burstBytes: 1500)
        var passed = offer(&bucket, [(1500, 0), (1500, 10)])
        bucket.setRate(bitsPerSecond: nil, nowMilliseconds: 10)
        passed += offer(&bucket, [(1500, 10)])
        bucket.setRate(bitsPerSecond: 0, nowMilliseconds: 20)
        // Unlimited left the bucket full; at rate 0 nothing refills it.
        passed += offer(&bucket, [(1500, 20), (1, 60_000)])
        #expect(passed == [true, false, true, true, false])
    }
}
