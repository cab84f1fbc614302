import Testing
@testable import MediaCodecs
import Simulcast

@Suite struct UtilityTests {
    @Test func testSceneFrameIsAPureFunctionOfItsIndex() throws {
        let a = try TestScene(seed: 3).frame(17, width: 160, height: 90)
        let b = try TestScene(seed: 3).renderer(width: 160, height: 90).frame(17)
        #expect(a == b)
        #expect(try TestScene(seed: 3).frame(18, width: 160, height: 90) != a)
        #expect(try TestScene(seed: 4).frame(17, width: 160, height: 90) != a)
    }

    @Test func testSceneRendersAnySizeIncludingOdd() throws {
        let frame = try TestScene().frame(5, width: 33, height: 17)
        #expect(frame.width == 33 && frame.height == 17)
        #expect(throws: VideoFrameError.invalidDimensions(width: 0, height: 17)) {
            _ = try TestScene().frame(5, width: 0, height: 17)
        }
    }

    @Test func psnrOfIdenticalFramesIs128AndDropsWithDifference() throws {
        let a = try TestScene().frame(0, width: 64, height: 64)
        #expect(try PSNR.luma(a, a) == 128)
        let b = try TestScene().frame(30, width: 64, height: 64)
        let psnr = try PSNR.yuv(a, b)
        #expect(psnr > 0 && psnr < 40)
        #expect(throws: VideoFrameError.sizeMismatch(expectedWidth: 64, expectedHeight: 64, width: 32, height: 32)) {
            _ = try PSNR.luma(a, try VideoFrame(width: 32, height: 32))
        }
    }

    @Test func framePoolReusesRecycledFrames() throws {
        let pool = try FramePool(width: 64, height: 36)
        var identities = Set<UInt>()
        for _ in 0..<10 {
            let frame = pool.take()
            identities.insert(UInt(bitPattern: frame.storageIdentity))
            pool.recycle(frame)
        }
        #expect(pool.allocations == 1)
        #expect(identities.count == 1)
    }

    @Test func steadyStateEncodingReusesTheSameLayerBuffersEveryFrame() throws {
        let plan = try LayerPlan()
        let encoder = try SimulcastEncoder(plan: plan)
        let renderer = try TestScene().renderer(width: 640, height: 480)
        var scaledTop: Set<UInt> = [], layerBuffers: Set<[UInt]> = []
        for n in 0..<5 {
            _ = try encoder.encode(scaling: renderer.frame(n))
            scaledTop.insert(UInt(bitPattern: encoder.scaledTopStorageIdentity))
            layerBuffers.insert(encoder.layerImageIdentities.dropFirst().map { UInt(bitPattern: $0) })
        }
        #expect(scaledTop.count == 1)
        #expect(layerBuffers.count == 1)
    }
}
