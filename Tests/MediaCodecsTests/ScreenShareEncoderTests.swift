import Testing
import MediaCodecs
import RTPWire
import Simulcast

/// Issue 17: the screen-share encoding on the generated 1080p screen (`sharedScreen1080Result`).
@Suite struct ScreenShareEncoderTests {
    @Test func settledTextIsAtLeast38dBAtTheTopLayer() throws {
        let run = try sharedScreen1080Result.get()
        // What a viewer reads: the last top-layer frame before each quiet stretch (the picture
        // stopped changing and was refined).
        let settled = run.staticSeconds.compactMap { second in
            run.topTextPSNR.last { $0.input < second * run.scene.frameRate }
        }
        #expect(settled.count == run.staticSeconds.count && settled.count >= 3)
        for frame in settled {
            #expect(frame.psnr >= 38, "text PSNR \(fixed(frame.psnr)) dB at input frame \(frame.input)")
        }
        let scrolling = run.topTextPSNR.filter { run.scene.phase(of: $0.input) == .scrolling }.map(\.psnr)
        print("screen 1080p: settled text PSNR \(settled.map { fixed($0.psnr, 1) }) dB; while scrolling min "
              + "\(fixed(scrolling.min() ?? 0, 1)) mean \(fixed(scrolling.reduce(0, +) / Double(max(1, scrolling.count)), 1)) dB")
    }

    @Test func staticSecondsSendUnder10kbps() throws {
        let run = try sharedScreen1080Result.get()
        #expect(run.staticSeconds.count >= 3)
        for second in run.staticSeconds {
            let bits = run.bits(inputs: (second * run.scene.frameRate)..<((second + 1) * run.scene.frameRate))
            #expect(bits < 10_000, "second \(second) sent \(bits) bits")
        }
        let scrollingKbps = run.scrollingSeconds.map { run.bits(inputs: ($0 * run.scene.frameRate)..<(($0 + 1) * run.scene.frameRate)) / 1000 }
        let staticBits = run.staticSeconds.map { run.bits(inputs: ($0 * run.scene.frameRate)..<(($0 + 1) * run.scene.frameRate)) }
        print("screen 1080p: static seconds \(staticBits) bits, scrolling seconds \(scrollingKbps) kbps")
    }

    @Test func unchangedFramesAreNotEncodedButTheirTimePasses() throws {
        let run = try sharedScreen1080Result.get()
        #expect(run.framesSkippedUnchanged > run.frameCount / 3)
        for layer in run.layers {
            #expect(layer.count + run.framesSkippedUnchanged == run.frameCount)
            // 15 fps: 6000 ticks of the 90 kHz clock per input frame, skipped ones included.
            #expect(layer.allSatisfy { $0.frame.rtpTimestamp == UInt32($0.input * 6000) })
        }
        // Every encoded input is a change, a refinement of a still picture or a keep-alive.
        let encodedInputs = run.layers[0].map(\.input)
        let changes = (0..<run.frameCount).filter { run.scene.differsFromPrevious($0) }
        #expect(Set(changes).isSubset(of: Set(encodedInputs)))
    }

    @Test func aStillScreenSendsAKeepAliveEveryTwoSeconds() throws {
        let run = try sharedScreen1080Result.get()
        let inputs = run.layers[1].map(\.input)
        let keepAlive = SimulcastEncoder.screenKeepAliveSeconds * run.scene.frameRate
        for (previous, next) in zip(inputs, inputs.dropFirst()) {
            #expect(next - previous <= keepAlive, "no frame between inputs \(previous) and \(next)")
        }
    }

