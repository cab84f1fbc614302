import Testing
@testable import Simulcast

// 1280x720 plan: targets 150 / 500 / 2500 kbps. Needs (bps) of the ladder, highest first:
// S2T2 2_500_000, S2T1 1_500_000, S1T2 500_000, S1T1 300_000, S0T2 150_000, S0T1 90_000, S0T0 60_000.
private func hd() throws -> LayerSelector { LayerSelector(plan: try LayerPlan(width: 1280, height: 720)) }
private func l(_ spatial: Int, _ temporal: Int) -> LayerTarget { LayerTarget(spatial: spatial, temporal: temporal) }

/// Target after a single estimate on a fresh 1280x720 selector (going down is immediate).
private func targetFor(estimate: Int) throws -> LayerTarget? {
    var selector = try hd()
    _ = selector.updateBandwidth(estimatedBitsPerSecond: estimate, nowMilliseconds: 0)
    return selector.target
}

/// A small deterministic generator (64-bit LCG) for jitter; the tests' only source of variety.
private struct TestJitter {
    var state: UInt64
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
}

@Suite struct LayerSelectorBandwidthTests {
    @Test func temporalNeedsAre40And60And100PercentOfTarget() throws {
        let selector = try hd()
        #expect(selector.requiredBitsPerSecond(l(2, 0)) == 1_000_000)
        #expect(selector.requiredBitsPerSecond(l(2, 1)) == 1_500_000)
        #expect(selector.requiredBitsPerSecond(l(2, 2)) == 2_500_000)
    }

    @Test func measuredBitratesReplaceDefaultsAndMissingOnesDefault() {
        let sizes = [VideoSize(width: 320, height: 180), VideoSize(width: 1280, height: 720)]
        let selector = LayerSelector(layerSizes: sizes, targetKbps: [100])
        #expect(selector.layerTargetBitsPerSecond == [100_000, 2_500_000])
    }

    @Test func ladderThinsTo15FpsBeforeDroppingASpatialLayer() throws {
        #expect(try targetFor(estimate: 2_000_000) == l(2, 1))
        #expect(try targetFor(estimate: 1_200_000) == l(1, 2))  // not S2T0 at 7.5 fps
        #expect(try targetFor(estimate: 400_000) == l(1, 1))
        #expect(try targetFor(estimate: 200_000) == l(0, 2))
        #expect(try targetFor(estimate: 100_000) == l(0, 1))
        #expect(try targetFor(estimate: 70_000) == l(0, 0))
    }

    @Test func belowEveryRungStillDeliversTheLowest() throws {
        #expect(try targetFor(estimate: 0) == l(0, 0))
    }

    @Test func sufficientEstimateKeepsPreferredLayer() throws {
        var selector = try hd()
        let change = selector.updateBandwidth(estimatedBitsPerSecond: 3_000_000, nowMilliseconds: 0)
        #expect(change == nil)
        #expect(selector.target == l(2, 2))
    }

