import Testing
import MediaCodecs
import RTPWire
import Simulcast

@Suite struct ScalerTests {
    @Test func centreCropKeeps16by9SourcesWhole() {
        #expect(CropRect.centred(sourceWidth: 1920, sourceHeight: 1080, targetWidth: 1280, targetHeight: 720)
                == CropRect(x: 0, y: 0, width: 1920, height: 1080))
    }

    @Test func centreCropTrimsTopAndBottomOf4by3For16by9() {
        #expect(CropRect.centred(sourceWidth: 640, sourceHeight: 480, targetWidth: 1280, targetHeight: 720)
                == CropRect(x: 0, y: 60, width: 640, height: 360))
    }

    @Test func centreCropTrimsSidesOfWideSources() {
        #expect(CropRect.centred(sourceWidth: 1280, sourceHeight: 720, targetWidth: 640, targetHeight: 480)
                == CropRect(x: 160, y: 0, width: 960, height: 720))
    }

    @Test func scalingKeepsTheCentredContent() throws {
        // 640x480 with a bright band in rows 60..<420 (the 16:9 centre) and dark elsewhere.
        var y = [UInt8](repeating: 20, count: 640 * 480)
        for row in 60..<420 { for x in 0..<640 { y[row * 640 + x] = 200 } }
        let c = [UInt8](repeating: 128, count: 320 * 240)
        let source = try VideoFrame(i420Y: y, strideY: 640, u: c, strideU: 320, v: c, strideV: 320, width: 640, height: 480)
        let out = try Scaler().scaled(source, width: 1280, height: 720)
        #expect(out.width == 1280 && out.height == 720)
        #expect(out.yPlane.allSatisfy { $0 >= 195 })
    }

    /// Builds a test picture of `width` x `height` in `format` and feeds it through the
    /// scaling encoder path; every layer must come out at the plan's size.
    private func encodeThroughScaler(format: PixelFormat, width: Int, height: Int) throws -> [EncodedFrame] {
        let plan = try LayerPlan()
        let encoder = try SimulcastEncoder(plan: plan)
        let scaler = Scaler()
        let pool = try FramePool(width: plan.top.width, height: plan.top.height)
        var out: [EncodedFrame] = []
        for n in 0..<2 {
            var top = pool.take()
            switch format {
            case .i420:
                let frame = try TestScene().frame(n, width: width, height: height)
                out += try encoder.encode(scaling: frame)
            case .nv12:
                let cw = (width + 1) / 2, ch = (height + 1) / 2
                let y = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 % width + n) }
                let uv = [UInt8](repeating: 128, count: 2 * cw * ch)
                try scaler.convert(nv12Y: y, strideY: width, uv: uv, strideUV: 2 * cw, width: width, height: height,
                                   into: &top)
                out += try encoder.encode(top)
            case .bgra:
                let bgra = (0..<(4 * width * height)).map { UInt8(truncatingIfNeeded: $0 / 4 % 251 + n) }
                try scaler.convert(bgra: bgra, stride: 4 * width, width: width, height: height, into: &top)
                out += try encoder.encode(top)
            }
            pool.recycle(top)
        }
        #expect(pool.allocations == 1)
        return out
    }

    @Test(arguments: [PixelFormat.i420, .nv12, .bgra], [(1920, 1080), (640, 480)])
    func inputsOfAnyFormatAndSizeComeOutAtThePlansLayerSizes(format: PixelFormat, size: (Int, Int)) throws {
        let out = try encodeThroughScaler(format: format, width: size.0, height: size.1)
        #expect(out.count == 6)
        let sizes = out.map { [$0.width, $0.height] }
        #expect(sizes == [[320, 180], [640, 360], [1280, 720], [320, 180], [640, 360], [1280, 720]])
        for frame in out where frame.keyFrame {
            #expect(try VP8Decoder().decode(frame.data)?.width == frame.width)
        }
    }

    @Test func scalingIntoAReusedFrameDoesNotReallocateIt() throws {
        let scaler = Scaler()
        let source = try TestScene().frame(0, width: 640, height: 480)
        var destination = try VideoFrame(width: 1280, height: 720)
        let before = destination.yPlane.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        for _ in 0..<3 { try scaler.scale(source, into: &destination) }
        let after = destination.yPlane.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(before == after)
    }
}
