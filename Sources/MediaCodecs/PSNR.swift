internal import CYUV

/// Peak signal-to-noise ratio between two I420 frames of equal size, in dB (libyuv
/// `ComputeSumSquareErrorPlane` + `SumSquareErrorToPsnr`; identical planes give 128 dB).
public enum PSNR {
    /// PSNR of the Y planes only.
    public static func luma(_ a: VideoFrame, _ b: VideoFrame) throws(VideoFrameError) -> Double {
        try checkSizes(a, b)
        let sse = squaredError(a, b, plane: 0)
        return SumSquareErrorToPsnr(sse, UInt64(a.width * a.height))
    }

    /// PSNR over all three planes together (sum of squared errors over Y, U and V samples).
    public static func yuv(_ a: VideoFrame, _ b: VideoFrame) throws(VideoFrameError) -> Double {
        try checkSizes(a, b)
        let sse = squaredError(a, b, plane: 0) + squaredError(a, b, plane: 1) + squaredError(a, b, plane: 2)
        let samples = a.width * a.height + 2 * a.chromaWidth * a.chromaHeight
        return SumSquareErrorToPsnr(sse, UInt64(samples))
    }

    private static func checkSizes(_ a: VideoFrame, _ b: VideoFrame) throws(VideoFrameError) {
        guard a.width == b.width, a.height == b.height else {
            throw .sizeMismatch(expectedWidth: a.width, expectedHeight: a.height, width: b.width, height: b.height)
        }
    }

    private static func squaredError(_ a: VideoFrame, _ b: VideoFrame, plane: Int) -> UInt64 {
        a.withUnsafePlanes { pa in
            b.withUnsafePlanes { pb in
                switch plane {
                case 0:
                    return ComputeSumSquareErrorPlane(pa.y, Int32(pa.strideY), pb.y, Int32(pb.strideY),
                                                      Int32(a.width), Int32(a.height))
                case 1:
                    return ComputeSumSquareErrorPlane(pa.u, Int32(pa.strideU), pb.u, Int32(pb.strideU),
                                                      Int32(a.chromaWidth), Int32(a.chromaHeight))
                default:
                    return ComputeSumSquareErrorPlane(pa.v, Int32(pa.strideV), pb.v, Int32(pb.strideV),
                                                      Int32(a.chromaWidth), Int32(a.chromaHeight))
                }
            }
        }
    }
}

extension PSNR {
    /// PSNR of the Y planes inside `region` only (e.g. the text of a screen share), in dB.
    /// - Throws: `.sizeMismatch` for frames of different sizes, `.invalidDimensions` for a region
    ///   that is empty or not inside the frames.
    public static func luma(_ a: VideoFrame, _ b: VideoFrame, in region: CropRect) throws(VideoFrameError) -> Double {
        guard a.width == b.width, a.height == b.height else {
            throw .sizeMismatch(expectedWidth: a.width, expectedHeight: a.height, width: b.width, height: b.height)
        }
        guard region.width > 0, region.height > 0, region.x >= 0, region.y >= 0,
              region.x + region.width <= a.width, region.y + region.height <= a.height else {
            throw .invalidDimensions(width: region.width, height: region.height)
        }
        let sse = a.withUnsafePlanes { pa in
            b.withUnsafePlanes { pb in
                ComputeSumSquareErrorPlane(pa.y + region.y * pa.strideY + region.x, Int32(pa.strideY),
                                           pb.y + region.y * pb.strideY + region.x, Int32(pb.strideY),
                                           Int32(region.width), Int32(region.height))
            }
        }
        return SumSquareErrorToPsnr(sse, UInt64(region.width * region.height))
    }
}
