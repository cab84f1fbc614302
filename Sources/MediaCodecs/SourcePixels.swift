internal import CYUV

/// Caller pixels in any accepted `PixelFormat`, as raw pointers valid for one call.
/// Converting a `width` x `height` window at (`cropX`, `cropY`) is done by offsetting the
/// plane pointers, then one libyuv conversion (`I420Copy`, `NV12ToI420`, `ARGBToI420`).
enum SourcePixels {
    case i420(ConstPlanes)
    case nv12(y: UnsafePointer<UInt8>, strideY: Int, uv: UnsafePointer<UInt8>, strideUV: Int)
    case bgra(UnsafePointer<UInt8>, stride: Int)

    /// Writes the window of `dst.width` x `dst.height` source pixels starting at (`cropX`,
    /// `cropY`) into `dst` as I420. `cropX`, `cropY` must be even (chroma siting).
    func convertToI420(cropX: Int, cropY: Int, into dst: MutablePlanes) throws(YUVError) {
        let w = Int32(dst.width), h = Int32(dst.height)
        switch self {
        case .i420(let s):
            let y = s.y + cropY * s.strideY + cropX
            let u = s.u + (cropY / 2) * s.strideU + cropX / 2
            let v = s.v + (cropY / 2) * s.strideV + cropX / 2
            try YUVError.check(I420Copy(y, Int32(s.strideY), u, Int32(s.strideU), v, Int32(s.strideV),
                                        dst.y, Int32(dst.strideY), dst.u, Int32(dst.strideU),
                                        dst.v, Int32(dst.strideV), w, h), call: "I420Copy")
        case .nv12(let ys, let strideY, let uvs, let strideUV):
            let y = ys + cropY * strideY + cropX
            let uv = uvs + (cropY / 2) * strideUV + cropX  // 2 bytes per chroma sample, cropX even
            try YUVError.check(NV12ToI420(y, Int32(strideY), uv, Int32(strideUV),
                                          dst.y, Int32(dst.strideY), dst.u, Int32(dst.strideU),
                                          dst.v, Int32(dst.strideV), w, h), call: "NV12ToI420")
        case .bgra(let p, let stride):
            let start = p + cropY * stride + cropX * 4
            try YUVError.check(ARGBToI420(start, Int32(stride),
                                          dst.y, Int32(dst.strideY), dst.u, Int32(dst.strideU),
                                          dst.v, Int32(dst.strideV), w, h), call: "ARGBToI420")
        }
    }
}