    @Test func slideFlipsAreEncodedOnTheFrameTheyHappen() throws {
        let run = try sharedScreen1080Result.get()
        let flips = (0..<run.frameCount).filter { run.scene.isSlideFlip($0) }
        #expect(flips.count == 2)
        for flip in flips {
            for layer in run.layers { #expect(layer.contains { $0.input == flip }) }
        }
    }

    @Test func twoTemporalLayersAndTheBaseAloneDecodesCleanly() throws {
        let run = try sharedScreen1080Result.get()
        for layer in run.layers {
            let ids = Set(layer.map(\.frame.temporalId))
            #expect(ids == [0, 1])
            // A constrained viewer on TL0 only: every frame decodes, no corruption.
            let decoder = try VP8Decoder()
            var decoded = 0
            for entry in layer where entry.frame.temporalId == 0 {
                if try decoder.decode(entry.frame.data) != nil { decoded += 1 }
                #expect(try !decoder.lastFrameCorrupted())
            }
            #expect(decoded == layer.filter { $0.frame.temporalId == 0 }.count)
            #expect(decoded * 2 >= layer.count)
        }
    }

    @Test func screenLayersHaveNoL1T3ThirdTemporalLayer() throws {
        let run = try sharedScreen1080Result.get()
        #expect(run.layers.joined().allSatisfy { $0.frame.temporalId <= 1 })
        #expect(run.layers.map { $0.first?.frame.keyFrame } == [true, true])
    }

    @Test func captureBeyond2560x1440IsATypedError() throws {
        let encoder = try SimulcastEncoder(plan: LayerPlan(screenShareWidth: 1920, height: 1080), frameRate: 15)
        let frame = try VideoFrame(width: 2562, height: 1440)
        #expect(throws: SimulcastEncoderError.frame(.tooLarge(width: 2562, height: 1440, maximumLongerEdge: 2560,
                                                              maximumShorterEdge: 1440))) {
            try encoder.encode(scaling: frame)
        }
        #expect(throws: VideoFrameError.tooLarge(width: 1440, height: 2600, maximumLongerEdge: 2560, maximumShorterEdge: 1440)) {
            try SimulcastEncoder.validateScreenCapture(width: 1440, height: 2600)
        }
        try SimulcastEncoder.validateScreenCapture(width: 1440, height: 2560)
    }

    @Test func smallerCaptureIsCentredOneToOneWithBlackAround() throws {
        let plan = try LayerPlan(screenShareWidth: 640, height: 360, multiStream: false)
        let encoder = try SimulcastEncoder(plan: plan, frameRate: 15)
        let capture = try ScreenTestScene(seed: 5).renderer(width: 320, height: 240).frame(0)
        // The same capture for a second: refined, then quiet.
        var encoded: [EncodedFrame] = []
        for _ in 0..<15 { encoded += try encoder.encode(scaling: capture) }
        let picture = try #require(try decodeAll(encoded).last)
        #expect(picture.width == 640 && picture.height == 360)
        // The capture lands unscaled at (160, 60): there it matches the capture, one text line
        // lower it does not.
        var cropped = try VideoFrame(width: 320, height: 240)
        try crop(picture, x: 160, y: 60, into: &cropped)
        let inPlace = try PSNR.luma(capture, cropped)
        try crop(picture, x: 160, y: 66, into: &cropped)
        let shifted = try PSNR.luma(capture, cropped)
        #expect(inPlace > 30 && shifted < inPlace - 10, "in place \(fixed(inPlace)) dB, shifted \(fixed(shifted)) dB")
        // The border is black (Y 16).
        #expect(picture.yPlane[picture.yPlane.startIndex + 10 * picture.strideY + 10] < 24)
    }

    @Test func largerCaptureIsFittedWholeNotCropped() throws {
        #expect(CropRect.centredFit(sourceWidth: 2560, sourceHeight: 1440, targetWidth: 1920, targetHeight: 1080)
                == CropRect(x: 0, y: 0, width: 1920, height: 1080))
        #expect(CropRect.centredFit(sourceWidth: 1920, sourceHeight: 1200, targetWidth: 1920, targetHeight: 1080)
                == CropRect(x: 96, y: 0, width: 1728, height: 1080))
        #expect(CropRect.centredFit(sourceWidth: 1280, sourceHeight: 1024, targetWidth: 1920, targetHeight: 1080)
                == CropRect(x: 320, y: 28, width: 1280, height: 1024))
        #expect(CropRect.centredFit(sourceWidth: 3, sourceHeight: 3, targetWidth: 1920, targetHeight: 1080)
                == CropRect(x: 958, y: 538, width: 2, height: 2))
    }
}

/// Copies the `destination`-sized window at (`x`, `y`) of `frame` into `destination` (Y plane).
private func crop(_ frame: VideoFrame, x: Int, y: Int, into destination: inout VideoFrame) throws {
    var bytes = [UInt8](repeating: 128, count: destination.width * destination.height * 3 / 2)
    for row in 0..<destination.height {
        let start = frame.yPlane.startIndex + (y + row) * frame.strideY + x
        bytes.replaceSubrange((row * destination.width)..<((row + 1) * destination.width),
                              with: frame.yPlane[start..<(start + destination.width)])
    }
    destination = try VideoFrame(packedI420: bytes, width: destination.width, height: destination.height)
}