    @Test func bandwidthDropMovesDownImmediately() throws {
        var selector = try hd()
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 3_000_000, nowMilliseconds: 0)
        let change = selector.updateBandwidth(estimatedBitsPerSecond: 1_000_000, nowMilliseconds: 100)
        #expect(change == LayerTargetChange(from: l(2, 2), to: l(1, 2), reason: .bandwidthDown))
    }

    @Test func moveUpOnlyAfterHoldTime() throws {
        var selector = try hd()
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 1_000_000, nowMilliseconds: 0)
        var changes: [LayerTargetChange] = []
        for now in stride(from: Int64(1_000), through: 3_900, by: 100) {
            if let change = selector.updateBandwidth(estimatedBitsPerSecond: 3_000_000, nowMilliseconds: now) {
                changes.append(change)
            }
        }
        #expect(changes.isEmpty)
        let up = selector.updateBandwidth(estimatedBitsPerSecond: 3_000_000, nowMilliseconds: 4_000)
        #expect(up == LayerTargetChange(from: l(1, 2), to: l(2, 2), reason: .bandwidthUp))
    }

    @Test func interruptedSupportRestartsTheHold() throws {
        var selector = try hd()
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 1_000_000, nowMilliseconds: 0)
        var changes: [(Int64, LayerTargetChange)] = []
        for now in stride(from: Int64(1_000), through: 8_000, by: 100) {
            // One estimate at 2 s is below 2.5M × 1.1 (S2T2) but still supports S2T1.
            let estimate = now == 2_000 ? 2_600_000 : 3_000_000
            if let change = selector.updateBandwidth(estimatedBitsPerSecond: estimate, nowMilliseconds: now) {
                changes.append((now, change))
            }
        }
        #expect(changes.map(\.0) == [4_000, 5_100])
        #expect(changes.map(\.1.to) == [l(2, 1), l(2, 2)])
    }

    @Test func upSwitchNeedsHeadroom() throws {
        var selector = try hd()
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 2_400_000, nowMilliseconds: 0)
        var changes = 0
        for now in stride(from: Int64(100), through: 20_000, by: 100) {
            // Enough for S2T2 by need, not by need × 1.1.
            if selector.updateBandwidth(estimatedBitsPerSecond: 2_600_000, nowMilliseconds: now) != nil { changes += 1 }
        }
        #expect(changes == 0)
        #expect(selector.target == l(2, 1))
    }

    @Test func recoveryJumpsToHighestHeldRung() throws {
        var selector = try hd()
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 10_000, nowMilliseconds: 0)
        var last: LayerTargetChange?
        for now in stride(from: Int64(0), through: 3_000, by: 500) {
            if let change = selector.updateBandwidth(estimatedBitsPerSecond: 5_000_000, nowMilliseconds: now) { last = change }
        }
        #expect(last == LayerTargetChange(from: l(0, 0), to: l(2, 2), reason: .bandwidthUp))
    }

    @Test func upSwitchNeverExceedsPreference() throws {
        var selector = try hd()
        _ = selector.setPreference(.quality(.medium), nowMilliseconds: 0)
        for now in stride(from: Int64(0), through: 10_000, by: 500) {
            _ = selector.updateBandwidth(estimatedBitsPerSecond: 10_000_000, nowMilliseconds: now)
        }
        #expect(selector.target == l(1, 2))
    }

    @Test func preferenceChangeIsBoundedByEstimate() throws {
        var selector = try hd()
        _ = selector.setPreference(.quality(.low), nowMilliseconds: 0)
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 600_000, nowMilliseconds: 0)
        let change = selector.setPreference(.quality(.high), nowMilliseconds: 10)
        #expect(change == LayerTargetChange(from: l(0, 2), to: l(1, 2), reason: .client))
    }

    @Test func holdTimeIsConfigurable() throws {
        var selector = LayerSelector(plan: try LayerPlan(), configuration: .init(upSwitchHoldMilliseconds: 500))
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 1_000_000, nowMilliseconds: 0)
        _ = selector.updateBandwidth(estimatedBitsPerSecond: 3_000_000, nowMilliseconds: 100)
        let up = selector.updateBandwidth(estimatedBitsPerSecond: 3_000_000, nowMilliseconds: 600)
        #expect(up?.reason == .bandwidthUp)
    }

    /// Estimates every 100 ms for 60 s, jittering ±5 % around `center`; returns the change times.
    private func switchTimes(center: Double, seed: UInt64) throws -> [Int64] {
        var selector = try hd()
        var jitter = TestJitter(state: seed)
        var times: [Int64] = []
        for now in stride(from: Int64(0), to: 60_000, by: 100) {
            let estimate = Int(center * (0.95 + 0.1 * jitter.next()))
            if selector.updateBandwidth(estimatedBitsPerSecond: estimate, nowMilliseconds: now) != nil { times.append(now) }
        }
        return times
    }

    @Test(arguments: [2_500_000.0, 1_500_000, 500_000, 300_000, 150_000, 90_000,
                      2_750_000, 1_650_000, 550_000, 2_600_000, 1_575_000])
    func jitterAroundABoundaryCausesAtMostAHandfulOfSwitches(center: Double) throws {
        for seed in UInt64(1)...5 {
            let times = try switchTimes(center: center, seed: seed)
            #expect(times.count <= 2, "\(times.count) switches at \(center)")
            // After the first settling move, switches are at least the hold time apart.
            for (earlier, later) in zip(times.dropFirst(), times.dropFirst(2)) {
                #expect(later - earlier >= 3_000, "switches at \(earlier) and \(later) ms around \(center)")
            }
        }
    }
}
