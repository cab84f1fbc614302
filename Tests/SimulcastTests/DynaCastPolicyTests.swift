import Testing
@testable import Simulcast

private func send(_ plan: LayerPlan, cap: VideoQuality = .high, dynaCast: Bool, wanted: Set<Int> = []) -> [Int] {
    DynaCastPolicy.layersToSend(plan: plan, cap: cap, dynaCastEnabled: dynaCast, wantedLayers: wanted)
}

@Suite struct DynaCastPolicyTests {
    @Test func dynaCastOffSendsEveryLayerUnderTheCap() throws {
        let plan = try LayerPlan()
        #expect(send(plan, cap: .high, dynaCast: false) == [0, 1, 2])
        #expect(send(plan, cap: .medium, dynaCast: false) == [0, 1])
        #expect(send(plan, cap: .low, dynaCast: false) == [0])
    }

    @Test func dynaCastPausesLayersAboveHighestWanted() throws {
        let plan = try LayerPlan()
        #expect(send(plan, dynaCast: true, wanted: [1]) == [0, 1])
        #expect(send(plan, dynaCast: true, wanted: [0]) == [0])
        #expect(send(plan, dynaCast: true, wanted: [0, 2]) == [0, 1, 2])
    }

    @Test func dynaCastWithNobodyWatchingSendsNothing() throws {
        #expect(send(try LayerPlan(), dynaCast: true, wanted: []) == [])
    }

    @Test func dynaCastNeverSendsAboveTheCap() throws {
        let plan = try LayerPlan()
        #expect(send(plan, cap: .medium, dynaCast: true, wanted: [2]) == [0, 1])
        #expect(send(plan, cap: .low, dynaCast: true, wanted: [2]) == [0])
    }

    @Test func dynaCastOnMaxLayerTwoPlan() throws {
        let plan = try LayerPlan(maxLayer: .two)
        #expect(send(plan, dynaCast: true, wanted: [0]) == [0])
        #expect(send(plan, cap: .medium, dynaCast: true, wanted: [1]) == [0])
    }

    @Test func singleLayerTrackIsUnaffected() throws {
        let plan = try LayerPlan(width: 320, height: 240)
        #expect(send(plan, dynaCast: true, wanted: []) == [0])
        #expect(send(plan, cap: .low, dynaCast: true, wanted: [2]) == [0])
        #expect(send(plan, cap: .medium, dynaCast: false) == [0])
    }

    @Test func resumedLayersNeedAKeyFrame() throws {
        var policy = DynaCastPolicy(plan: try LayerPlan())
        let paused = policy.update(wantedLayers: [0], cap: .high, dynaCastEnabled: true)
        #expect(paused == DynaCastUpdate(sending: [0], resumed: [], paused: [1, 2]))
        #expect(!paused.needsKeyFrame)
        let resumed = policy.update(wantedLayers: [2], cap: .high, dynaCastEnabled: true)
        #expect(resumed == DynaCastUpdate(sending: [0, 1, 2], resumed: [1, 2], paused: []))
        #expect(resumed.needsKeyFrame)
    }

    @Test func raisingTheCapResumesTheTopLayer() throws {
        var policy = DynaCastPolicy(plan: try LayerPlan(), initialCap: .medium)
        #expect(policy.sending == [0, 1])
        let update = policy.update(wantedLayers: [2], cap: .high, dynaCastEnabled: true)
        #expect(update.resumed == [2])
    }

    @Test func turningDynaCastOffResumesPausedLayers() throws {
        var policy = DynaCastPolicy(plan: try LayerPlan())
        _ = policy.update(wantedLayers: [], cap: .high, dynaCastEnabled: true)
        let update = policy.update(wantedLayers: [], cap: .high, dynaCastEnabled: false)
        #expect(update == DynaCastUpdate(sending: [0, 1, 2], resumed: [0, 1, 2], paused: []))
    }

    @Test func unchangedInputsReportNoChange() throws {
        var policy = DynaCastPolicy(plan: try LayerPlan())
        let update = policy.update(wantedLayers: [2], cap: .high, dynaCastEnabled: true)
        #expect(update == DynaCastUpdate(sending: [0, 1, 2], resumed: [], paused: []))
    }

    @Test func wantedLayersFromSelectorsPreferences() throws {
        // Two subscribers: one on a small viewport, one at high quality but bandwidth-limited.
        let plan = try LayerPlan()
        var small = LayerSelector(plan: plan)
        var limited = LayerSelector(plan: plan)
        _ = small.setPreference(.viewPort(VideoSize(width: 320, height: 180)), nowMilliseconds: 0)
        _ = limited.updateBandwidth(estimatedBitsPerSecond: 400_000, nowMilliseconds: 0)
        let wanted = Set([small.preferredSpatialLayer, limited.preferredSpatialLayer].compactMap { $0 })
        #expect(send(plan, dynaCast: true, wanted: wanted) == [0, 1, 2])
    }
}

@Suite struct WebcamQualityCapTests {
    @Test func settingCapWhileCameraOffIsAnError() {
        var cap = WebcamQualityCap()
        #expect(throws: WebcamQualityCapError.cameraOff) { try cap.setQuality(.low) }
        #expect(cap.quality == .high)
    }

    @Test func capPersistsAcrossCameraOffAndOn() throws {
        var cap = WebcamQualityCap()
        cap.cameraTurnedOn()
        try cap.setQuality(.medium)
        cap.cameraTurnedOff()
        #expect(cap.quality == .medium)
        cap.cameraTurnedOn()
        #expect(cap.quality == .medium)
        #expect(cap.activeLayerIndices(in: try LayerPlan()) == [0, 1])
    }

    @Test func capHasNoEffectOnSingleLayerTrack() throws {
        var cap = WebcamQualityCap(isCameraOn: true)
        try cap.setQuality(.low)
        #expect(cap.activeLayerIndices(in: try LayerPlan(width: 320, height: 240)) == [0])
    }

    @Test func capLowSendsOnlySmallest() throws {
        var cap = WebcamQualityCap(isCameraOn: true)
        try cap.setQuality(.low)
        #expect(cap.activeLayerIndices(in: try LayerPlan()) == [0])
    }
}
