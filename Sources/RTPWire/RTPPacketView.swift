/// A zero-copy, lazily decoded view of one serialized RTP packet (RFC 3550 §5.1).
///
/// Creating the view checks only what every accessor needs to stay in bounds: the fixed header
/// and version, the CSRC list (§5.1 "CC"), the extension block's profile/length word and body
/// (§5.3.1), and the padding count (§5.1 "P"). Nothing is copied or allocated: fields are read
/// from the caller's bytes when asked for, extension elements (RFC 8285) are found by walking
/// the block on each lookup, and the VP8 payload descriptor (RFC 7741 §4.2) is parsed on demand.
/// `RTPPacket` decodes everything up front; both accept and reject the same packets, except
/// that a malformed extension element surfaces here only from the lookups that walk over it.
///
/// The view holds `bytes`, so while it lives a mutation of the array it came from copies that
/// array: drop the view before rewriting the packet in place.
public struct RTPPacketView: Sendable {
    /// The whole packet; indices are those of the caller's storage.
    public let bytes: ArraySlice<UInt8>
    /// Where the payload starts (after the extension block).
    @usableFromInline let payloadStart: Int
    /// The rest of the layout in one word, counted from `bytes.startIndex`: bits 0-31 the end
    /// of the extension block body (at most 12 + 60 + 4 + 4 * 65535), bits 32-39 its start (at
    /// most 76), bits 40-47 the padding length (at most 255). One word, not three: a view of
    /// six scalars is returned in registers, and the optimizer then drops the retain and
    /// release of the caller's array a view of more would cost (about 8 ns of a 30 ns parse).
    @usableFromInline let packedLayout: UInt64

    /// Where the extension block body starts (its end when the "X" bit is clear).
    @inlinable var extensionStart: Int { bytes.startIndex &+ Int(truncatingIfNeeded: (packedLayout >> 32) & 0xFF) }
    /// Where the extension block body ends.
    @inlinable var extensionEnd: Int { bytes.startIndex &+ Int(truncatingIfNeeded: packedLayout & 0xFFFF_FFFF) }
    /// Where the payload ends (padding excluded).
    @inlinable var payloadEnd: Int { bytes.endIndex &- Int(truncatingIfNeeded: (packedLayout >> 40) & 0xFF) }

    /// Checks the bounds of `bytes` as an RTP packet (RFC 3550 §5.1, §5.3.1) without decoding
    /// fields. Throws `WireError` (the same cases as `RTPPacket(parsing:)`) for fewer than 12
    /// bytes, a version other than 2, a CSRC list or extension block past the end, or a padding
    /// count of 0 or beyond the bytes after the header. Never traps.
    @inlinable @inline(__always)
    public init(_ bytes: ArraySlice<UInt8>) throws(WireError) {
        let start = bytes.startIndex, end = bytes.endIndex
        // The version before the length, in `RTPPacket(parsing:)`'s order.
        guard start < end else { throw .truncated(field: "RTP V/P/X/CC", needed: 1, available: 0) }
        let first = bytes[start]
        guard first >> 6 == RTPHeader.version else {
            throw .invalidValue(field: "RTP version", value: Int(first >> 6))
        }
        guard end &- start >= RTPHeader.fixedLength else {
            throw .truncated(field: "RTP fixed header", needed: RTPHeader.fixedLength, available: end &- start)
        }
        // Every offset below is at most 12 + 60 + 4 + 4 * 65535 past `start`: no overflow.
        var cursor = start &+ RTPHeader.fixedLength &+ 4 &* Int(first & 0x0F)
        guard cursor <= end else {
            throw .truncated(field: "RTP CSRC list", needed: 4 &* Int(first & 0x0F),
                             available: end &- start &- RTPHeader.fixedLength)
        }
        var extensionStart = cursor, extensionEnd = cursor
        if first & 0x10 != 0 {
            guard end &- cursor >= 4 else {
                throw .truncated(field: "RTP extension profile and length", needed: 4, available: end &- cursor)
            }
            let words = Int(bytes[cursor &+ 2]) << 8 | Int(bytes[cursor &+ 3])
            extensionStart = cursor &+ 4
            extensionEnd = extensionStart &+ 4 &* words
            guard extensionEnd <= end else {
                throw .truncated(field: "RTP extension body", needed: 4 &* words, available: end &- extensionStart)
            }
            cursor = extensionEnd
        }
        var payloadEnd = end
        if first & 0x20 != 0 {
            guard cursor < end else { throw .truncated(field: "RTP padding count", needed: 1, available: 0) }
            let count = Int(bytes[end &- 1])
            guard count >= 1, count <= end &- cursor else {
                throw .invalidValue(field: "RTP padding count", value: count)
            }
            payloadEnd = end &- count
        }
        self.bytes = bytes
        self.payloadStart = cursor
        packedLayout = UInt64(truncatingIfNeeded: extensionEnd &- start)
            | UInt64(truncatingIfNeeded: extensionStart &- start) << 32
            | UInt64(truncatingIfNeeded: end &- payloadEnd) << 40
    }

