/// The fields of an RTP fixed header (RFC 3550 §5.1) that a forwarder routes by: read in place
/// from a serialized packet, without parsing extensions or copying the payload, the read-side
/// counterpart of `RTPHeader.rewrite(in:)`.
public struct RTPFixedFields: Sendable, Equatable {
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32

    public init(payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// Reads the fixed header at the start of `packet`. Throws `WireError` for fewer than 12
    /// bytes or a version other than 2.
    public init(reading packet: ArraySlice<UInt8>) throws(WireError) {
        guard packet.count >= RTPHeader.fixedLength else {
            throw .truncated(field: "RTP fixed header", needed: RTPHeader.fixedLength, available: packet.count)
        }
        let base = packet.startIndex
        guard packet[base] >> 6 == RTPHeader.version else {
            throw .invalidValue(field: "RTP version", value: Int(packet[base] >> 6))
        }
        func read32(_ offset: Int) -> UInt32 {
            UInt32(packet[base + offset]) << 24 | UInt32(packet[base + offset + 1]) << 16
                | UInt32(packet[base + offset + 2]) << 8 | UInt32(packet[base + offset + 3])
        }
        payloadType = packet[base + 1] & 0x7F
        sequenceNumber = UInt16(packet[base + 2]) << 8 | UInt16(packet[base + 3])
        timestamp = read32(4)
        ssrc = read32(8)
    }
}
