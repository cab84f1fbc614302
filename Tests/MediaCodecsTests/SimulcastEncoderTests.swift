import Testing
import MediaCodecs
import RTPWire
import Simulcast

@Suite struct SimulcastEncoderTests {
    @Test func threeLayerEncodeDecodesPerLayerAtPlanSizes() throws {
        let run = try sharedHD720Result.get()
        let expected = [(320, 180), (640, 360), (1280, 720)]
        #expect(run.plan.layers.map { ($0.width, $0.height) }.elementsEqual(expected, by: ==))
        for (index, size) in expected.enumerated() {
            #expect(run.layers[index].count == 90)
            #expect(run.layers[index].allSatisfy { $0.width == size.0 && $0.height == size.1 && $0.spatialIndex == index })
            let decoded = try decodeAll(run.layers[index])
            #expect(decoded.count == 90)
            #expect(decoded.allSatisfy { $0.width == size.0 && $0.height == size.1 })
        }
    }

    @Test func firstFrameIsKeyOnEveryLayerAndLaterFramesAreDelta() throws {
        for layer in try sharedHD720Result.get().layers {
            #expect(layer.first?.keyFrame == true)
            #expect(layer.dropFirst().allSatisfy { !$0.keyFrame })
        }
    }

    @Test func temporalIdsRepeat0212() throws {
        for layer in try sharedHD720Result.get().layers {
            let ids = layer.map(\.temporalId)
            let pattern = (0..<ids.count).map { [UInt8(0), 2, 1, 2][$0 % 4] }
            #expect(ids == pattern)
        }
    }

    @Test func layerSyncOnFirstTL2AfterEachTL0AndOnTL1AfterKeyAndEveryEightCycles() throws {
        for layer in try sharedHD720Result.get().layers {
            for (n, frame) in layer.enumerated() where !frame.keyFrame {
                let expected: Bool
                switch n % 4 {
                case 1: expected = true          // first TL2 after a TL0: references LAST only
                case 2: expected = (n / 4) % 8 == 0  // TL1 skips GOLDEN after a key and every 8 cycles
                default: expected = false
                }
                #expect(frame.layerSync == expected, "frame \(n) tid \(frame.temporalId)")
            }
        }
    }

    @Test func rtpTimestampsAdvance3000PerFrameAt30fps() throws {
        for layer in try sharedHD720Result.get().layers {
            #expect(layer.enumerated().allSatisfy { $0.element.rtpTimestamp == UInt32($0.offset * 3000) })
        }
    }

    @Test func decodingOnlyTL0OrTL0AndTL1FramesHasNoErrors() throws {
        let run = try sharedHD720Result.get()
        for index in run.plan.layers.indices {
            for maxTid in [UInt8(0), 1] {
                let decoder = try VP8Decoder()
                var decoded = 0
                var psnrSum = 0.0
                for (n, frame) in run.layers[index].enumerated() where frame.temporalId <= maxTid {
                    let picture = try #require(try decoder.decode(frame.data))
                    #expect(try decoder.lastFrameCorrupted() == false)
                    psnrSum += try PSNR.luma(picture, run.sources[index][n])
                    decoded += 1
                }
                #expect(decoded == (maxTid == 0 ? 23 : 45))
                let psnr = psnrSum / Double(decoded)
                print("layer \(index) TL0..\(maxTid): \(decoded) frames, Y-PSNR \(fixed(psnr)) dB")
                // Missing references would show up as garbage pictures, far below this.
                #expect(psnr >= 28)
            }
        }
    }

    @Test func psnrOfEveryLayerIsAtLeast30dBAtDefaultBitrates() throws {
        let run = try sharedHD720Result.get()
        for index in run.plan.layers.indices {
            let decoded = try decodeAll(run.layers[index])
            var ySum = 0.0, yuvSum = 0.0, yMin = Double.infinity
            for (n, picture) in decoded.enumerated() {
                let y = try PSNR.luma(picture, run.sources[index][n])
                ySum += y
                yMin = min(yMin, y)
                yuvSum += try PSNR.yuv(picture, run.sources[index][n])
            }
            let spec = run.plan.layers[index]
            let yAvg = ySum / Double(decoded.count), yuvAvg = yuvSum / Double(decoded.count)
            let kbps = fixed(run.kbps(layer: index), 0)
            let target = spec.bitrates.targetKbps
            print("layer \(index) \(spec.width)x\(spec.height) target \(target) kbps: measured \(kbps) kbps, "
                  + "Y-PSNR avg \(fixed(yAvg)) min \(fixed(yMin)), YUV-PSNR avg \(fixed(yuvAvg)) dB")
            #expect(yAvg >= 30)
            #expect(yuvAvg >= 30)
        }
    }

