internal import CYUV

extension Scaler {
    /// Fits `source` whole into `destination` (`CropRect.centredFit`: centred, never upscaled)
    /// with libyuv `I420Scale` (`kFilterBox`; a plain copy at 1:1). The area around the picture
    /// is filled with black (`I420Rect`) only when `previousFit` differs from the new fit, so an
    /// unchanged layout leaves the border's bytes, and the encoder's view of them, untouched.
    /// - Returns: where the picture landed.
    @discardableResult
    func fit(_ source: VideoFrame, into destination: inout VideoFrame, previousFit: CropRect?) throws(YUVError) -> CropRect {
        let fit = CropRect.centredFit(sourceWidth: source.width, sourceHeight: source.height,
                                      targetWidth: destination.width, targetHeight: destination.height)
        try source.withUnsafePlanes { (src) throws(YUVError) in
            try destination.withUnsafeMutablePlanes { (dst) throws(YUVError) in
                if fit != previousFit, fit.width < dst.width || fit.height < dst.height {
                    try YUVError.check(I420Rect(dst.y, Int32(dst.strideY), dst.u, Int32(dst.strideU), dst.v, Int32(dst.strideV),
                                                0, 0, Int32(dst.width), Int32(dst.height), 16, 128, 128), call: "I420Rect")
                }
                try Self.scaleBox(src, into: dst.window(fit))
            }
        }
        return fit
    }
}
