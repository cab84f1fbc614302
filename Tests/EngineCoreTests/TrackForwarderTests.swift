import Foundation
import Testing
import MediaCodecs
import RTPWire
import Simulcast
import MediaEngineTesting
@testable import EngineCore

@Suite struct TrackForwarderTests {
    /// Runs `frames` frames through the forwarder; `script(frame)` may change preferences or
    /// bandwidth before the frame is forwarded. Key-frame requests go back to the encoder.
    private func run(frames: Int, plan: LayerPlan, subscribers: [String], captureIVF: Bool = false,
                     script: (Int, TrackForwarder, Int64) throws -> [UInt32]) throws
        -> (TrackForwarder, [String: ReceivingEnd])
    {
        let publisher = try TestPublisher(plan: plan)
        let forwarder = TrackForwarder(plan: plan, layerSSRCs: publisher.ssrcs)
        var ends: [String: ReceivingEnd] = [:]
        var requests: [UInt32] = []
        for (index, id) in subscribers.enumerated() {
            ends[id] = try ReceivingEnd()
            if captureIVF { ends[id]?.ivf = IVFWriter(width: plan.top.width, height: plan.top.height,
                                                      timebaseNumerator: 1, timebaseDenominator: 90_000) }
            requests += forwarder.addSubscriber(id, outputSSRC: UInt32(50 + index), nowMilliseconds: 0)
        }
        for frame in 0..<frames {
            let now = Int64(frame) * 33
            requests += try script(frame, forwarder, now)
            if !requests.isEmpty { publisher.encoder.requestKeyFrame() }
            requests = []
            for packet in try publisher.nextFramePackets() {
                var out: [(String, [UInt8])] = []
                requests += try forwarder.forward(packet[...], nowMilliseconds: now) { id, bytes in out.append((id, Array(bytes))) }
                for (id, bytes) in out { try ends[id]?.receive(bytes) }
            }
        }
        return (forwarder, ends)
    }

    @Test func subscribersGetTheLayerOfTheirViewport() throws {
        let plan = try LayerPlan(width: 1024, height: 576)
        let (forwarder, ends) = try run(frames: 20, plan: plan, subscribers: ["small", "big"]) { frame, forwarder, now in
            guard frame == 0 else { return [] }
            return try forwarder.setPreference(.viewPort(VideoSize(width: 256, height: 144)), for: "small", nowMilliseconds: now)
        }
        #expect(ends["small"]?.decodedSizes == ["256x144": 20])
        #expect(ends["big"]?.decodedSizes == ["1024x576": 20])
        #expect(try forwarder.stats(for: "small").current == LayerTarget(spatial: 0, temporal: 2))
    }