    /// A view of a whole array (see `init(_:)`).
    @inlinable
    public init(_ bytes: [UInt8]) throws(WireError) { try self.init(bytes[...]) }

    // MARK: Fixed header (RFC 3550 §5.1)

    /// Marker bit "M".
    @inlinable public var marker: Bool { bytes[bytes.startIndex &+ 1] & 0x80 != 0 }
    /// Payload type "PT", 0...127.
    @inlinable public var payloadType: UInt8 { bytes[bytes.startIndex &+ 1] & 0x7F }
    /// Sequence number.
    @inlinable
    public var sequenceNumber: UInt16 {
        UInt16(bytes[bytes.startIndex &+ 2]) << 8 | UInt16(bytes[bytes.startIndex &+ 3])
    }
    /// Media timestamp.
    @inlinable public var timestamp: UInt32 { readUInt32(at: bytes.startIndex &+ 4) }
    /// Synchronization source.
    @inlinable public var ssrc: UInt32 { readUInt32(at: bytes.startIndex &+ 8) }
    /// "CC": how many contributing sources follow the fixed header, 0...15.
    @inlinable public var csrcCount: Int { Int(bytes[bytes.startIndex] & 0x0F) }
    /// Contributing source `index` (0..<`csrcCount`), or nil outside that range.
    @inlinable
    public func csrc(_ index: Int) -> UInt32? {
        guard index >= 0, index < csrcCount else { return nil }
        return readUInt32(at: bytes.startIndex &+ RTPHeader.fixedLength &+ 4 &* index)
    }
    /// The fields a forwarder routes by, as `RTPFixedFields`.
    @inlinable
    public var fixedFields: RTPFixedFields {
        RTPFixedFields(payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc)
    }

    // MARK: Payload and padding (RFC 3550 §5.1)

    /// Where the payload sits in the caller's storage (padding excluded).
    @inlinable public var payloadRange: Range<Int> { payloadStart..<payloadEnd }
    /// The payload bytes, excluding padding.
    @inlinable public var payload: ArraySlice<UInt8> { bytes[payloadStart..<payloadEnd] }
    /// Where the payload starts, counted from the packet's first byte.
    @inlinable public var payloadOffset: Int { payloadStart &- bytes.startIndex }
    /// Padding bytes including the count byte; 0 when the "P" bit is clear.
    @inlinable public var paddingLength: UInt8 { UInt8(truncatingIfNeeded: bytes.endIndex &- payloadEnd) }

    // MARK: Header extensions (RFC 3550 §5.3.1, RFC 8285)

    /// Whether the "X" bit is set.
    @inlinable public var hasExtension: Bool { bytes[bytes.startIndex] & 0x10 != 0 }
    /// The extension block's "defined by profile" value, or nil without one.
    @inlinable
    public var extensionProfile: UInt16? {
        guard hasExtension else { return nil }
        return UInt16(bytes[extensionStart &- 4]) << 8 | UInt16(bytes[extensionStart &- 3])
    }
    /// The extension block's body (after the profile/length word), empty without one.
    @inlinable public var extensionBody: ArraySlice<UInt8> { bytes[extensionStart..<extensionEnd] }

    /// The data of the first element with local id `id` (RFC 8285 §4.2 one-byte or §4.3
    /// two-byte form), as a view of the packet; nil when the packet has no such element, no
    /// block, or a block of another profile. Walks the block up to the element. Throws
    /// `WireError` for an element on the way that runs past the block (or a one-byte id 0 with
    /// a nonzero length), as `RTPHeaderExtensions(profile:body:)` would.
    @inlinable @inline(__always)
    public func extensionData(id: UInt8) throws(WireError) -> ArraySlice<UInt8>? {
        guard let range = try extensionRange(id: id) else { return nil }
        return bytes[range]
    }

