import Testing
@testable import Simulcast

@Suite struct REMBLayerAllocatorTests {
    /// 150 + 500 + 2500 kbps: the 1280x720 plan's three layers.
    private func allocator(hold: Int64 = 1000) -> REMBLayerAllocator {
        REMBLayerAllocator(layerKbps: [150, 500, 2500], resumeHeadroom: 1.2, resumeHoldMilliseconds: hold)
    }

    @Test func everyLayerFlowsUntilARembSaysLess() {
        var a = allocator()
        #expect(a.activeLayerCount == 3)
        #expect(a.update(bitrate: 5_000_000, nowMilliseconds: 0) == 3)
        #expect(a.update(bitrate: 3_150_000, nowMilliseconds: 1000) == 3)  // exactly the total still fits
    }

    @Test func topLayersPauseAtOnceLowestNever() {
        var a = allocator()
        #expect(a.update(bitrate: 3_149_000, nowMilliseconds: 0) == 2)
        var b = allocator()
        #expect(b.update(bitrate: 600_000, nowMilliseconds: 0) == 1)   // 650 does not fit: both top layers
        #expect(b.update(bitrate: 0, nowMilliseconds: 10) == 1)        // the lowest layer keeps flowing
        #expect(b.update(bitrate: 10_000, nowMilliseconds: 20) == 1)
    }

    @Test func resumeNeedsHeadroomAndHold() {
        var a = allocator()
        #expect(a.update(bitrate: 200_000, nowMilliseconds: 0) == 1)
        // 650 kbps would fit, but not with 20% headroom (780): stays paused however long.
        #expect(a.update(bitrate: 700_000, nowMilliseconds: 1000) == 1)
        #expect(a.update(bitrate: 700_000, nowMilliseconds: 5000) == 1)
        // 800 kbps carries 650 x 1.2: allowed from now, resumes after the 1 s hold.
        #expect(a.update(bitrate: 800_000, nowMilliseconds: 6000) == 1)
        #expect(a.update(bitrate: 800_000, nowMilliseconds: 6999) == 1)
        #expect(a.update(bitrate: 800_000, nowMilliseconds: 7000) == 2)
        // A dip below the headroom restarts the hold for the next layer.
        #expect(a.update(bitrate: 5_000_000, nowMilliseconds: 8000) == 2)
        #expect(a.update(bitrate: 3_000_000, nowMilliseconds: 8500) == 2)  // < 3150 x 1.2, but 650 fits
        #expect(a.update(bitrate: 5_000_000, nowMilliseconds: 9000) == 2)
        #expect(a.update(bitrate: 5_000_000, nowMilliseconds: 9999) == 2)
        #expect(a.update(bitrate: 5_000_000, nowMilliseconds: 10000) == 3)
    }

    @Test func resumesOneLayerAtATime() {
        var a = allocator(hold: 0)
        #expect(a.update(bitrate: 100_000, nowMilliseconds: 0) == 1)
        #expect(a.update(bitrate: 10_000_000, nowMilliseconds: 1) == 2)
        #expect(a.update(bitrate: 10_000_000, nowMilliseconds: 2) == 3)
        #expect(a.update(bitrate: 10_000_000, nowMilliseconds: 3) == 3)
    }

    @Test func boundaryDoesNotFlap() {
        // A REMB hovering around the three-layer total: pauses once, never resumes in between.
        var a = allocator(hold: 0)
        var counts: [Int] = []
        for (i, kbps) in [3200, 3100, 3200, 3300, 3140, 3500, 3700].enumerated() {
            counts.append(a.update(bitrate: UInt64(kbps) * 1000, nowMilliseconds: Int64(i) * 1000))
        }
        #expect(counts == [3, 2, 2, 2, 2, 2, 2])
        #expect(a.update(bitrate: 3_800_000, nowMilliseconds: 10_000) == 3)
    }

    @Test func hostileValuesDoNotTrap() {
        var a = REMBLayerAllocator(layerKbps: [Int.max, Int.max, -5], resumeHeadroom: .nan, resumeHoldMilliseconds: -1)
        _ = a.update(bitrate: .max, nowMilliseconds: .min)
        _ = a.update(bitrate: 0, nowMilliseconds: .max)
        _ = a.update(bitrate: .max, nowMilliseconds: .min)
        #expect((1...3).contains(a.activeLayerCount))
        var empty = REMBLayerAllocator(layerKbps: [])
        #expect(empty.update(bitrate: 0, nowMilliseconds: 0) == 1)
    }
}

@Suite struct REMBLayerAllocatorExpiryTests {
    @Test func limitLapsesWhenRembsStop() {
        var a = REMBLayerAllocator(layerKbps: [150, 500, 2500], expiryMilliseconds: 5000)
        #expect(a.expire(nowMilliseconds: 100_000) == 3)  // no REMB yet: nothing to lapse
        #expect(a.update(bitrate: 300_000, nowMilliseconds: 0) == 1)
        #expect(a.expire(nowMilliseconds: 4999) == 1)
        #expect(a.update(bitrate: 300_000, nowMilliseconds: 4000) == 1)  // a fresh REMB restarts the window
        #expect(a.expire(nowMilliseconds: 8999) == 1)
        #expect(a.expire(nowMilliseconds: 9000) == 3)
        #expect(a.lastBitrate == nil)
        // The next REMB limits again, from all layers.
        #expect(a.update(bitrate: 700_000, nowMilliseconds: 9500) == 2)
    }

    @Test func zeroExpiryNeverLapses() {
        var a = REMBLayerAllocator(layerKbps: [150, 500], expiryMilliseconds: 0)
        #expect(a.update(bitrate: 100_000, nowMilliseconds: 0) == 1)
        #expect(a.expire(nowMilliseconds: .max) == 1)
    }
}
