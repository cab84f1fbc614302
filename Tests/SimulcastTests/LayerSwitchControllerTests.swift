import Testing
@testable import Simulcast

private let ssrcs: [UInt32] = [100, 200, 300]
private func l(_ spatial: Int, _ temporal: Int) -> LayerTarget { LayerTarget(spatial: spatial, temporal: temporal) }

private func frame(_ spatial: Int, tid: UInt8 = 0, sync: Bool = false, key: Bool = false, first: Bool = true,
                   at time: Int64) -> VideoPacketLayerInfo {
    VideoPacketLayerInfo(spatialIndex: spatial, temporalId: tid, layerSync: sync, keyFrame: key,
                         isFirstPacketOfFrame: first, arrivalMilliseconds: time)
}

/// A controller already forwarding `layer` (started at a key frame at t = 0).
private func forwarding(_ layer: LayerTarget) -> LayerSwitchController {
    var controller = LayerSwitchController(layerSSRCs: ssrcs)
    _ = controller.setTarget(layer, reason: .client, nowMilliseconds: 0)
    _ = controller.process(frame(layer.spatial, key: true, at: 0))
    return controller
}

@Suite struct LayerSwitchControllerTests {
    @Test func startWaitsForKeyFrameOfTargetLayer() {
        var controller = LayerSwitchController(layerSSRCs: ssrcs)
        let set = controller.setTarget(l(2, 2), reason: .client, nowMilliseconds: 0)
        #expect(set.keyFrameRequestSSRC == 300)
        let delta = controller.process(frame(2, tid: 2, at: 10))
        let otherKey = controller.process(frame(1, key: true, at: 20))
        #expect(!delta.shouldForward)
        #expect(!otherKey.shouldForward)
        #expect(controller.current == nil)
        let key = controller.process(frame(2, key: true, at: 80))
        #expect(key.shouldForward)
        #expect(key.startsNewSource)
        #expect(key.event == LayerSwitchEvent(from: nil, to: l(2, 2), reason: .client, latencyMilliseconds: 80))
    }

    @Test func restOfKeyFrameFollowsItsFirstPacket() {
        var controller = forwarding(l(2, 2))
        let continuation = controller.process(frame(2, key: true, first: false, at: 1))
        #expect(continuation.shouldForward)
        #expect(!continuation.startsNewSource)
    }

    @Test func spatialSwitchKeepsOldLayerUntilKeyFrame() {
        var controller = forwarding(l(2, 2))
        let set = controller.setTarget(l(0, 2), reason: .bandwidthDown, nowMilliseconds: 1_000)
        #expect(set.keyFrameRequestSSRC == 100)
        let old = controller.process(frame(2, tid: 1, at: 1_030))
        let newDelta = controller.process(frame(0, tid: 1, at: 1_031))
        #expect(old.shouldForward)
        #expect(!newDelta.shouldForward)
        #expect(controller.current == l(2, 2))
        #expect(controller.isSpatialSwitchPending)
    }

    @Test func spatialSwitchHappensAtTargetKeyFrameWithEvent() {
        var controller = forwarding(l(2, 2))
        _ = controller.setTarget(l(0, 2), reason: .bandwidthDown, nowMilliseconds: 1_000)
        let key = controller.process(frame(0, key: true, at: 1_250))
        #expect(key.shouldForward)
        #expect(key.startsNewSource)
        #expect(key.event == LayerSwitchEvent(from: l(2, 2), to: l(0, 2), reason: .bandwidthDown, latencyMilliseconds: 250))
        let old = controller.process(frame(2, at: 1_260))
        #expect(!old.shouldForward)
        #expect(!controller.isSpatialSwitchPending)
    }

    @Test func keyFrameRequestsAreRateLimitedPerSSRC() {
        var controller = forwarding(l(2, 2))
        var requests: [(Int64, UInt32)] = []
        if let ssrc = controller.setTarget(l(1, 2), reason: .client, nowMilliseconds: 1_000).keyFrameRequestSSRC {
            requests.append((1_000, ssrc))
        }
        for now in stride(from: Int64(1_010), to: 2_000, by: 10) {
            if let ssrc = controller.process(frame(2, tid: 2, at: now)).keyFrameRequestSSRC { requests.append((now, ssrc)) }
        }
        #expect(requests.map(\.0) == [1_000, 1_300, 1_600, 1_900])
        #expect(requests.allSatisfy { $0.1 == 200 })
    }

    @Test func noKeyFrameRequestOnceSwitched() {
        var controller = forwarding(l(2, 2))
        var requests = 0
        for now in stride(from: Int64(10), to: 2_000, by: 10) {
            if controller.process(frame(2, tid: 2, at: now)).keyFrameRequestSSRC != nil { requests += 1 }
        }
        #expect(requests == 0)
    }

    @Test func temporalDownAtNextFrameBoundary() {
        var controller = forwarding(l(2, 2))
        _ = controller.setTarget(l(2, 0), reason: .bandwidthDown, nowMilliseconds: 100)
        let tl2 = controller.process(frame(2, tid: 2, at: 133))
        #expect(!tl2.shouldForward)
        #expect(tl2.event == LayerSwitchEvent(from: l(2, 2), to: l(2, 0), reason: .bandwidthDown, latencyMilliseconds: 33))
        #expect(tl2.keyFrameRequestSSRC == nil)
        let tl0 = controller.process(frame(2, tid: 0, at: 166))
        #expect(tl0.shouldForward)
    }