    @Test func maxLayerTwoEncodesExactly320x180And1280x720() throws {
        let plan = try LayerPlan(width: 1280, height: 720, maxLayer: .two)
        let run = try encodeScene(plan: plan, frames: 8, keepSources: false)
        #expect(run.layers.count == 2)
        #expect(run.layers[0].allSatisfy { $0.width == 320 && $0.height == 180 })
        #expect(run.layers[1].allSatisfy { $0.width == 1280 && $0.height == 720 })
        #expect(try decodeAll(run.layers[0]).count == 8)
        #expect(try decodeAll(run.layers[1]).count == 8)
    }

    @Test func singleLayerPlanEncodesOneLayer() throws {
        let plan = try LayerPlan(width: 640, height: 360, multiStream: false)
        let run = try encodeScene(plan: plan, frames: 6, keepSources: false)
        #expect(run.layers.count == 1)
        #expect(run.layers[0].count == 6)
        #expect(try decodeAll(run.layers[0]).allSatisfy { $0.width == 640 && $0.height == 360 })
    }

    @Test func twoLayerPlanFrom640x480Encodes320x240And640x480() throws {
        let plan = try LayerPlan(width: 640, height: 480)
        let run = try encodeScene(plan: plan, frames: 4, keepSources: false)
        #expect(run.layers.map { $0.first.map { [$0.width, $0.height] } } == [[320, 240], [640, 480]])
    }

    @Test func requestKeyFrameMakesNextFrameKeyOnEveryActiveLayer() throws {
        let plan = try LayerPlan()
        let encoder = try SimulcastEncoder(plan: plan)
        let scene = try TestScene().renderer(width: 1280, height: 720)
        for n in 0..<6 { _ = try encoder.encode(scene.frame(n)) }
        encoder.requestKeyFrame()
        let keyed = try encoder.encode(scene.frame(6))
        #expect(keyed.count == 3)
        #expect(keyed.allSatisfy { $0.keyFrame && $0.temporalId == 0 })
        // The pattern restarts: the next frame is a TL2 delta frame with layer sync.
        let after = try encoder.encode(scene.frame(7))
        #expect(after.allSatisfy { !$0.keyFrame && $0.temporalId == 2 && $0.layerSync })
    }

    @Test func pausingALayerStopsItsOutputAndResumingStartsWithAKeyFrame() throws {
        let plan = try LayerPlan()
        let encoder = try SimulcastEncoder(plan: plan)
        let scene = try TestScene().renderer(width: 1280, height: 720)
        var n = 0
        func next() throws -> [EncodedFrame] {
            defer { n += 1 }
            return try encoder.encode(scene.frame(n))
        }
        for _ in 0..<5 { _ = try next() }
        try encoder.setBitrate(kbps: 0, forLayer: 1)
        #expect(encoder.activeLayerIndices == [0, 2])
        var decoders = try [VP8Decoder(), VP8Decoder()]
        for _ in 0..<6 {
            let out = try next()
            #expect(out.map(\.spatialIndex) == [0, 2])
            #expect(out.allSatisfy { !$0.keyFrame })
        }
        try encoder.setBitrate(kbps: 500, forLayer: 1)
        let resumed = try next()
        #expect(resumed.map(\.spatialIndex) == [0, 1, 2])
        let middle = try #require(resumed.first { $0.spatialIndex == 1 })
        #expect(middle.keyFrame)
        #expect(middle.temporalId == 0)
        // A fresh decoder can start at the resumed layer's key frame and keep decoding.
        #expect(try decoders[0].decode(middle.data)?.width == 640)
        for _ in 0..<5 {
            let out = try next()
            let frame = try #require(out.first { $0.spatialIndex == 1 })
            #expect(try decoders[0].decode(frame.data) != nil)
        }
        decoders.removeAll()
    }

