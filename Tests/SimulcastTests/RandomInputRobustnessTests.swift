import Testing
@testable import Simulcast

/// A deterministic 64-bit LCG: the tests' only source of variety.
private struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 16
    }
    mutating func below(_ bound: UInt64) -> UInt64 { next() % bound }
}

/// Arbitrary wire values and call orders must never trap (CONVENTIONS: wire values use
/// wrapping arithmetic only); these replay many random inputs through the stateful policies.
@Suite struct RandomInputRobustnessTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func rewriterSurvivesArbitraryPackets(seed: UInt64) {
        var random = Generator(state: seed)
        var rewriter = StreamRewriter(nackHistoryCapacity: 64)
        var forwarded = 0
        for _ in 0..<20_000 {
            let source = UInt32(random.below(4))
            let sequence = UInt16(truncatingIfNeeded: random.next())
            let pictureId = UInt16(truncatingIfNeeded: random.next())
            if random.below(4) == 0 {
                rewriter.packetLeftOut(sourceId: source, sequenceNumber: sequence, pictureId: pictureId)
                continue
            }
            let packet = SourcePacket(sourceId: source, sequenceNumber: sequence,
                                      timestamp: UInt32(truncatingIfNeeded: random.next()), pictureId: pictureId,
                                      tl0PicIdx: UInt8(truncatingIfNeeded: random.next()),
                                      temporalId: UInt8(truncatingIfNeeded: random.next()),
                                      isKeyFrame: random.below(2) == 0, isFirstPacketOfFrame: random.below(2) == 0,
                                      startsNewSource: random.below(50) == 0,
                                      arrivalMilliseconds: Int64(bitPattern: random.next() << 16))
            if case .forward(let header) = rewriter.rewrite(packet) {
                forwarded += 1
                #expect(header.pictureId <= 0x7FFF)
                #expect(rewriter.origin(ofSequenceNumber: header.sequenceNumber)?.header == header)
            }
        }
        #expect(forwarded > 0)
    }

    @Test(arguments: [UInt64(4), 5])
    func controllerAndSelectorSurviveArbitraryInputs(seed: UInt64) throws {
        var random = Generator(state: seed)
        var selector = LayerSelector(plan: try LayerPlan())
        var controller = LayerSwitchController(layerSSRCs: [1, 2, 3])
        for _ in 0..<20_000 {
            // Times come from the engine's monotonic clock, not the wire: any order, but within
            // ±2^50 ms (KeyFrameRequestThrottle subtracts times with trapping arithmetic).
            let now = Int64(random.below(1 << 51)) - (1 << 50)
            switch random.below(10) {
            case 0:
                let preference: EffectivePreference = [.disabled, .quality(.low), .quality(.high),
                    .viewPort(VideoSize(width: Int(truncatingIfNeeded: random.next()), height: -5))][Int(random.below(4))]
                if let change = selector.setPreference(preference, nowMilliseconds: now) {
                    _ = controller.apply(change, nowMilliseconds: now)
                }
            case 1:
                let estimate = Int(truncatingIfNeeded: random.next() << 20)
                if let change = selector.updateBandwidth(estimatedBitsPerSecond: estimate, nowMilliseconds: now) {
                    _ = controller.apply(change, nowMilliseconds: now)
                }
            case 2:
                _ = controller.setTarget(LayerTarget(spatial: Int(truncatingIfNeeded: random.next() << 10),
                                                     temporal: Int(truncatingIfNeeded: random.next() << 10)),
                                         reason: .client, nowMilliseconds: now)
            default:
                let info = VideoPacketLayerInfo(spatialIndex: Int(random.below(5)) - 1,
                                                temporalId: UInt8(truncatingIfNeeded: random.next()),
                                                layerSync: random.below(2) == 0, keyFrame: random.below(3) == 0,
                                                isFirstPacketOfFrame: random.below(2) == 0, arrivalMilliseconds: now)
                _ = controller.process(info)
            }
        }
    }
}