    @Test func temporalDownDoesNotCutAFrameInHalf() {
        var controller = forwarding(l(2, 2))
        _ = controller.process(frame(2, tid: 2, at: 33))
        _ = controller.setTarget(l(2, 1), reason: .bandwidthDown, nowMilliseconds: 34)
        let rest = controller.process(frame(2, tid: 2, first: false, at: 35))
        #expect(rest.shouldForward)
    }

    @Test func temporalUpWaitsForLayerSyncFrame() {
        var controller = forwarding(l(2, 0))
        _ = controller.setTarget(l(2, 2), reason: .bandwidthUp, nowMilliseconds: 100)
        let plainTL1 = controller.process(frame(2, tid: 1, at: 133))
        #expect(!plainTL1.shouldForward)
        #expect(controller.current == l(2, 0))
        let syncTL1 = controller.process(frame(2, tid: 1, sync: true, at: 166))
        #expect(syncTL1.shouldForward)
        #expect(syncTL1.event == LayerSwitchEvent(from: l(2, 0), to: l(2, 1), reason: .bandwidthUp, latencyMilliseconds: 66))
        let syncTL2 = controller.process(frame(2, tid: 2, sync: true, at: 200))
        #expect(syncTL2.shouldForward)
        #expect(syncTL2.event?.to == l(2, 2))
        #expect(syncTL2.event?.latencyMilliseconds == 100)
    }

    @Test func temporalUpSkippingALayerNeedsItsSyncFirst() {
        var controller = forwarding(l(2, 0))
        _ = controller.setTarget(l(2, 2), reason: .bandwidthUp, nowMilliseconds: 100)
        // A TL2 Y frame depends on TL0 only, but the TL1 frames after it would not decode.
        let syncTL2 = controller.process(frame(2, tid: 2, sync: true, at: 133))
        #expect(!syncTL2.shouldForward)
        #expect(controller.current == l(2, 0))
    }

    @Test func temporalUpAtKeyFrameGoesStraightToTarget() {
        var controller = forwarding(l(2, 0))
        _ = controller.setTarget(l(2, 2), reason: .client, nowMilliseconds: 100)
        let key = controller.process(frame(2, key: true, at: 500))
        #expect(key.shouldForward)
        #expect(key.event?.to == l(2, 2))
        #expect(!key.startsNewSource)
    }

    @Test func tl0FrameAloneDoesNotSwitchTemporalUp() {
        var controller = forwarding(l(2, 0))
        _ = controller.setTarget(l(2, 2), reason: .client, nowMilliseconds: 100)
        let tl0 = controller.process(frame(2, tid: 0, at: 133))
        #expect(tl0.shouldForward)
        #expect(tl0.event == nil)
        #expect(controller.current == l(2, 0))
    }

    @Test func pendingSpatialSwitchNeverThickensOldLayer() {
        var controller = forwarding(l(1, 1))
        _ = controller.setTarget(l(2, 2), reason: .bandwidthUp, nowMilliseconds: 100)
        let sync = controller.process(frame(1, tid: 2, sync: true, at: 133))
        #expect(!sync.shouldForward)
        #expect(controller.current == l(1, 1))
    }

    @Test func pendingSpatialSwitchMayThinOldLayer() {
        var controller = forwarding(l(2, 2))
        _ = controller.setTarget(l(1, 0), reason: .bandwidthDown, nowMilliseconds: 100)
        let tl2 = controller.process(frame(2, tid: 2, at: 133))
        #expect(!tl2.shouldForward)
        #expect(controller.current == l(2, 0))
    }

    @Test func pendingSpatialUpSwitchKeepsOldLayerFrameRate() {
        var controller = forwarding(l(0, 2))
        _ = controller.setTarget(l(1, 1), reason: .bandwidthUp, nowMilliseconds: 100)
        let tl2 = controller.process(frame(0, tid: 2, at: 133))
        #expect(tl2.shouldForward)
        #expect(tl2.event == nil)
        #expect(controller.current == l(0, 2))
    }

    @Test func packetsAboveForwardedTemporalLayerNeverForwarded() {
        var controller = forwarding(l(2, 0))
        _ = controller.process(frame(2, tid: 0, at: 33))
        // A continuation packet whose frame start was lost still carries its TID.
        let stray = controller.process(frame(2, tid: 2, first: false, at: 40))
        #expect(!stray.shouldForward)
    }

    @Test func latencyCountsFromFirstUnmetRequest() {
        var controller = forwarding(l(2, 2))
        _ = controller.setTarget(l(1, 2), reason: .bandwidthDown, nowMilliseconds: 1_000)
        _ = controller.setTarget(l(0, 2), reason: .bandwidthDown, nowMilliseconds: 1_200)
        let key = controller.process(frame(0, key: true, at: 1_500))
        #expect(key.event == LayerSwitchEvent(from: l(2, 2), to: l(0, 2), reason: .bandwidthDown, latencyMilliseconds: 500))
    }

    @Test func disablingStopsForwardingAtOnce() {
        var controller = forwarding(l(2, 2))
        let off = controller.setTarget(nil, reason: .client, nowMilliseconds: 50)
        #expect(off.event == LayerSwitchEvent(from: l(2, 2), to: nil, reason: .client, latencyMilliseconds: 0))
        let next = controller.process(frame(2, key: true, at: 60))
        #expect(!next.shouldForward)
        #expect(controller.current == nil)
    }

    @Test func applyTakesSelectorChange() {
        var controller = forwarding(l(2, 2))
        let change = LayerTargetChange(from: l(2, 2), to: l(1, 2), reason: .bandwidthDown)
        let decision = controller.apply(change, nowMilliseconds: 10)
        #expect(decision.keyFrameRequestSSRC == 200)
        #expect(controller.target == l(1, 2))
    }
}
