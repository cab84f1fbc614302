import Testing
import MediaCodecs

@Suite struct VideoFrameTests {
    @Test func i420PlanesWithPaddedStridesAreCopiedRowByRow() throws {
        // 4x2 frame, Y stride 6, chroma stride 3 (one byte of padding each row).
        let y: [UInt8] = [1, 2, 3, 4, 0, 0, 5, 6, 7, 8]
        let u: [UInt8] = [10, 11], v: [UInt8] = [20, 21]
        let frame = try VideoFrame(i420Y: y, strideY: 6, u: u, strideU: 3, v: v, strideV: 3, width: 4, height: 2)
        #expect(Array(frame.yPlane) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Array(frame.uPlane) == [10, 11])
        #expect(Array(frame.vPlane) == [20, 21])
    }

    @Test func nv12IsDeinterleavedIntoUAndV() throws {
        let y = [UInt8](repeating: 50, count: 16)
        let uv: [UInt8] = [100, 200, 101, 201, 102, 202, 103, 203]
        let frame = try VideoFrame(nv12Y: y, strideY: 4, uv: uv, strideUV: 4, width: 4, height: 4)
        #expect(Array(frame.uPlane) == [100, 101, 102, 103])
        #expect(Array(frame.vPlane) == [200, 201, 202, 203])
    }

    @Test func bgraByteOrderIsBlueGreenRedAlpha() throws {
        // Pure red in BGRA memory order: B=0, G=0, R=255, A=255.
        let red = [UInt8](repeating: 0, count: 4 * 4 * 4).enumerated().map { $0.offset % 4 >= 2 ? 255 : 0 } as [UInt8]
        let frame = try VideoFrame(bgra: red, stride: 16, width: 4, height: 4)
        // BT.601 video range: Y = 16 + 0.257 * 255 ≈ 82, V (Cr) high, U (Cb) low.
        #expect(frame.yPlane.allSatisfy { (80...84).contains($0) })
        #expect(frame.vPlane.allSatisfy { $0 > 200 })
        #expect(frame.uPlane.allSatisfy { $0 < 110 })
    }

    @Test func zeroOrNegativeSizesAreTypedErrors() {
        #expect(throws: VideoFrameError.invalidDimensions(width: 0, height: 10)) { try VideoFrame(width: 0, height: 10) }
        #expect(throws: VideoFrameError.invalidDimensions(width: -4, height: 10)) { try VideoFrame(width: -4, height: 10) }
        #expect(throws: VideoFrameError.invalidDimensions(width: 4, height: -2)) {
            try VideoFrame(bgra: [], stride: 16, width: 4, height: -2)
        }
        #expect(throws: VideoFrameError.invalidDimensions(width: 0, height: 0)) {
            try VideoFrame(nv12Y: [], strideY: 0, uv: [], strideUV: 0, width: 0, height: 0)
        }
    }

    @Test func planeBuffersTooSmallAreTypedErrors() {
        #expect(throws: VideoFrameError.planeTooSmall(plane: "Y", bytes: 15, required: 16)) {
            try VideoFrame(i420Y: [UInt8](repeating: 0, count: 15), strideY: 4, u: [0, 0, 0, 0], strideU: 2,
                           v: [0, 0, 0, 0], strideV: 2, width: 4, height: 4)
        }
        #expect(throws: VideoFrameError.planeTooSmall(plane: "V", bytes: 3, required: 4)) {
            try VideoFrame(i420Y: [UInt8](repeating: 0, count: 16), strideY: 4, u: [0, 0, 0, 0], strideU: 2,
                           v: [0, 0, 0], strideV: 2, width: 4, height: 4)
        }
        #expect(throws: VideoFrameError.planeTooSmall(plane: "UV", bytes: 4, required: 8)) {
            try VideoFrame(nv12Y: [UInt8](repeating: 0, count: 16), strideY: 4, uv: [0, 0, 0, 0], strideUV: 4,
                           width: 4, height: 4)
        }
        #expect(throws: VideoFrameError.planeTooSmall(plane: "BGRA", bytes: 63, required: 64)) {
            try VideoFrame(bgra: [UInt8](repeating: 0, count: 63), stride: 16, width: 4, height: 4)
        }
        #expect(throws: VideoFrameError.planeTooSmall(plane: "I420", bytes: 10, required: 24)) {
            try VideoFrame(packedI420: [UInt8](repeating: 0, count: 10), width: 4, height: 4)
        }
    }

    @Test func strideShorterThanTheRowIsATypedError() {
        #expect(throws: VideoFrameError.strideTooSmall(plane: "Y", stride: 3, minimum: 4)) {
            try VideoFrame(i420Y: [UInt8](repeating: 0, count: 64), strideY: 3, u: [UInt8](repeating: 0, count: 8),
                           strideU: 2, v: [UInt8](repeating: 0, count: 8), strideV: 2, width: 4, height: 4)
        }
        #expect(throws: VideoFrameError.strideTooSmall(plane: "BGRA", stride: -16, minimum: 16)) {
            try VideoFrame(bgra: [UInt8](repeating: 0, count: 64), stride: -16, width: 4, height: 4)
        }
    }

    @Test func hugeStrideIsATypedErrorNotAnOverflowTrap() {
        #expect(throws: VideoFrameError.planeTooSmall(plane: "BGRA", bytes: 64, required: .max)) {
            try VideoFrame(bgra: [UInt8](repeating: 0, count: 64), stride: .max / 2, width: 4, height: 4)
        }
    }

    @Test func oddSizesRoundChromaUp() throws {
        let frame = try VideoFrame(width: 5, height: 3)
        #expect(frame.chromaWidth == 3 && frame.chromaHeight == 2)
        #expect(frame.uPlane.count == 6 && frame.yPlane.count == 15)
    }
}