    @Test func sixSpatialSwitchesAndTemporalSwitchesDecodeWithoutErrorsOrGaps() throws {
        let plan = try LayerPlan(width: 1024, height: 576)
        let qualities: [VideoQuality] = [.low, .high, .medium, .low, .high, .medium, .high]
        // 80% of the top layer's target: enough for its TL0+TL1 (60%), not for TL2.
        let squeezed = plan.layers[2].bitrates.targetKbps * 800
        let (forwarder, ends) = try run(frames: 380, plan: plan, subscribers: ["viewer"], captureIVF: true) { frame, forwarder, now in
            var requests: [UInt32] = []
            if frame % 30 == 0, frame < 210 {
                requests += try forwarder.setPreference(.quality(qualities[frame / 30]), for: "viewer", nowMilliseconds: now)
            }
            // After the last spatial switch (to high): temporal down for bandwidth, then back up
            // once the estimate has held for the selector's 3 s.
            if frame == 230 { requests += try forwarder.updateBandwidth(squeezed, for: "viewer", nowMilliseconds: now) }
            if frame >= 240 { requests += try forwarder.updateBandwidth(20_000_000, for: "viewer", nowMilliseconds: now) }
            return requests
        }
        guard let end = ends["viewer"] else { return }
        let spatialSwitches = forwarder.switchEvents.filter { $0.event.from != nil && $0.event.from?.spatial != $0.event.to?.spatial }
        let temporalSwitches = forwarder.switchEvents.filter { $0.event.from?.spatial == $0.event.to?.spatial }
        print("forwarded sizes \(end.decodedSizes), spatial switches \(spatialSwitches.count), temporal switches \(temporalSwitches.count), latencies \(forwarder.switchEvents.map(\.event.latencyMilliseconds))")
        #expect(spatialSwitches.count >= 6)
        #expect(temporalSwitches.contains { $0.event.reason == .bandwidthDown && $0.event.to == LayerTarget(spatial: 2, temporal: 1) })
        #expect(temporalSwitches.contains { $0.event.reason == .bandwidthUp && $0.event.to == LayerTarget(spatial: 2, temporal: 2) })
        #expect(end.decodeErrors == 0)
        #expect(end.undecodable == 0)
        #expect(end.sequenceGaps == 0)
        #expect(end.pictureIDGaps == 0)
        #expect(Set(end.decodedSizes.keys) == ["256x144", "512x288", "1024x576"])

        // The same forwarded stream, as an IVF file, through an independent decoder.
        let ivf = try #require(end.ivf)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("forwarded-\(getpid()).ivf").path
        try ivf.write(toFile: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let decoded = try FFmpeg.decode(path)
        print("ffmpeg: exit \(decoded.exitStatus), \(decoded.frames) frames decoded of \(ivf.frameCount) written")
        #expect(decoded.exitStatus == 0)
        #expect(decoded.errorOutput.isEmpty)
        #expect(decoded.frames == Int(ivf.frameCount))
        #expect(decoded.frames == end.decodedSizes.values.reduce(0, +))
    }

    @Test func temporalLayersClimbBackFromTL0AtSyncFramesWithoutAKeyFrame() throws {
        let plan = try LayerPlan(width: 1024, height: 576)
        let lowTarget = plan.layers[0].bitrates.targetKbps * 1000
        let (forwarder, ends) = try run(frames: 260, plan: plan, subscribers: ["viewer"]) { frame, forwarder, now in
            if frame == 0 { return try forwarder.setPreference(.quality(.low), for: "viewer", nowMilliseconds: now) }
            if frame == 20 { return try forwarder.updateBandwidth(lowTarget * 45 / 100, for: "viewer", nowMilliseconds: now) }
            if frame >= 60 { return try forwarder.updateBandwidth(lowTarget * 3, for: "viewer", nowMilliseconds: now) }
            return []
        }
        let targets = forwarder.switchEvents.map(\.event.to)
        #expect(targets.contains(LayerTarget(spatial: 0, temporal: 0)))
        #expect(targets.last == LayerTarget(spatial: 0, temporal: 2))
        // TL0 → TL1 → TL2 at Y frames, each within about a second of the selector asking.
        let climbs = forwarder.switchEvents.filter { $0.event.reason == .bandwidthUp }.map(\.event.latencyMilliseconds)
        #expect(climbs.count == 2 && climbs.allSatisfy { $0 <= 1_200 })
        #expect(ends["viewer"]?.decodeErrors == 0)
        #expect(ends["viewer"]?.undecodable == 0)
        #expect(ends["viewer"]?.sequenceGaps == 0)
    }

    @Test func retransmissionSourceMapsRewrittenSequenceNumbersBack() throws {
        let plan = try LayerPlan(width: 1024, height: 576)
        let (forwarder, ends) = try run(frames: 5, plan: plan, subscribers: ["viewer"]) { _, _, _ in [] }
        let last = try #require(ends["viewer"]?.lastSequence)
        let origin = try #require(try forwarder.retransmissionSource(for: "viewer", sequenceNumber: last))
        #expect(origin.sourceId == 1002)
        #expect(origin.header.sequenceNumber == last)
    }

    @Test func malformedAndForeignPacketsAreTypedErrors() throws {
        let plan = try LayerPlan(width: 1024, height: 576)
        let forwarder = TrackForwarder(plan: plan, layerSSRCs: [1, 2, 3])
        #expect(throws: ForwarderError.self) { try forwarder.forward([0x80, 0x60][...], nowMilliseconds: 0) { _, _ in } }
        var packet: [UInt8] = []
        try RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 1, ssrc: 99).serialize(into: &packet)
        packet += [0x90, 0x80, 0x80, 0x01, 0x00]
        #expect(throws: ForwarderError.unknownSSRC(99)) { try forwarder.forward(packet[...], nowMilliseconds: 0) { _, _ in } }
        #expect(throws: ForwarderError.unknownSubscriber("nobody")) { try forwarder.stats(for: "nobody") }
    }

    @Test func packetsGoToSubscribersInIdOrderOnceEachAcrossReAddAndRemove() throws {
        let plan = try LayerPlan(width: 1024, height: 576)
        let publisher = try TestPublisher(plan: plan)
        let forwarder = TrackForwarder(plan: plan, layerSSRCs: publisher.ssrcs)
        for (index, id) in ["c", "a", "d", "b"].enumerated() {
            _ = forwarder.addSubscriber(id, outputSSRC: UInt32(60 + index), preference: .quality(.low), nowMilliseconds: 0)
        }
        _ = forwarder.addSubscriber("a", outputSSRC: 70, preference: .quality(.low), nowMilliseconds: 0)  // replaces "a"
        forwarder.removeSubscriber("d")
        forwarder.removeSubscriber("nobody")
        var emitted: [(id: String, ssrc: UInt32)] = []
        for packet in try publisher.nextFramePackets() {
            _ = try forwarder.forward(packet[...], nowMilliseconds: 0) { id, bytes in
                emitted.append((id, try! RTPPacket(parsing: bytes).header.ssrc))
            }
        }
        let firstPacket = Array(emitted.prefix(3))
        #expect(firstPacket.map(\.id) == ["a", "b", "c"])
        #expect(firstPacket.map(\.ssrc) == [70, 63, 60])
        #expect(emitted.count % 3 == 0)
    }
}
