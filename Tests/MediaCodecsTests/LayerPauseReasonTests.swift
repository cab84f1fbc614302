import Testing
import RTPWire
import Simulcast
@testable import MediaCodecs

/// Pause reasons are independent: a layer runs only when no reason (and no cap) holds it, and it
/// keeps the bitrate it was configured with (docs/layer-plan.md and docs/sending-caps.md: dynaCast and REMB must not undo each other).
@Suite struct LayerPauseReasonTests {
    private func encodedLayers(_ encoder: SimulcastEncoder, _ scene: TestSceneRenderer, _ n: inout Int) throws -> [Int] {
        defer { n += 1 }
        return try encoder.encode(scene.frame(n)).map(\.spatialIndex)
    }

    @Test func aLayerResumesOnlyWhenEveryPauseReasonIsGone() throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let encoder = try SimulcastEncoder(plan: plan)
        let scene = try TestScene().renderer(width: 640, height: 360)
        var n = 0
        _ = try encodedLayers(encoder, scene, &n)
        try encoder.setPaused(true, layer: 1, reason: .bandwidth)
        try encoder.setPaused(true, layer: 1, reason: .unwatched)
        #expect(try encodedLayers(encoder, scene, &n) == [0])
        // The bandwidth limit lifts, but nobody watches yet: still paused.
        try encoder.setPaused(false, layer: 1, reason: .bandwidth)
        #expect(try encodedLayers(encoder, scene, &n) == [0])
        #expect(encoder.isPaused(layer: 1, reason: .unwatched))
        // Someone watches again: the layer comes back with a key frame at its configured bitrate.
        try encoder.setPaused(false, layer: 1, reason: .unwatched)
        let frames = try encoder.encode(scene.frame(n))
        #expect(frames.map(\.spatialIndex) == [0, 1])
        #expect(frames.last?.keyFrame == true)
        #expect(try encoder.targetBitrateKbps(forLayer: 1) == plan.layers[1].bitrates.targetKbps)
    }

    @Test func theCapStillAppliesWhenPauseReasonsAreGone() throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let encoder = try SimulcastEncoder(plan: plan)
        let scene = try TestScene().renderer(width: 640, height: 360)
        var n = 0
        try encoder.apply(cap: .low)
        try encoder.setPaused(true, layer: 1, reason: .unwatched)
        try encoder.setPaused(false, layer: 1, reason: .unwatched)
        #expect(try encodedLayers(encoder, scene, &n) == [0])
    }

    @Test func pausingAnUnknownLayerIsATypedError() throws {
        let encoder = try SimulcastEncoder(plan: try LayerPlan(width: 640, height: 360))
        #expect(throws: SimulcastEncoderError.self) { try encoder.setPaused(true, layer: 5, reason: .bandwidth) }
        #expect(!encoder.isPaused(layer: 5, reason: .bandwidth))
    }
}
