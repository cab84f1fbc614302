import Testing
import Simulcast

@Suite struct ScreenSharePlanTests {
    @Test func multiStreamScreenIsFullResolutionAndHalf() throws {
        let plan = try LayerPlan(screenShareWidth: 1920, height: 1080)
        #expect(plan.content == .screen)
        #expect(plan.layers.map { [$0.width, $0.height] } == [[960, 540], [1920, 1080]])
        #expect(plan.layers.map(\.downscale) == [2, 1])
        let qhd = try LayerPlan(screenShareWidth: 2560, height: 1440)
        #expect(qhd.layers.map { [$0.width, $0.height] } == [[1280, 720], [2560, 1440]])
    }

    @Test func singleStreamOrSmallScreenIsOneLayer() throws {
        #expect(try LayerPlan(screenShareWidth: 1920, height: 1080, multiStream: false).layers.map(\.width) == [1920])
        #expect(try LayerPlan(screenShareWidth: 600, height: 400).layers.map(\.width) == [600])
        #expect(try LayerPlan(screenShareWidth: 640, height: 400).layers.map(\.width) == [320, 640])
    }

    @Test func oddSizesAreCroppedNeverUpscaled() throws {
        let plan = try LayerPlan(screenShareWidth: 1366, height: 767)
        #expect(plan.layers.map { [$0.width, $0.height] } == [[682, 382], [1364, 764]])
    }

    @Test func bitratesFollowPixelsFromThe1080pAnchor() throws {
        let plan = try LayerPlan(screenShareWidth: 1920, height: 1080)
        #expect(plan.top.bitrates == LayerBitrates(maxKbps: 2500, targetKbps: 2500, minKbps: 300))
        #expect(plan.layers[0].bitrates == LayerBitrates(maxKbps: 625, targetKbps: 625, minKbps: 100))
    }

    @Test func cameraPlansAreCameraContent() throws {
        #expect(try LayerPlan().content == .camera)
        #expect(try LayerPlan(screenShareWidth: 1280, height: 720) != LayerPlan(width: 1280, height: 720, maxLayer: .two))
    }

    @Test func unsupportedScreenSizesAreTypedErrors() {
        #expect(throws: LayerPlanError.unsupportedEncoderSize(width: 8, height: 8)) {
            try LayerPlan(screenShareWidth: 8, height: 8)
        }
        #expect(throws: LayerPlanError.unsupportedEncoderSize(width: 5000, height: 1080)) {
            try LayerPlan(screenShareWidth: 5000, height: 1080)
        }
    }
}
