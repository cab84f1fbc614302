/// The start of the VP8 bitstream in the first packet of a frame (RFC 7741 §4.3; RFC 6386 §9.1):
/// the 3-byte frame tag and, for key frames, the start code and dimensions.
///
/// ```
/// frame tag: size0(3) H(1) VER(3) P(1) | size1 | size2
/// key frames add: 9d 01 2a | width(14) hscale(2) LE | height(14) vscale(2) LE
/// ```
public struct VP8PayloadHeader: Sendable, Equatable {
    /// Dimensions carried by a key frame header (RFC 6386 §9.1).
    public struct KeyFrameInfo: Sendable, Equatable {
        /// Frame width in pixels, 14 bits.
        public var width: UInt16
        /// Horizontal upscaling code, 2 bits.
        public var horizontalScale: UInt8
        /// Frame height in pixels, 14 bits.
        public var height: UInt16
        /// Vertical upscaling code, 2 bits.
        public var verticalScale: UInt8

        /// Key frame dimensions.
        public init(width: UInt16, horizontalScale: UInt8 = 0, height: UInt16, verticalScale: UInt8 = 0) {
            self.width = width
            self.horizontalScale = horizontalScale
            self.height = height
            self.verticalScale = verticalScale
        }
    }

    /// The key frame start code (RFC 6386 §9.1).
    public static let startCode: [UInt8] = [0x9D, 0x01, 0x2A]

    /// "VER": version / profile, 0...7 (RFC 6386 §9.1).
    public var version: UInt8
    /// "H" show_frame (RFC 6386 §9.1).
    public var showFrame: Bool
    /// first_part_size: size of the first partition, 19 bits (RFC 6386 §9.1).
    public var firstPartitionSize: UInt32
    /// Present exactly when the frame is a key frame ("P" bit 0).
    public var keyFrameInfo: KeyFrameInfo?

    /// A payload header with the given fields.
    public init(version: UInt8 = 0, showFrame: Bool = true, firstPartitionSize: UInt32,
                keyFrameInfo: KeyFrameInfo? = nil) {
        self.version = version
        self.showFrame = showFrame
        self.firstPartitionSize = firstPartitionSize
        self.keyFrameInfo = keyFrameInfo
    }

    /// True for key frames (inverse of the "P" bit, RFC 7741 §4.3).
    public var isKeyFrame: Bool { keyFrameInfo != nil }

    /// Key-frame-ness from just the first VP8 payload byte's "P" bit (RFC 7741 §4.3),
    /// nil when `data` is empty.
    public static func isKeyFrame(_ data: ArraySlice<UInt8>) -> Bool? {
        // Indexing, not `data.first`: unspecialized in debug builds, `first` allocates per call.
        guard !data.isEmpty else { return nil }
        return data[data.startIndex] & 0x01 == 0
    }

    /// Bytes this header occupies: 10 for key frames, 3 otherwise.
    public var encodedLength: Int { isKeyFrame ? 10 : 3 }

    /// Reads the header (RFC 6386 §9.1) from the start of the VP8 payload. Throws `WireError`
    /// when truncated or when a key frame lacks the start code.
    public init(parsing reader: inout ByteReader) throws(WireError) {
        let tag = try reader.readUInt24("VP8 frame tag")
        let byte0 = UInt8(truncatingIfNeeded: tag >> 16)
        let byte1 = UInt32(UInt8(truncatingIfNeeded: tag >> 8))
        let byte2 = UInt32(UInt8(truncatingIfNeeded: tag))
        version = (byte0 >> 1) & 0x07
        showFrame = byte0 & 0x10 != 0
        firstPartitionSize = UInt32(byte0 >> 5) | byte1 << 3 | byte2 << 11
        guard byte0 & 0x01 == 0 else {
            keyFrameInfo = nil
            return
        }
        let code = try reader.readUInt24("VP8 key frame start code")
        guard code == 0x9D012A else { throw .invalidValue(field: "VP8 start code", value: Int(code)) }
        let widthField = try reader.readUInt16("VP8 key frame width")
        let heightField = try reader.readUInt16("VP8 key frame height")
        // Fields are little-endian on the wire; ByteReader read them big-endian.
        let width = widthField.byteSwapped
        let height = heightField.byteSwapped
        keyFrameInfo = KeyFrameInfo(width: width & 0x3FFF, horizontalScale: UInt8(width >> 14),
                                    height: height & 0x3FFF, verticalScale: UInt8(height >> 14))
    }

    /// Parses the header at the start of `data`. Throws `WireError`.
    public init(parsing data: ArraySlice<UInt8>) throws(WireError) {
        var reader = ByteReader(data)
        try self.init(parsing: &reader)
    }

    /// Appends the header (RFC 6386 §9.1). Throws `WireError.outOfRange` for fields too wide.
    public func serialize(into buffer: inout [UInt8]) throws(WireError) {
        guard version <= 7 else { throw .outOfRange(field: "VP8 version", value: Int(version)) }
        guard firstPartitionSize <= 0x7_FFFF else {
            throw .outOfRange(field: "VP8 first partition size", value: Int(firstPartitionSize))
        }
        if let info = keyFrameInfo {
            guard info.width <= 0x3FFF, info.height <= 0x3FFF else {
                throw .outOfRange(field: "VP8 key frame dimensions", value: Int(max(info.width, info.height)))
            }
            guard info.horizontalScale <= 3, info.verticalScale <= 3 else {
                throw .outOfRange(field: "VP8 scale", value: Int(max(info.horizontalScale, info.verticalScale)))
            }
        }
        var byte0 = UInt8(truncatingIfNeeded: firstPartitionSize & 0x07) << 5 | version << 1
        if showFrame { byte0 |= 0x10 }
        if keyFrameInfo == nil { byte0 |= 0x01 }
        buffer.append(byte0)
        buffer.append(UInt8(truncatingIfNeeded: firstPartitionSize >> 3))
        buffer.append(UInt8(truncatingIfNeeded: firstPartitionSize >> 11))
        if let info = keyFrameInfo {
            buffer.append(contentsOf: VP8PayloadHeader.startCode)
            let width = info.width | UInt16(info.horizontalScale) << 14
            let height = info.height | UInt16(info.verticalScale) << 14
            buffer.appendUInt16(width.byteSwapped)
            buffer.appendUInt16(height.byteSwapped)
        }
    }
}
