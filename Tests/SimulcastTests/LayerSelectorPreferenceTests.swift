import Testing
@testable import Simulcast

private func selector(_ width: Int = 1280, _ height: Int = 720, maxLayer: MaxLayer = .three) throws -> LayerSelector {
    LayerSelector(plan: try LayerPlan(width: width, height: height, maxLayer: maxLayer))
}

/// The preferred spatial layer after applying `preference` on a fresh selector.
private func layer(_ preference: EffectivePreference, _ width: Int = 1280, _ height: Int = 720,
                   maxLayer: MaxLayer = .three) throws -> Int? {
    var selector = try selector(width, height, maxLayer: maxLayer)
    _ = selector.setPreference(preference, nowMilliseconds: 0)
    return selector.target?.spatial
}

private func view(_ width: Int, _ height: Int) -> EffectivePreference { .viewPort(VideoSize(width: width, height: height)) }

@Suite struct LayerSelectorPreferenceTests {
    @Test func qualityOnThreeLayersHighMediumLowAreTopMiddleBottom() throws {
        #expect(try layer(.quality(.high)) == 2)
        #expect(try layer(.quality(.medium)) == 1)
        #expect(try layer(.quality(.low)) == 0)
    }

    @Test func qualityOnMaxLayerTwoMediumIsTheSmallLayer() throws {
        // MAX_LAYER_2: 320x180 + 1280x720; 320x180 is the largest layer ≤ half of 1280x720.
        #expect(try layer(.quality(.high), maxLayer: .two) == 1)
        #expect(try layer(.quality(.medium), maxLayer: .two) == 0)
        #expect(try layer(.quality(.low), maxLayer: .two) == 0)
    }

    @Test func qualityOnTwoLayer640PlanMediumIsHalfSize() throws {
        #expect(try layer(.quality(.medium), 640, 360) == 0)
        #expect(try layer(.quality(.high), 640, 360) == 1)
    }

    @Test func singleLayerAlwaysLayerZero() throws {
        for quality in VideoQuality.allCases { #expect(try layer(.quality(quality), 320, 240) == 0) }
    }

    @Test func viewPortPicksSmallestCoveringLayer() throws {
        #expect(try layer(view(640, 360)) == 1)
        #expect(try layer(view(641, 360)) == 2)
        #expect(try layer(view(300, 100)) == 0)
        #expect(try layer(view(0, 0)) == 0)
    }

    @Test func viewPortNoLayerCoversPicksTop() throws {
        #expect(try layer(view(1920, 1080)) == 2)
        #expect(try layer(view(100, 2000)) == 2)
    }

    @Test func viewPortOnMaxLayerTwoSkipsToTopLayer() throws {
        #expect(try layer(view(640, 360), maxLayer: .two) == 1)
        #expect(try layer(view(320, 180), maxLayer: .two) == 0)
    }

    @Test func sd540PresetAsksOneLayerLowerForQuality() throws {
        #expect(try layer(.quality(.high), 960, 540) == 1)
        #expect(try layer(.quality(.medium), 960, 540) == 0)
        #expect(try layer(.quality(.low), 960, 540) == 0)
    }

    @Test func sd540PresetDetectedFromPlanInEitherOrientation() throws {
        #expect(try selector(960, 540).publishedAtSD540)
        #expect(try selector(540, 960).publishedAtSD540)
        #expect(try !selector(1280, 720).publishedAtSD540)
    }

    @Test func sd540ShiftDoesNotApplyToViewPort() throws {
        // 960x540 publishes 240x135, 480x270, 960x540: a 480x270 view is covered by layer 1.
        #expect(try layer(view(480, 270), 960, 540) == 1)
    }

    @Test func disabledSelectsNoLayer() throws {
        var selector = try selector()
        let change = selector.setPreference(.disabled, nowMilliseconds: 5)
        #expect(change == LayerTargetChange(from: LayerTarget(spatial: 2, temporal: 2), to: nil, reason: .client))
        #expect(selector.target == nil)
        #expect(selector.preferredSpatialLayer == nil)
        #expect(selector.preferredTemporalLayer == nil)
    }

    @Test func reEnablingAfterDisabledIsAClientChange() throws {
        var selector = try selector()
        _ = selector.setPreference(.disabled, nowMilliseconds: 0)
        let change = selector.setPreference(.quality(.low), nowMilliseconds: 1)
        #expect(change == LayerTargetChange(from: nil, to: LayerTarget(spatial: 0, temporal: 2), reason: .client))
    }

    @Test func preferenceChangeReportsClientReason() throws {
        var selector = try selector()
        let change = selector.setPreference(.quality(.medium), nowMilliseconds: 0)
        #expect(change == LayerTargetChange(from: LayerTarget(spatial: 2, temporal: 2),
                                            to: LayerTarget(spatial: 1, temporal: 2), reason: .client))
    }

    @Test func preferenceMappingToSameLayerChangesNothing() throws {
        var selector = try selector()
        let change = selector.setPreference(view(1000, 700), nowMilliseconds: 0)
        #expect(change == nil)
    }

    @Test func publisherCapLimitsTargetAndLifts() throws {
        var selector = try selector()
        let capped = selector.setHighestAvailableSpatialLayer(1, nowMilliseconds: 0)
        #expect(capped?.to == LayerTarget(spatial: 1, temporal: 2))
        #expect(capped?.reason == .publisher)
        #expect(selector.preferredSpatialLayer == 2)
        let lifted = selector.setHighestAvailableSpatialLayer(nil, nowMilliseconds: 1)
        #expect(lifted?.to == LayerTarget(spatial: 2, temporal: 2))
    }
}
