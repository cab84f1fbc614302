/// In-place field rewriting for forwarders (docs/receiving.md layer switching): a selective forwarding unit
/// rewrites sequence numbers, timestamps, SSRC, PictureID and TL0PICIDX of packets it relays
/// without re-serializing them, so the forward path does not allocate.
extension RTPHeader {
    /// Overwrites fields of the serialized RTP packet starting at `offset` in `packet`
    /// (RFC 3550 §5.1); nil leaves a field alone. Throws `WireError` (and changes nothing) when
    /// fewer than 12 bytes follow `offset` or the version is not 2.
    public static func rewrite(in packet: inout [UInt8], at offset: Int = 0, marker: Bool? = nil,
                               payloadType: UInt8? = nil, sequenceNumber: UInt16? = nil,
                               timestamp: UInt32? = nil, ssrc: UInt32? = nil) throws(WireError) {
        guard offset >= 0, offset <= packet.count, packet.count - offset >= fixedLength else {
            throw .truncated(field: "RTP fixed header", needed: fixedLength,
                             available: max(0, packet.count - max(offset, 0)))
        }
        guard packet[offset] >> 6 == version else {
            throw .invalidValue(field: "RTP version", value: Int(packet[offset] >> 6))
        }
        if let payloadType {
            guard payloadType <= 0x7F else { throw .outOfRange(field: "RTP payload type", value: Int(payloadType)) }
            packet[offset + 1] = packet[offset + 1] & 0x80 | payloadType
        }
        if let marker {
            packet[offset + 1] = packet[offset + 1] & 0x7F | (marker ? 0x80 : 0)
        }
        if let sequenceNumber { write(sequenceNumber, into: &packet, at: offset + 2) }
        if let timestamp { write(timestamp, into: &packet, at: offset + 4) }
        if let ssrc { write(ssrc, into: &packet, at: offset + 8) }
    }

    /// Writes a big-endian integer at `offset`; the caller has checked the bounds.
    static func write<Value: FixedWidthInteger>(_ value: Value, into bytes: inout [UInt8], at offset: Int) {
        let count = Value.bitWidth / 8
        for index in 0..<count {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> ((count - 1 - index) * 8))
        }
    }
}

extension VP8PayloadDescriptor {
    /// Overwrites PictureID and/or TL0PICIDX of the descriptor starting at `offset` in `packet`
    /// (RFC 7741 §4.2), keeping its layout: a 7-bit PictureID field receives the value mod 2^7, a
    /// 15-bit one mod 2^15. Throws `WireError` (and changes nothing) when the descriptor is
    /// malformed or lacks a field being rewritten.
    public static func rewrite(in packet: inout [UInt8], at offset: Int, pictureID: UInt16? = nil,
                               tl0PicIdx: UInt8? = nil) throws(WireError) {
        guard offset >= 0, offset <= packet.count else {
            throw .truncated(field: "VP8 descriptor", needed: 1, available: 0)
        }
        let descriptor = try parsedDescriptor(in: packet, at: offset)
        // Field positions: byte 0, extension byte 1, PictureID from byte 2, then TL0PICIDX.
        let pictureIDOffset = offset + 2
        let tl0Offset = pictureIDOffset + (descriptor.pictureID?.encodedLength ?? 0)
        if pictureID != nil && descriptor.pictureID == nil {
            throw .unsupported("rewriting a PictureID into a descriptor without one")
        }
        if tl0PicIdx != nil && descriptor.tl0PicIdx == nil {
            throw .unsupported("rewriting TL0PICIDX into a descriptor without one")
        }
        if let pictureID, let existing = descriptor.pictureID {
            switch existing {
            case .sevenBit:
                packet[pictureIDOffset] = UInt8(truncatingIfNeeded: pictureID) & 0x7F
            case .fifteenBit:
                RTPHeader.write(0x8000 | (pictureID & 0x7FFF), into: &packet, at: pictureIDOffset)
            }
        }
        if let tl0PicIdx { packet[tl0Offset] = tl0PicIdx }
    }

    /// The descriptor at `offset`, read through a slice that is gone when this returns: a slice
    /// of `packet` still alive while `rewrite` writes into it would make that write copy the
    /// whole array (copy-on-write), once per forwarded packet.
    private static func parsedDescriptor(in packet: [UInt8], at offset: Int) throws(WireError) -> VP8PayloadDescriptor {
        var reader = ByteReader(packet[offset...])
        return try VP8PayloadDescriptor(parsing: &reader)
    }
}

extension TransportSequenceNumber {
    /// Where the two value bytes of the transport-wide sequence number sit in `packet`
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2), counted from the packet's first
    /// byte; nil when `map` has no id for it, the packet carries none, or it does not parse. A
    /// sender renumbering what it relays finds this once per packet and writes each copy with
    /// `rewrite(_:in:at:)`.
    public static func valueOffset(in packet: ArraySlice<UInt8>, map: RTPHeaderExtensionMap) -> Int? {
        guard let view = try? RTPPacketView(packet) else { return nil }
        return valueOffset(in: view, map: map)
    }

    /// `valueOffset(in:map:)` for a packet already viewed: walks its extension block only.
    public static func valueOffset(in view: RTPPacketView, map: RTPHeaderExtensionMap) -> Int? {
        guard let id = map.id(for: kind), let range = try? view.extensionRange(id: id), range.count == 2 else {
            return nil
        }
        return range.lowerBound - view.bytes.startIndex
    }

    /// Overwrites the value found at `offset` by `valueOffset(in:map:)` in `packet` with `value`.
    /// Throws `WireError.truncated` (and changes nothing) when two bytes do not fit there.
    public static func rewrite(_ value: UInt16, in packet: inout [UInt8], at offset: Int) throws(WireError) {
        guard offset >= RTPHeader.fixedLength, offset <= packet.count - 2 else {
            throw .truncated(field: "transport-wide sequence number", needed: 2, available: max(0, packet.count - max(offset, 0)))
        }
        RTPHeader.write(value, into: &packet, at: offset)
    }
}
