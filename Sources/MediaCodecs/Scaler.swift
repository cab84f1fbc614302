internal import CYUV

/// Converts pictures of any accepted format and size to a target I420 size with libyuv:
/// centre-crop to the target's aspect ratio (`CropRect.centred`), convert (`NV12ToI420`,
/// `ARGBToI420`, or none for I420), then scale with `I420Scale` and `kFilterBox` (upscaling
/// allowed). Layer-to-layer downscaling in the encoder uses the same path.
///
/// Holds one scratch frame for the convert-then-scale case, reused across calls, so steady
/// state allocates nothing when the destination frame is reused too. Not thread-safe: one
/// scaler per capture pipeline.
public final class Scaler {
    private var scratch: VideoFrame?

    /// A scaler with no scratch buffer yet (allocated on first NV12/BGRA convert+scale).
    public init() {}

    /// Scales (centre-cropping) `source` into `destination`, keeping `destination`'s size and
    /// reusing its storage when it is uniquely referenced.
    public func scale(_ source: VideoFrame, into destination: inout VideoFrame) throws(YUVError) {
        try source.withUnsafePlanes { (src) throws(YUVError) in
            try destination.withUnsafeMutablePlanes { (dst) throws(YUVError) in
                try convert(.i420(src), width: src.width, height: src.height, into: dst)
            }
        }
    }

    /// A new frame of `width` x `height` holding `source` centre-cropped and scaled.
    public func scaled(_ source: VideoFrame, width: Int, height: Int) throws -> VideoFrame {
        var out = try VideoFrame(width: width, height: height)
        try scale(source, into: &out)
        return out
    }

    /// Converts NV12 caller pixels (centre-cropped, scaled) into `destination`.
    public func convert(nv12Y y: [UInt8], strideY: Int, uv: [UInt8], strideUV: Int,
                        width: Int, height: Int, into destination: inout VideoFrame) throws {
        try VideoFrame.validateDimensions(width: width, height: height)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        try VideoFrame.validatePlane("Y", bytes: y.count, stride: strideY, rowBytes: width, rows: height)
        try VideoFrame.validatePlane("UV", bytes: uv.count, stride: strideUV, rowBytes: 2 * cw, rows: ch)
        try y.withUnsafeBufferPointer { ys in
            try uv.withUnsafeBufferPointer { uvs in
                try destination.withUnsafeMutablePlanes { (dst) throws(YUVError) in
                    try convert(.nv12(y: ys.baseAddress!, strideY: strideY, uv: uvs.baseAddress!,
                                      strideUV: strideUV),
                                width: width, height: height, into: dst)
                }
            }
        }
    }

    /// Converts BGRA caller pixels (libyuv "ARGB"; centre-cropped, scaled) into `destination`.
    public func convert(bgra: [UInt8], stride: Int, width: Int, height: Int,
                        into destination: inout VideoFrame) throws {
        try VideoFrame.validateDimensions(width: width, height: height)
        try VideoFrame.validatePlane("BGRA", bytes: bgra.count, stride: stride, rowBytes: 4 * width, rows: height)
        try bgra.withUnsafeBufferPointer { p in
            try destination.withUnsafeMutablePlanes { (dst) throws(YUVError) in
                try convert(.bgra(p.baseAddress!, stride: stride), width: width, height: height, into: dst)
            }
        }
    }

    /// The core: crop `source` (of `width` x `height`) to `dst`'s aspect, convert, scale.
    func convert(_ source: SourcePixels, width: Int, height: Int, into dst: MutablePlanes) throws(YUVError) {
        let crop = CropRect.centred(sourceWidth: width, sourceHeight: height,
                                    targetWidth: dst.width, targetHeight: dst.height)
        if crop.width == dst.width && crop.height == dst.height {
            try source.convertToI420(cropX: crop.x, cropY: crop.y, into: dst)
            return
        }
        if case .i420(let s) = source {
            // Crop by offsetting the plane pointers; scale straight into the destination.
            try Self.scaleBox(s.window(crop), into: dst)
            return
        }
        // NV12 / BGRA of another size: convert the crop window into scratch, then scale.
        if scratch?.width != crop.width || scratch?.height != crop.height {
            scratch = VideoFrame(unchecked: crop.width, height: crop.height)
        }
        try scratch!.withUnsafeMutablePlanes { (tmp) throws(YUVError) in
            try source.convertToI420(cropX: crop.x, cropY: crop.y, into: tmp)
            try Self.scaleBox(tmp.readOnly, into: dst)
        }
    }

    /// libyuv `I420Scale` with `kFilterBox` from `src`'s size to `dst`'s size.
    static func scaleBox(_ src: ConstPlanes, into dst: MutablePlanes) throws(YUVError) {
        try YUVError.check(I420Scale(src.y, Int32(src.strideY), src.u, Int32(src.strideU),
                                     src.v, Int32(src.strideV), Int32(src.width), Int32(src.height),
                                     dst.y, Int32(dst.strideY), dst.u, Int32(dst.strideU),
                                     dst.v, Int32(dst.strideV), Int32(dst.width), Int32(dst.height),
                                     kFilterBox), call: "I420Scale")
    }
}
