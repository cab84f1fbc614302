/// A VP8 PictureID as carried in the payload descriptor (RFC 7741 §4.2 "M" bit): 7 or 15 bits.
public enum VP8PictureID: Sendable, Equatable, Hashable {
    /// M = 0: a 7-bit PictureID (0...0x7F).
    case sevenBit(UInt8)
    /// M = 1: a 15-bit PictureID (0...0x7FFF).
    case fifteenBit(UInt16)

    /// The numeric value.
    public var value: UInt16 {
        switch self {
        case let .sevenBit(value): return UInt16(value)
        case let .fifteenBit(value): return value
        }
    }

    /// 7 or 15.
    public var bitWidth: Int {
        switch self {
        case .sevenBit: return 7
        case .fifteenBit: return 15
        }
    }

    /// Bytes on the wire: 1 or 2.
    var encodedLength: Int {
        switch self {
        case .sevenBit: return 1
        case .fifteenBit: return 2
        }
    }
}

/// The VP8 payload descriptor at the start of every VP8 RTP payload (RFC 7741 §4.2).
///
/// ```
///  X R N S R PID      (required)
///  I L T K RSV        (if X)
///  M PictureID[7|15]  (if I)
///  TL0PICIDX          (if L)
///  TID Y KEYIDX       (if T or K)
/// ```
/// Reserved bits are ignored on parse and written as zero. When neither T nor K is set, TID, Y and
/// KEYIDX are not represented (and compare equal), so parse → serialize → parse is exact.
public struct VP8PayloadDescriptor: Sendable, Equatable {
    /// "N": the frame can be discarded without affecting other frames (RFC 7741 §4.2).
    public var nonReference: Bool
    /// "S": this packet starts a VP8 partition (RFC 7741 §4.2).
    public var startOfPartition: Bool
    /// "PID": partition index, 0...7 (RFC 7741 §4.2).
    public var partitionIndex: UInt8
    /// "I"/"M"/PictureID (RFC 7741 §4.2), nil when absent.
    public var pictureID: VP8PictureID?
    /// "L"/TL0PICIDX (RFC 7741 §4.2), nil when absent.
    public var tl0PicIdx: UInt8?
    /// "T"/TID, 0...3 (RFC 7741 §4.2), nil when absent.
    public var temporalID: UInt8?
    /// "Y" layer sync (RFC 7741 §4.2); meaningful only with a TID, false otherwise.
    public var layerSync: Bool
    /// "K"/KEYIDX, 0...31 (RFC 7741 §4.2), nil when absent.
    public var keyIndex: UInt8?

    /// A descriptor with the given fields.
    public init(nonReference: Bool = false, startOfPartition: Bool, partitionIndex: UInt8 = 0,
                pictureID: VP8PictureID? = nil, tl0PicIdx: UInt8? = nil, temporalID: UInt8? = nil,
                layerSync: Bool = false, keyIndex: UInt8? = nil) {
        self.nonReference = nonReference
        self.startOfPartition = startOfPartition
        self.partitionIndex = partitionIndex
        self.pictureID = pictureID
        self.tl0PicIdx = tl0PicIdx
        self.temporalID = temporalID
        self.layerSync = layerSync
        self.keyIndex = keyIndex
    }

    /// True when this packet carries the first byte of a frame: S = 1 and PID = 0 (RFC 7741 §4.4).
    public var isStartOfFrame: Bool { startOfPartition && partitionIndex == 0 }

    /// Reads a descriptor (RFC 7741 §4.2), leaving `reader` at the first VP8 payload byte.
    /// Throws `WireError.truncated` when a signalled field is missing.
    public init(parsing reader: inout ByteReader) throws(WireError) {
        var descriptor = VP8PayloadDescriptor(startOfPartition: false)
        let length = reader.bytes[reader.index...].withUnsafeBytes { Self.parse(raw: $0, into: &descriptor) }
        guard length > 0 else { throw Self.truncation(length) }
        self = descriptor
        try reader.skip(length, "VP8 descriptor")  // length <= the bytes just read: cannot throw
    }

