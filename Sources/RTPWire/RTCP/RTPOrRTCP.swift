/// What a datagram on a port shared by RTP and RTCP carries (RFC 5761 §4).
public enum RTPOrRTCP: Sendable, Equatable {
    /// An RTP packet (RFC 3550 §5.1).
    case rtp
    /// An RTCP (compound) packet (RFC 3550 §6.1).
    case rtcp

    /// RFC 5761 §4 demultiplexing: the second octet in 192…223 (RTCP packet types 192–223, which
    /// would be RTP marker + payload types 64–95) means RTCP; anything else is RTP. Throws for
    /// fewer than 2 octets or a version other than 2.
    public static func classify(_ bytes: ArraySlice<UInt8>) throws(WireError) -> RTPOrRTCP {
        var reader = ByteReader(bytes)
        let first = try reader.readUInt8("RTP/RTCP first octet")
        let second = try reader.readUInt8("RTP/RTCP second octet")
        guard first >> 6 == 2 else { throw .invalidValue(field: "RTP/RTCP version", value: Int(first >> 6)) }
        return (192...223).contains(second) ? .rtcp : .rtp
    }

    /// RFC 5761 §4 demultiplexing of a whole datagram.
    public static func classify(_ bytes: [UInt8]) throws(WireError) -> RTPOrRTCP {
        try classify(bytes[...])
    }
}
