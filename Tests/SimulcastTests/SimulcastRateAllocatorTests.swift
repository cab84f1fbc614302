import Testing
@testable import Simulcast

/// A send-side estimate split across the layers of a 1280x720 plan (docs/layer-plan.md rates: 320x180
/// 30/150/200, 640x360 150/500/700, 1280x720 600/2500/2500 kbps min/target/max).
@Suite struct SimulcastRateAllocatorTests {
    let plan = try! LayerPlan(width: 1280, height: 720)
    var everyLayer: [Bool] { [true, true, true] }

    @Test func lightestFirstUpToTargetTheRestToTheTopRunningLayer() {
        var allocator = SimulcastRateAllocator(layers: plan.layers.map(\.bitrates))
        #expect(allocator.allocate(bitsPerSecond: 3_000_000, allowed: everyLayer, nowMilliseconds: 0) == [150, 500, 2_350])
        // The top layer's minimum (600) does not fit in 350: it pauses, the middle takes the rest to its max.
        #expect(allocator.allocate(bitsPerSecond: 1_000_000, allowed: everyLayer, nowMilliseconds: 10) == [150, 700, 0])
        #expect(allocator.runningLayerCount == 2)
        // The lightest layer always runs, at least at its minimum.
        #expect(allocator.allocate(bitsPerSecond: 10_000, allowed: everyLayer, nowMilliseconds: 20) == [30, 0, 0])
        #expect(allocator.runningLayerCount == 1)
    }

    @Test func aPausedLayerResumesOnlyAfterTheBudgetHeldWithHeadroom() {
        var allocator = SimulcastRateAllocator(layers: plan.layers.map(\.bitrates), resumeFactor: 1.2, resumeHoldMilliseconds: 500)
        _ = allocator.allocate(bitsPerSecond: 700_000, allowed: everyLayer, nowMilliseconds: 0)
        #expect(allocator.runningLayerCount == 2)
        // 1.4 Mbps leaves 750 kbps for the top layer: over its minimum, but the hold has not passed.
        #expect(allocator.allocate(bitsPerSecond: 1_400_000, allowed: everyLayer, nowMilliseconds: 100)[2] == 0)
        #expect(allocator.allocate(bitsPerSecond: 1_400_000, allowed: everyLayer, nowMilliseconds: 599)[2] == 0)
        #expect(allocator.allocate(bitsPerSecond: 1_400_000, allowed: everyLayer, nowMilliseconds: 600)[2] == 750)
        #expect(allocator.runningLayerCount == 3)
        // Just over the minimum without the headroom (650 < 1.2 x 600): a paused layer stays paused.
        _ = allocator.allocate(bitsPerSecond: 500_000, allowed: everyLayer, nowMilliseconds: 700)
        for at in stride(from: Int64(800), through: 3_000, by: 100) {
            #expect(allocator.allocate(bitsPerSecond: 1_300_000, allowed: everyLayer, nowMilliseconds: at)[2] == 0)
        }
    }

    @Test func layersThatMayNotRunGetNothingAndDoNotCount() {
        var allocator = SimulcastRateAllocator(layers: plan.layers.map(\.bitrates))
        // dynaCast: nobody watches the middle layer; the top one still gets its share.
        #expect(allocator.allocate(bitsPerSecond: 3_000_000, allowed: [true, false, true], nowMilliseconds: 0) == [150, 0, 2_500])
        // Capped to the lowest layer: everything goes there, up to its maximum.
        #expect(allocator.allocate(bitsPerSecond: 3_000_000, allowed: [true, false, false], nowMilliseconds: 10) == [200, 0, 0])
    }
}
