internal import CYUV

/// One picture in planar I420 (4:2:0): a full-size Y plane and U, V planes of
/// `chromaWidth` x `chromaHeight` (half size, rounded up), each with its own row stride.
///
/// The pixels live in one owned, copy-on-write buffer (Y rows, then U rows, then V rows), so a
/// frame is a value: `Sendable`, cheap to pass, and mutated in place when uniquely referenced
/// (which is how `Scaler.scale(_:into:)` and `FramePool` avoid per-frame allocation).
/// Frames from NV12 or BGRA bytes are converted on creation with libyuv (`NV12ToI420`,
/// `ARGBToI420`); every caller buffer is validated first (`VideoFrameError`).
public struct VideoFrame: Sendable, Equatable {
    /// The largest edge accepted, which keeps every size computation far from overflow.
    public static let maximumDimension = 16384

    /// Picture width in pixels (the Y plane's width).
    public let width: Int
    /// Picture height in pixels (the Y plane's height).
    public let height: Int
    /// Bytes between the starts of two Y rows (≥ `width`).
    public let strideY: Int
    /// Bytes between the starts of two U rows, and of two V rows (≥ `chromaWidth`).
    public let strideUV: Int
    /// Y plane, then U plane, then V plane.
    public internal(set) var storage: [UInt8]
    /// On a frame a remote track decoded: the RTP timestamp (90 kHz) it was sent with; nil on
    /// frames made here. (libwebrtc's `VideoFrame::rtp_timestamp`.)
    public var rtpTimestamp: UInt32?
    /// On a frame a remote track decoded: its presentation time on the sender's wallclock, µs
    /// since the NTP epoch (1900), from the stream's last RTCP sender report (RFC 3550 §6.4.1);
    /// nil before the first report and on frames made here. The same clock as
    /// `ReceivedAudioFrame.senderTimeMicroseconds` of the same sender, so audio and video line
    /// up by it and a late frame can be dropped.
    public var senderTimeMicroseconds: Int64?

    /// Width of the U and V planes: `(width + 1) / 2`.
    public var chromaWidth: Int { (width + 1) / 2 }
    /// Height of the U and V planes: `(height + 1) / 2`.
    public var chromaHeight: Int { (height + 1) / 2 }
    var uOffset: Int { strideY * height }
    var vOffset: Int { uOffset + strideUV * chromaHeight }

    /// The Y plane (`strideY * height` bytes).
    public var yPlane: ArraySlice<UInt8> { storage[0..<uOffset] }
    /// The U (Cb) plane (`strideUV * chromaHeight` bytes).
    public var uPlane: ArraySlice<UInt8> { storage[uOffset..<vOffset] }
    /// The V (Cr) plane (`strideUV * chromaHeight` bytes).
    public var vPlane: ArraySlice<UInt8> { storage[vOffset..<storage.count] }

    /// A black frame (Y 16, U and V 128, video range) of the given size with tight strides.
    public init(width: Int, height: Int) throws(VideoFrameError) {
        try Self.validateDimensions(width: width, height: height)
        self.init(unchecked: width, height: height)
    }

    /// A black frame without validation; callers guarantee 1...maximumDimension.
    init(unchecked width: Int, height: Int) {
        self.width = width
        self.height = height
        strideY = width
        strideUV = (width + 1) / 2
        let ySize = width * height, cSize = strideUV * ((height + 1) / 2)
        // libyuv SetPlane (C, no return code) fills fast even in debug builds.
        storage = [UInt8](unsafeUninitializedCapacity: ySize + 2 * cSize) { buffer, initialised in
            let base = buffer.baseAddress!
            SetPlane(base, Int32(width), Int32(width), Int32(height), 16)
            SetPlane(base + ySize, Int32(cSize), Int32(cSize), 2, 128)
            initialised = ySize + 2 * cSize
        }
    }

    /// Copies caller I420 planes (each with its own stride) into a new frame.
    /// - Throws: `VideoFrameError` if a size is not positive, a stride is shorter than its
    ///   row, or a plane holds fewer than `stride * (rows - 1) + rowBytes` bytes.
    public init(i420Y y: [UInt8], strideY: Int, u: [UInt8], strideU: Int, v: [UInt8], strideV: Int,
                width: Int, height: Int) throws(VideoFrameError) {
        try Self.validateDimensions(width: width, height: height)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        try Self.validatePlane("Y", bytes: y.count, stride: strideY, rowBytes: width, rows: height)
        try Self.validatePlane("U", bytes: u.count, stride: strideU, rowBytes: cw, rows: ch)
        try Self.validatePlane("V", bytes: v.count, stride: strideV, rowBytes: cw, rows: ch)
        self.init(unchecked: width, height: height)
        let (dstStrideY, dstStrideUV, uOff, vOff) = (self.strideY, self.strideUV, uOffset, vOffset)
        storage.withUnsafeMutableBufferPointer { dst in
            let base = dst.baseAddress!
            y.withUnsafeBufferPointer { s in
                Self.copyPlane(s.baseAddress!, strideY, base, dstStrideY, width, height)
            }
            u.withUnsafeBufferPointer { s in
                Self.copyPlane(s.baseAddress!, strideU, base + uOff, dstStrideUV, cw, ch)
            }
            v.withUnsafeBufferPointer { s in
                Self.copyPlane(s.baseAddress!, strideV, base + vOff, dstStrideUV, cw, ch)
            }
        }
    }

