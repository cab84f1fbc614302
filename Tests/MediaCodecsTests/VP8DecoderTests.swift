import Testing
import MediaCodecs
import Simulcast

@Suite struct VP8DecoderTests {
    @Test func emptyInputIsATypedError() throws {
        let decoder = try VP8Decoder()
        #expect(throws: VPXError.invalidParameter) { try decoder.decode([]) }
    }

    @Test func garbageInputIsATypedErrorNeverACrash() throws {
        let decoder = try VP8Decoder()
        var state: UInt32 = 12345
        var failures = 0
        for length in [1, 2, 3, 9, 10, 64, 500, 4000] {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: state >> 16)
            }
            do { _ = try decoder.decode(bytes) } catch { failures += 1 }
        }
        #expect(failures > 0)
    }

    @Test func truncatedAndCorruptedRealFramesNeverCrash() throws {
        let renderer = try TestScene().renderer(width: 320, height: 180)
        let encoder = try SimulcastEncoder(plan: try LayerPlan(width: 320, height: 180))
        let key = try #require(try encoder.encode(renderer.frame(0)).first)
        let delta = try #require(try encoder.encode(renderer.frame(1)).first)
        let decoder = try VP8Decoder()
        var errors = 0
        for cut in [1, 3, 10, key.data.count / 2] {
            do { _ = try decoder.decode(Array(key.data.prefix(cut))) } catch { errors += 1 }
        }
        #expect(errors >= 2)
        // A delta frame before any key frame cannot be decoded.
        #expect(throws: VPXError.self) { _ = try VP8Decoder().decode(delta.data) }
        // Flipped bytes inside a key frame: an error or a (damaged) picture, never a crash.
        var corrupt = key.data
        for i in stride(from: 20, to: corrupt.count, by: 7) { corrupt[i] ^= 0x5A }
        _ = try? VP8Decoder().decode(corrupt)
        // The decoder still works on good data afterwards.
        #expect(try VP8Decoder().decode(key.data)?.width == 320)
    }

    /// A key frame header may declare up to 16383x16383, for which libvpx would allocate about
    /// 400 MB; the decoder refuses key frames above its limit before libvpx sees them.
    @Test func keyFrameLargerThanTheLimitIsRefusedBeforeLibvpx() throws {
        let renderer = try TestScene().renderer(width: 320, height: 180)
        let key = try #require(try SimulcastEncoder(plan: try LayerPlan(width: 320, height: 180)).encode(renderer.frame(0)).first)
        var huge = key.data
        huge[6] = 0xFF; huge[7] = 0x3F; huge[8] = 0xFF; huge[9] = 0x3F  // 16383x16383
        #expect(throws: VPXError.unsupportedBitstream) { _ = try VP8Decoder().decode(huge) }
        #expect(throws: VPXError.unsupportedBitstream) { _ = try VP8Decoder(maximumPixels: 320 * 179).decode(key.data) }
        #expect(try VP8Decoder(maximumPixels: 320 * 180).decode(key.data)?.width == 320)
    }
}