    /// Reads the descriptor at the start of `raw` into `descriptor` (RFC 7741 §4.2) and returns
    /// its length in bytes, or, when a signalled field is missing, minus the number of that field
    /// for `truncation(_:)`. Reads only inside `raw`; the one implementation behind every
    /// descriptor parse. Plain integers out, so the packet path handles no error value.
    @inlinable @inline(__always)
    static func parse(raw: UnsafeRawBufferPointer, into descriptor: inout VP8PayloadDescriptor) -> Int {
        let count = raw.count
        guard count >= 1 else { return -1 }
        let first = raw[0]
        descriptor = VP8PayloadDescriptor(nonReference: first & 0x20 != 0, startOfPartition: first & 0x10 != 0,
                                          partitionIndex: first & 0x07)
        guard first & 0x80 != 0 else { return 1 }
        guard count >= 2 else { return -2 }
        let flags = raw[1]
        var index = 2
        if flags & 0x80 != 0 {
            guard index < count else { return -3 }
            let high = raw[index]
            index &+= 1
            if high & 0x80 != 0 {
                guard index < count else { return -4 }
                descriptor.pictureID = .fifteenBit(UInt16(high & 0x7F) << 8 | UInt16(raw[index]))
                index &+= 1
            } else {
                descriptor.pictureID = .sevenBit(high)
            }
        }
        if flags & 0x40 != 0 {
            guard index < count else { return -5 }
            descriptor.tl0PicIdx = raw[index]
            index &+= 1
        }
        let hasTID = flags & 0x20 != 0
        let hasKeyIndex = flags & 0x10 != 0
        if hasTID || hasKeyIndex {
            guard index < count else { return -6 }
            let byte = raw[index]
            index &+= 1
            if hasTID {
                descriptor.temporalID = byte >> 6
                descriptor.layerSync = byte & 0x20 != 0
            }
            if hasKeyIndex { descriptor.keyIndex = byte & 0x1F }
        }
        return index
    }

    /// The error for a negative result of `parse(raw:into:)`: the missing field, 1 byte needed.
    @usableFromInline
    static func truncation(_ code: Int) -> WireError {
        let fields = ["VP8 descriptor X/N/S/PID", "VP8 descriptor I/L/T/K", "VP8 PictureID", "VP8 PictureID (15-bit)",
                      "VP8 TL0PICIDX", "VP8 TID/Y/KEYIDX"]
        return .truncated(field: fields.indices.contains(-code - 1) ? fields[-code - 1] : "VP8 descriptor", needed: 1, available: 0)
    }

    /// Parses the descriptor at the start of `payload` (RFC 7741 §4.2) and returns it with a view
    /// of the VP8 payload that follows. Throws `WireError`.
    @inlinable
    public static func parse(_ payload: ArraySlice<UInt8>) throws(WireError) -> (descriptor: VP8PayloadDescriptor, vp8Data: ArraySlice<UInt8>) {
        var descriptor = VP8PayloadDescriptor(startOfPartition: false)
        let length = payload.withUnsafeBytes { parse(raw: $0, into: &descriptor) }
        guard length > 0 else { throw truncation(length) }
        return (descriptor, payload[(payload.startIndex &+ length)...])  // length <= payload.count
    }

    private var hasExtension: Bool {
        pictureID != nil || tl0PicIdx != nil || temporalID != nil || keyIndex != nil
    }

    /// Bytes this descriptor occupies on the wire.
    public var encodedLength: Int {
        guard hasExtension else { return 1 }
        var length = 2 + (pictureID?.encodedLength ?? 0)
        if tl0PicIdx != nil { length += 1 }
        if temporalID != nil || keyIndex != nil { length += 1 }
        return length
    }

    /// Checks every field fits its width (RFC 7741 §4.2). Throws `WireError.outOfRange`.
    public func validate() throws(WireError) {
        guard partitionIndex <= 7 else { throw .outOfRange(field: "VP8 PID", value: Int(partitionIndex)) }
        switch pictureID {
        case let .sevenBit(value)? where value > 0x7F:
            throw .outOfRange(field: "VP8 PictureID (7-bit)", value: Int(value))
        case let .fifteenBit(value)? where value > 0x7FFF:
            throw .outOfRange(field: "VP8 PictureID (15-bit)", value: Int(value))
        default: break
        }
        if let temporalID, temporalID > 3 { throw .outOfRange(field: "VP8 TID", value: Int(temporalID)) }
        if let keyIndex, keyIndex > 0x1F { throw .outOfRange(field: "VP8 KEYIDX", value: Int(keyIndex)) }
    }

    /// Appends the descriptor (RFC 7741 §4.2). Validates first, so nothing is appended on error.
    public func serialize(into buffer: inout [UInt8]) throws(WireError) {
        try validate()
        var first = partitionIndex & 0x07
        if nonReference { first |= 0x20 }
        if startOfPartition { first |= 0x10 }
        guard hasExtension else {
            buffer.append(first)
            return
        }
        buffer.append(first | 0x80)
        var flags: UInt8 = 0
        if pictureID != nil { flags |= 0x80 }
        if tl0PicIdx != nil { flags |= 0x40 }
        if temporalID != nil { flags |= 0x20 }
        if keyIndex != nil { flags |= 0x10 }
        buffer.append(flags)
        switch pictureID {
        case let .sevenBit(value)?: buffer.append(value & 0x7F)
        case let .fifteenBit(value)?: buffer.appendUInt16(0x8000 | (value & 0x7FFF))
        case nil: break
        }
        if let tl0PicIdx { buffer.append(tl0PicIdx) }
        if temporalID != nil || keyIndex != nil {
            var byte: UInt8 = 0
            if let temporalID {
                byte |= (temporalID & 0x03) << 6
                if layerSync { byte |= 0x20 }
            }
            if let keyIndex { byte |= keyIndex & 0x1F }
            buffer.append(byte)
        }
    }
}