    /// Copies a tightly packed I420 buffer (Y, then U, then V, no row padding), e.g. a Y4M
    /// frame, into a new frame.
    public init(packedI420 bytes: [UInt8], width: Int, height: Int) throws(VideoFrameError) {
        try Self.validateDimensions(width: width, height: height)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let required = width * height + 2 * cw * ch
        guard bytes.count >= required else {
            throw .planeTooSmall(plane: "I420", bytes: bytes.count, required: required)
        }
        self.init(unchecked: width, height: height)
        // Tight strides: the layout is identical, so one copy suffices.
        storage.withUnsafeMutableBufferPointer { dst in
            bytes.withUnsafeBufferPointer { src in
                dst.baseAddress!.update(from: src.baseAddress!, count: required)
            }
        }
    }

    /// Converts caller NV12 (Y plane + interleaved UV plane) into a new I420 frame with
    /// libyuv `NV12ToI420`.
    public init(nv12Y y: [UInt8], strideY: Int, uv: [UInt8], strideUV: Int,
                width: Int, height: Int) throws {
        try Self.validateDimensions(width: width, height: height)
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        try Self.validatePlane("Y", bytes: y.count, stride: strideY, rowBytes: width, rows: height)
        try Self.validatePlane("UV", bytes: uv.count, stride: strideUV, rowBytes: 2 * cw, rows: ch)
        self.init(unchecked: width, height: height)
        try y.withUnsafeBufferPointer { ys in
            try uv.withUnsafeBufferPointer { uvs in
                let source = SourcePixels.nv12(y: ys.baseAddress!, strideY: strideY,
                                               uv: uvs.baseAddress!, strideUV: strideUV)
                try withUnsafeMutablePlanes { dst in
                    try source.convertToI420(cropX: 0, cropY: 0, into: dst)
                }
            }
        }
    }

    /// Converts caller BGRA bytes (B,G,R,A in memory; libyuv "ARGB") into a new I420 frame
    /// with libyuv `ARGBToI420` (BT.601 video range).
    public init(bgra: [UInt8], stride: Int, width: Int, height: Int) throws {
        try Self.validateDimensions(width: width, height: height)
        try Self.validatePlane("BGRA", bytes: bgra.count, stride: stride, rowBytes: 4 * width, rows: height)
        self.init(unchecked: width, height: height)
        try bgra.withUnsafeBufferPointer { src in
            let source = SourcePixels.bgra(src.baseAddress!, stride: stride)
            try withUnsafeMutablePlanes { dst in
                try source.convertToI420(cropX: 0, cropY: 0, into: dst)
            }
        }
    }

    // MARK: - Validation

    static func validateDimensions(width: Int, height: Int) throws(VideoFrameError) {
        guard width > 0, height > 0, width <= maximumDimension, height <= maximumDimension else {
            throw .invalidDimensions(width: width, height: height)
        }
    }

    /// A plane of `rows` rows needs `stride >= rowBytes` and `stride * (rows - 1) + rowBytes`
    /// bytes (the last row need not be padded).
    static func validatePlane(_ name: String, bytes: Int, stride: Int, rowBytes: Int,
                              rows: Int) throws(VideoFrameError) {
        guard stride >= rowBytes else {
            throw .strideTooSmall(plane: name, stride: stride, minimum: rowBytes)
        }
        // Overflow-checked: a huge stride must be an error, not a trap.
        let (span, spanOverflow) = stride.multipliedReportingOverflow(by: rows - 1)
        let (required, sumOverflow) = span.addingReportingOverflow(rowBytes)
        guard !spanOverflow, !sumOverflow else { throw .planeTooSmall(plane: name, bytes: bytes, required: .max) }
        guard bytes >= required else { throw .planeTooSmall(plane: name, bytes: bytes, required: required) }
    }

    static func copyPlane(_ src: UnsafePointer<UInt8>, _ srcStride: Int,
                          _ dst: UnsafeMutablePointer<UInt8>, _ dstStride: Int, _ width: Int, _ height: Int) {
        CopyPlane(src, Int32(srcStride), dst, Int32(dstStride), Int32(width), Int32(height))
    }

    // MARK: - Raw access for libyuv / libvpx

    /// Calls `body` with read-only pointers to the three planes.
    func withUnsafePlanes<R, E: Error>(_ body: (ConstPlanes) throws(E) -> R) throws(E) -> R {
        let (w, h, sy, suv, uOff, vOff) = (width, height, strideY, strideUV, uOffset, vOffset)
        return try storage.withUnsafeBufferPointer { (buffer) throws(E) -> R in
            let base = buffer.baseAddress!
            return try body(ConstPlanes(y: base, strideY: sy, u: base + uOff, strideU: suv,
                                        v: base + vOff, strideV: suv, width: w, height: h))
        }
    }

    /// Calls `body` with writable pointers to the three planes (in place when unique).
    mutating func withUnsafeMutablePlanes<R, E: Error>(_ body: (MutablePlanes) throws(E) -> R) throws(E) -> R {
        let (w, h, sy, suv, uOff, vOff) = (width, height, strideY, strideUV, uOffset, vOffset)
        return try storage.withUnsafeMutableBufferPointer { (buffer) throws(E) -> R in
            let base = buffer.baseAddress!
            return try body(MutablePlanes(y: base, strideY: sy, u: base + uOff, strideU: suv,
                                          v: base + vOff, strideV: suv, width: w, height: h))
        }
    }

    /// The address of the pixel storage, for tests that check buffer reuse.
    var storageIdentity: UnsafeRawPointer? {
        storage.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
}