    @Test func everyLayerStaysDecodableAcrossPausingAndResumingAnother() throws {
        let plan = try LayerPlan()
        let encoder = try SimulcastEncoder(plan: plan)
        let scene = try TestScene().renderer(width: 1280, height: 720)
        let scaler = Scaler()
        let decoders = try plan.layers.map { _ in try VP8Decoder() }
        var psnr = [[Double]](repeating: [], count: 3)
        for n in 0..<24 {
            if n == 6 { try encoder.setBitrate(kbps: 0, forLayer: 0) }      // pause the lowest
            if n == 12 { try encoder.setBitrate(kbps: 150, forLayer: 0) }   // and resume it
            let top = scene.frame(n)
            for frame in try encoder.encode(top) {
                if n == 12 && frame.spatialIndex == 0 { #expect(frame.keyFrame) }
                if n == 12 && frame.spatialIndex != 0 { #expect(!frame.keyFrame) }
                let picture = try #require(try decoders[frame.spatialIndex].decode(frame.data))
                #expect(try decoders[frame.spatialIndex].lastFrameCorrupted() == false)
                let source = try scaler.scaled(top, width: frame.width, height: frame.height)
                psnr[frame.spatialIndex].append(try PSNR.luma(picture, source))
            }
        }
        #expect(psnr.map(\.count) == [18, 24, 24])
        for values in psnr { #expect(values.reduce(0, +) / Double(values.count) >= 28) }
    }

    @Test func capMediumStopsTheTopLayerAndCapLowSendsOnlyTheSmallest() throws {
        let encoder = try SimulcastEncoder(plan: try LayerPlan())
        let scene = try TestScene().renderer(width: 1280, height: 720)
        _ = try encoder.encode(scene.frame(0))
        try encoder.apply(cap: .medium)
        #expect(try encoder.encode(scene.frame(1)).map(\.spatialIndex) == [0, 1])
        try encoder.apply(cap: .low)
        #expect(try encoder.encode(scene.frame(2)).map(\.spatialIndex) == [0])
        try encoder.apply(cap: .high)
        let all = try encoder.encode(scene.frame(3))
        #expect(all.map(\.spatialIndex) == [0, 1, 2])
        // Layers 1 and 2 were paused: they resume with key frames; layer 0 continues.
        #expect(all.map(\.keyFrame) == [false, true, true])
    }

    @Test func wrongSizeFrameIntoTheEncoderIsATypedError() throws {
        let encoder = try SimulcastEncoder(plan: try LayerPlan())
        let frame = try VideoFrame(width: 640, height: 360)
        #expect(throws: SimulcastEncoderError.frame(.sizeMismatch(expectedWidth: 1280, expectedHeight: 720,
                                                                  width: 640, height: 360))) {
            try encoder.encode(frame)
        }
    }

    @Test func bitratesOutOfRangeAreTypedErrors() throws {
        let encoder = try SimulcastEncoder(plan: try LayerPlan())
        for kbps in [-1, 1, 9, 20001] {
            #expect(throws: SimulcastEncoderError.bitrateOutOfRange(kbps: kbps, allowed: 10...20000)) {
                try encoder.setBitrate(kbps: kbps, forLayer: 0)
            }
        }
        #expect(throws: SimulcastEncoderError.layerOutOfRange(index: 3, layerCount: 3)) {
            try encoder.setBitrate(kbps: 100, forLayer: 3)
        }
        #expect(throws: SimulcastEncoderError.bitrateOutOfRange(kbps: 5, allowed: 10...20000)) {
            _ = try SimulcastEncoder(plan: try LayerPlan(), bitratesKbps: [5, 500, 2500])
        }
        #expect(throws: SimulcastEncoderError.invalidFrameRate(0)) {
            _ = try SimulcastEncoder(plan: try LayerPlan(), frameRate: 0)
        }
    }

    @Test func cpuUsedOutsideLibvpxRangeIsATypedError() throws {
        for value in [-17, 17, -100] {
            #expect(throws: SimulcastEncoderError.invalidCPUUsed(value)) {
                _ = try SimulcastEncoder(plan: try LayerPlan(), cpuUsed: value)
            }
        }
    }

    @Test func aFasterCPUUsedStillEncodesEveryLayerDecodably() throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let encoder = try SimulcastEncoder(plan: plan, cpuUsed: -12)
        let scene = try TestScene().renderer(width: 640, height: 360)
        var layers: [[EncodedFrame]] = Array(repeating: [], count: plan.layers.count)
        for n in 0..<6 {
            for frame in try encoder.encode(scene.frame(n)) { layers[frame.spatialIndex].append(frame) }
        }
        for layer in layers {
            #expect(layer.count == 6)
            #expect(try decodeAll(layer).count == 6)
        }
    }

    @Test func rtpTimestampStartIsInjectable() throws {
        let encoder = try SimulcastEncoder(plan: try LayerPlan(width: 320, height: 180), rtpTimestampStart: 0xFFFF_FF00)
        let scene = try TestScene().renderer(width: 320, height: 180)
        let first = try encoder.encode(scene.frame(0))
        let second = try encoder.encode(scene.frame(1))
        #expect(first.map(\.rtpTimestamp) == [0xFFFF_FF00])
        #expect(second.map(\.rtpTimestamp) == [0xFFFF_FF00 &+ 3000])
    }
}
