internal import CVPX
internal import CShims

/// A VP8 decoder over libvpx: `vpx_codec_dec_init` (via `cshim_vpx_codec_dec_init`),
/// `vpx_codec_decode`, `vpx_codec_get_frame`; each decoded picture is copied into a
/// `VideoFrame` (libyuv `CopyPlane`). Corrupt or truncated input is a thrown `VPXError`
/// (usually `.corruptFrame` or `.unsupportedBitstream`), never a crash.
///
/// Not `Sendable`: it owns mutable C decoder state.
public final class VP8Decoder {
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    /// Key frames declaring more pixels than this are refused before libvpx sees them.
    public let maximumPixels: Int

    /// The default `maximumPixels`: the engine's largest encoder size, 4096x2304. A VP8 key
    /// frame header may declare up to 16383x16383 (RFC 6386 §9.1), and libvpx allocates its frame
    /// buffers for the declared size (about 400 MB) from a frame of a few bytes.
    public static let defaultMaximumPixels = 4096 * 2304

    /// Creates a decoder (single-threaded, no post-processing) for pictures of at most
    /// `defaultMaximumPixels`.
    public convenience init() throws(VPXError) {
        try self.init(maximumPixels: Self.defaultMaximumPixels)
    }

    /// Creates a decoder (single-threaded, no post-processing) for pictures of at most
    /// `maximumPixels`.
    public init(maximumPixels: Int) throws(VPXError) {
        self.maximumPixels = maximumPixels
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        do {
            try VPXError.check(cshim_vpx_codec_dec_init(context, 0), call: "vpx_codec_dec_init", context: context)
        } catch {
            context.deallocate()
            throw error
        }
    }

    deinit {
        _ = vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Decodes one complete VP8 frame (RFC 6386).
    /// - Returns: the decoded picture, or nil if libvpx produced none (e.g. a non-shown frame).
    /// - Throws: `VPXError` for empty, corrupt or undecodable data, and `.unsupportedBitstream`
    ///   for a key frame larger than `maximumPixels`.
    public func decode(_ data: [UInt8]) throws(VPXError) -> VideoFrame? {
        guard !data.isEmpty, data.count <= Int(UInt32.max) else {
            throw VPXError(rawValue: VPXError.invalidParameter.rawValue, call: "vpx_codec_decode",
                           detail: "empty frame")
        }
        if let (width, height) = Self.keyFrameSize(data), width * height > maximumPixels {
            throw VPXError(rawValue: VPXError.unsupportedBitstream.rawValue, call: "vpx_codec_decode",
                           detail: "key frame of \(width)x\(height) exceeds \(maximumPixels) pixels")
        }
        try data.withUnsafeBufferPointer { (bytes) throws(VPXError) in
            try VPXError.check(vpx_codec_decode(context, bytes.baseAddress, UInt32(bytes.count), nil, 0),
                               call: "vpx_codec_decode", context: context)
        }
        var iterator: vpx_codec_iter_t? = nil
        var result: VideoFrame? = nil
        while let image = vpx_codec_get_frame(context, &iterator) {
            result = try Self.copy(image)
        }
        return result
    }

    /// `VP8D_GET_FRAME_CORRUPTED`: whether libvpx flagged the last decoded frame as corrupt
    /// (e.g. it referenced a buffer that was damaged).
    public func lastFrameCorrupted() throws(VPXError) -> Bool {
        var corrupted: Int32 = 0
        try VPXError.check(cshim_vpx_codec_control_ptr(context, Int32(VP8D_GET_FRAME_CORRUPTED.rawValue), &corrupted),
                           call: "vpx_codec_control_(VP8D_GET_FRAME_CORRUPTED)", context: context)
        return corrupted != 0
    }

    /// The picture size a key frame declares (RFC 6386 §9.1: a 3-byte frame tag whose bit 0 is
    /// 0 for a key frame, the start code 9d 01 2a, then 14-bit width and height, little-endian,
    /// each under a 2-bit scale); nil for inter frames and anything shorter.
    static func keyFrameSize(_ data: [UInt8]) -> (width: Int, height: Int)? {
        guard data.count >= 10, data[0] & 1 == 0, data[3] == 0x9D, data[4] == 0x01, data[5] == 0x2A else { return nil }
        return ((Int(data[6]) | Int(data[7]) << 8) & 0x3FFF, (Int(data[8]) | Int(data[9]) << 8) & 0x3FFF)
    }

    private static func copy(_ image: UnsafeMutablePointer<vpx_image_t>) throws(VPXError) -> VideoFrame {
        let img = image.pointee
        let width = Int(img.d_w), height = Int(img.d_h)
        guard img.fmt == VPX_IMG_FMT_I420, width > 0, height > 0, width <= VideoFrame.maximumDimension,
              height <= VideoFrame.maximumDimension,
              let y = img.planes.0, let u = img.planes.1, let v = img.planes.2
        else {
            throw VPXError(rawValue: VPXError.unsupportedFeature.rawValue, call: "vpx_codec_get_frame",
                           detail: "unexpected image format \(img.fmt.rawValue) \(width)x\(height)")
        }
        var frame = VideoFrame(unchecked: width, height: height)
        let (cw, ch) = (frame.chromaWidth, frame.chromaHeight)
        frame.withUnsafeMutablePlanes { dst in
            // libyuv CopyPlane (no return code): sizes and pointers come from libvpx's image.
            VideoFrame.copyPlane(y, Int(img.stride.0), dst.y, dst.strideY, width, height)
            VideoFrame.copyPlane(u, Int(img.stride.1), dst.u, dst.strideU, cw, ch)
            VideoFrame.copyPlane(v, Int(img.stride.2), dst.v, dst.strideV, cw, ch)
        }
        return frame
    }
}
