import Testing
@testable import Simulcast

/// Selector → switch controller → rewriter, the way a forwarder chains them for one subscriber
/// of one 1280x720 track, against three fake layers whose publisher answers key-frame requests
/// on the next frame (a request forces a key frame on every layer, docs/layer-plan.md).
private struct Pipeline {
    var selector: LayerSelector
    var controller: LayerSwitchController
    var rewriter = StreamRewriter()
    var sources: [FakeSource]
    var keyFrameRequested = false
    var events: [(time: Int64, event: LayerSwitchEvent)] = []
    var forwarded: [(time: Int64, tid: UInt8, header: RewrittenHeader, first: Bool)] = []
    var refused: [RewriteDropReason] = []

    init() throws {
        let plan = try LayerPlan()
        selector = LayerSelector(plan: plan)
        controller = LayerSwitchController(layerSSRCs: [100, 200, 300])
        sources = [
            FakeSource(id: 100, sequence: 65_000, timestamp: 1, pictureId: 32_700, tl0PicIdx: 250),
            FakeSource(id: 200, sequence: 9, timestamp: 4_000_000_000, pictureId: 3, tl0PicIdx: 0),
            FakeSource(id: 300, sequence: 30_000, timestamp: 77_777, pictureId: 16_000, tl0PicIdx: 99),
        ]
        let start = controller.setTarget(selector.target, reason: .client, nowMilliseconds: 0)
        keyFrameRequested = start.keyFrameRequestSSRC != nil
    }

    mutating func tick(at now: Int64, estimate: Int) {
        if let change = selector.updateBandwidth(estimatedBitsPerSecond: estimate, nowMilliseconds: now) {
            let decision = controller.apply(change, nowMilliseconds: now)
            if decision.keyFrameRequestSSRC != nil { keyFrameRequested = true }
        }
        let makeKey = keyFrameRequested
        keyFrameRequested = false
        for layer in sources.indices {
            let packets = sources[layer].nextFrame(key: makeKey, at: now)
            let sync = sources[layer].lastFrameLayerSync
            for packet in packets {
                let info = VideoPacketLayerInfo(spatialIndex: layer, temporalId: packet.temporalId, layerSync: sync,
                                                keyFrame: packet.isKeyFrame, isFirstPacketOfFrame: packet.isFirstPacketOfFrame,
                                                arrivalMilliseconds: now)
                let decision = controller.process(info)
                if decision.keyFrameRequestSSRC != nil { keyFrameRequested = true }
                if let event = decision.event { events.append((now, event)) }
                if decision.shouldForward {
                    var routed = packet
                    routed.startsNewSource = decision.startsNewSource
                    switch rewriter.rewrite(routed) {
                    case .forward(let header): forwarded.append((now, packet.temporalId, header, packet.isFirstPacketOfFrame))
                    case .drop(let reason): refused.append(reason)
                    }
                } else {
                    rewriter.packetLeftOut(sourceId: packet.sourceId, sequenceNumber: packet.sequenceNumber,
                                           pictureId: packet.pictureId)
                }
            }
        }
    }
}

/// 3 Mbps, then 1 Mbps at 5 s, 3 Mbps at 15 s, 120 kbps at 25 s, 3 Mbps from 30 s to 45 s.
private func estimate(at now: Int64) -> Int {
    switch now {
    case ..<5_000: return 3_000_000
    case ..<15_000: return 1_000_000
    case ..<25_000: return 3_000_000
    case ..<30_000: return 120_000
    default: return 3_000_000
    }
}

private func run() throws -> Pipeline {
    var pipeline = try Pipeline()
    for now in stride(from: Int64(0), to: 45_000, by: 33) { pipeline.tick(at: now, estimate: estimate(at: now)) }
    return pipeline
}

@Suite struct ForwardingPipelineTests {
    @Test func forwardedStreamIsOneContinuousVP8Stream() throws {
        let pipeline = try run()
        #expect(pipeline.refused.isEmpty)
        #expect(pipeline.rewriter.switchCount >= 5)
        let packets = pipeline.forwarded
        for (a, b) in zip(packets, packets.dropFirst()) {
            #expect(b.header.sequenceNumber == a.header.sequenceNumber &+ 1)
        }
        let frames = packets.filter(\.first)
        for (a, b) in zip(frames, frames.dropFirst()) {
            #expect(b.header.pictureId == (a.header.pictureId &+ 1) & 0x7FFF)
            let step = b.header.timestamp &- a.header.timestamp
            #expect(step > 0 && step < 90_000)
        }
    }

    @Test func bandwidthChangesProduceReasonedSwitchEvents() throws {
        let pipeline = try run()
        let spatial = pipeline.events.filter { $0.event.from?.spatial != $0.event.to?.spatial }
        #expect(spatial.map(\.event.reason) == [.client, .bandwidthDown, .bandwidthUp, .bandwidthDown, .bandwidthUp])
        #expect(spatial.map { $0.event.to?.spatial } == [2, 1, 2, 0, 2])
        // The publisher answers on the next frame: a spatial switch completes within two frames.
        #expect(spatial.allSatisfy { $0.event.latencyMilliseconds <= 66 })
        // Up-switches wait the hold time after the estimate recovers.
        #expect(spatial[2].time >= 18_000)
        #expect(spatial[4].time >= 33_000)
        #expect(pipeline.controller.current == LayerTarget(spatial: 2, temporal: 2))
    }

    @Test func lowBandwidthThinsTemporalLayers() throws {
        let pipeline = try run()
        // 120 kbps carries S0T1 (90 kbps) but not S0T2 (150 kbps): 15 fps on the smallest layer.
        let thin = pipeline.events.first { $0.event.to == LayerTarget(spatial: 0, temporal: 1) }
        let back = pipeline.events.last { $0.event.reason == .bandwidthUp }
        let thinTime = try #require(thin?.time), backTime = try #require(back?.time)
        let during = pipeline.forwarded.filter { $0.time > thinTime && $0.time < backTime }
        #expect(!during.isEmpty)
        #expect(during.allSatisfy { $0.tid <= 1 })
    }
}
