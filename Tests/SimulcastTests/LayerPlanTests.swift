import Testing
@testable import Simulcast

private func sizes(_ plan: LayerPlan) -> [String] { plan.layers.map { "\($0.width)x\($0.height)" } }

@Suite struct LayerPlanTests {
    @Test func hd720PublishesThreeLayersQuarterHalfFull() throws {
        let plan = try LayerPlan(width: 1280, height: 720)
        #expect(sizes(plan) == ["320x180", "640x360", "1280x720"])
        #expect(plan.layers.map(\.index) == [0, 1, 2])
        #expect(plan.layers.map(\.downscale) == [4, 2, 1])
    }

    @Test func sd540PresetPublishesThreeLayers() throws {
        let plan = try LayerPlan(width: 960, height: 540)
        #expect(sizes(plan) == ["240x135", "480x270", "960x540"])
    }

    @Test func mid640x480PublishesTwoLayers() throws {
        #expect(sizes(try LayerPlan(width: 640, height: 480)) == ["320x240", "640x480"])
    }

    @Test func mid640x360PublishesTwoLayers() throws {
        #expect(sizes(try LayerPlan(width: 640, height: 360)) == ["320x180", "640x360"])
    }

    @Test func small320x240PublishesOneLayer() throws {
        #expect(sizes(try LayerPlan(width: 320, height: 240)) == ["320x240"])
    }

    @Test func layerCountBoundaries() {
        #expect(LayerPlan.layerCount(longerEdge: 479) == 1)
        #expect(LayerPlan.layerCount(longerEdge: 480) == 2)
        #expect(LayerPlan.layerCount(longerEdge: 959) == 2)
        #expect(LayerPlan.layerCount(longerEdge: 960) == 3)
    }

    @Test func portraitUsesLongerEdge() throws {
        #expect(sizes(try LayerPlan(width: 720, height: 1280)) == ["180x320", "360x640", "720x1280"])
    }

    @Test func multiStreamOffPublishesOneLayerAtConfigSize() throws {
        #expect(sizes(try LayerPlan(width: 1280, height: 720, multiStream: false)) == ["1280x720"])
    }

    @Test func maxLayerTwoDropsMiddleLayerOfThree() throws {
        let plan = try LayerPlan(width: 1280, height: 720, maxLayer: .two)
        #expect(sizes(plan) == ["320x180", "1280x720"])
        #expect(plan.layers.map(\.index) == [0, 1])
        #expect(plan.layers.map(\.downscale) == [4, 1])
    }

    @Test func maxLayerNeverAddsOnTwoLayerPlan() throws {
        let two = try LayerPlan(width: 640, height: 360, maxLayer: .two)
        let three = try LayerPlan(width: 640, height: 360, maxLayer: .three)
        #expect(sizes(two) == ["320x180", "640x360"])
        #expect(two.layers == three.layers)
    }

    @Test func maxLayerOnSingleLayerPlanIsOneLayer() throws {
        #expect(sizes(try LayerPlan(width: 320, height: 240, maxLayer: .two)) == ["320x240"])
    }

    @Test func nonDivisibleSizeCropsTopLayerNeverUpscales() throws {
        let plan = try LayerPlan(width: 1282, height: 722)
        #expect(sizes(plan) == ["320x180", "640x360", "1280x720"])
        let two = try LayerPlan(width: 641, height: 361)
        #expect(sizes(two) == ["320x180", "640x360"])
    }

    @Test func defaultBitratesFollowWebRTCTable() throws {
        let plan = try LayerPlan(width: 1280, height: 720)
        #expect(plan.layers[0].bitrates == LayerBitrates(maxKbps: 200, targetKbps: 150, minKbps: 30))
        #expect(plan.layers[1].bitrates == LayerBitrates(maxKbps: 700, targetKbps: 500, minKbps: 150))
        #expect(plan.layers[2].bitrates == LayerBitrates(maxKbps: 2500, targetKbps: 2500, minKbps: 600))
        let sd = try LayerPlan(width: 960, height: 540)
        #expect(sd.layers[1].bitrates == LayerBitrates(maxKbps: 450, targetKbps: 350, minKbps: 150))
        #expect(sd.layers[2].bitrates == LayerBitrates(maxKbps: 1200, targetKbps: 1200, minKbps: 350))
    }

    @Test func bitratesInterpolateByPixelCount() {
        // 320x240 = 76800 px lies between 320x180 (57600) and 480x270 (129600): t = 19200/72000.
        let rates = LayerBitrates.defaults(width: 320, height: 240)
        #expect(rates.maxKbps == 267)
        #expect(rates.targetKbps == 203)
        #expect(rates.minKbps == 62)
        let below = LayerBitrates.defaults(width: 160, height: 90)
        #expect(below.maxKbps == 50 && below.minKbps == 30)
    }

    @Test(arguments: [(0, 720), (1280, 0), (-2, 720), (15, 720), (1280, 15), (4097, 720), (1280, 2305)])
    func unsupportedEncoderSizesAreTypedErrors(width: Int, height: Int) {
        #expect(throws: LayerPlanError.unsupportedEncoderSize(width: width, height: height)) {
            try LayerPlan(width: width, height: height)
        }
    }

    @Test func capHighSendsEveryLayer() throws {
        #expect(try LayerPlan().activeLayerIndices(cap: .high) == [0, 1, 2])
    }

    @Test func capMediumStopsLargest() throws {
        #expect(try LayerPlan().activeLayerIndices(cap: .medium) == [0, 1])
        #expect(try LayerPlan(maxLayer: .two).activeLayerIndices(cap: .medium) == [0])
    }

    @Test func capLowSendsOnlySmallest() throws {
        #expect(try LayerPlan().activeLayerIndices(cap: .low) == [0])
    }

    @Test func capHasNoEffectOnSingleLayer() throws {
        let single = try LayerPlan(multiStream: false)
        for cap in VideoQuality.allCases { #expect(single.activeLayerIndices(cap: cap) == [0]) }
    }
}