    /// Like `extensionData(id:)`, the element's data range in the caller's storage.
    @inlinable @inline(__always)
    public func extensionRange(id: UInt8) throws(WireError) -> Range<Int>? {
        guard hasExtension else { return nil }
        let profile = UInt16(bytes[extensionStart &- 4]) << 8 | UInt16(bytes[extensionStart &- 3])
        let base = bytes.startIndex
        let lower = extensionStart &- base, upper = extensionEnd &- base
        var found = 0..<0
        let status = bytes.withUnsafeBytes {
            RTPHeaderExtensionWalk.find(id: id, profile: profile, in: $0, from: lower, to: upper, found: &found)
        }
        switch status {
        case .found: return (base &+ found.lowerBound)..<(base &+ found.upperBound)
        case .absent: return nil
        case .malformed: throw RTPHeaderExtensionWalk.error(profile: profile, in: bytes[extensionStart..<extensionEnd])
        }
    }

    /// The typed value of the element with local id `id` (RFC 8285 §4), or nil when absent.
    /// Throws `WireError` when it (or an element before it) is malformed.
    @inlinable @inline(__always)
    public func extensionValue<Value: RTPHeaderExtensionValue>(_ type: Value.Type, id: UInt8) throws(WireError) -> Value? {
        guard hasExtension else { return nil }
        let profile = UInt16(bytes[extensionStart &- 4]) << 8 | UInt16(bytes[extensionStart &- 3])
        let base = bytes.startIndex
        let lower = extensionStart &- base, upper = extensionEnd &- base
        var found = 0..<0
        var value: Value?
        // Found and decoded in one pass over the raw bytes: no slice, no second bounds check.
        let status = bytes.withUnsafeBytes { raw in
            let status = RTPHeaderExtensionWalk.find(id: id, profile: profile, in: raw, from: lower, to: upper, found: &found)
            if status == .found { value = Value.decode(rawExtensionData: UnsafeRawBufferPointer(rebasing: raw[found])) }
            return status
        }
        switch status {
        case .found:
            if let value { return value }
            // Invalid data: the throwing decoder names the problem.
            return try Value(extensionData: bytes[(base &+ found.lowerBound)..<(base &+ found.upperBound)])
        case .absent: return nil
        case .malformed: throw RTPHeaderExtensionWalk.error(profile: profile, in: bytes[extensionStart..<extensionEnd])
        }
    }

    /// The typed value of `type`'s kind, its id looked up in `map` (RFC 8285 §5); nil when the
    /// kind is not negotiated or not present. Throws `WireError` when present but malformed.
    @inlinable
    public func extensionValue<Value: RTPHeaderExtensionValue>(_ type: Value.Type, map: RTPHeaderExtensionMap) throws(WireError) -> Value? {
        guard let id = map.id(for: Value.kind) else { return nil }
        return try extensionValue(type, id: id)
    }

    /// Checks every element of the extension block (RFC 8285 §4.2–4.3), as `RTPPacket(parsing:)`
    /// does; after it succeeds, no extension lookup on this view throws. Walks the block in
    /// place (nothing allocated unless it is malformed). Throws `WireError`, the error
    /// `RTPPacket(parsing:)` throws for the same block.
    @inlinable
    public func validateExtensions() throws(WireError) {
        // Id 0 never names an element (padding in both forms, malformed with a length in the
        // one-byte form), so the search walks the whole block.
        _ = try extensionRange(id: 0)
    }

    // MARK: VP8 payload (RFC 7741 §4.2)

    /// The VP8 payload descriptor at the start of the payload (RFC 7741 §4.2), parsed now, and
    /// where the VP8 data after it sits in the caller's storage (`bytes[vp8DataRange]`).
    /// Throws `WireError.truncated` when a signalled field is missing.
    @inlinable @inline(__always)
    public func vp8Descriptor() throws(WireError) -> (descriptor: VP8PayloadDescriptor, vp8DataRange: Range<Int>) {
        let base = bytes.startIndex
        let lower = payloadStart &- base, upper = payloadEnd &- base
        var descriptor = VP8PayloadDescriptor(startOfPartition: false)
        let length = bytes.withUnsafeBytes { raw in
            VP8PayloadDescriptor.parse(raw: UnsafeRawBufferPointer(rebasing: raw[lower..<upper]), into: &descriptor)
        }
        guard length > 0 else { throw VP8PayloadDescriptor.truncation(length) }
        return (descriptor, (payloadStart &+ length)..<payloadEnd)  // length <= payload count
    }

    // MARK: Whole packet

    /// The fully decoded packet (allocates for CSRCs; validates the extension block).
    public func decoded() throws(WireError) -> RTPPacket { try RTPPacket(parsing: bytes) }

    /// A big-endian 32-bit word at `index`; the caller has checked the bounds at init.
    @inlinable
    func readUInt32(at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index &+ 1]) << 16 | UInt32(bytes[index &+ 2]) << 8
            | UInt32(bytes[index &+ 3])
    }
}
