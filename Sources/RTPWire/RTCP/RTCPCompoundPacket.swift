/// A compound RTCP packet (RFC 3550 §6.1): one or more RTCP packets back to back, as carried
/// in one UDP datagram (or one SRTCP payload).
public struct RTCPCompoundPacket: Sendable, Equatable {
    /// The packets in wire order.
    public var packets: [RTCPPacket]
    /// Padding octets (count octet included) after the last packet, whose P bit is then set
    /// (RFC 3550 §6.4.1: only the last packet of a compound may be padded); 0 for none.
    public var paddingLength: UInt8

    /// Creates a compound packet from its parts.
    public init(packets: [RTCPPacket], paddingLength: UInt8 = 0) {
        self.packets = packets
        self.paddingLength = paddingLength
    }

    /// Parses a compound packet that fills `bytes` exactly (RFC 3550 §6.1, A.2 checks: version 2,
    /// lengths add up to the datagram, padding only on the last packet).
    public init(parsing bytes: ArraySlice<UInt8>) throws(WireError) {
        var reader = ByteReader(bytes)
        guard reader.remaining > 0 else {
            throw .truncated(field: "RTCP header", needed: RTCPHeader.size, available: 0)
        }
        var packets: [RTCPPacket] = []
        var padding: UInt8 = 0
        while reader.remaining > 0 {
            let header = try RTCPHeader.parse(&reader)
            var body = try reader.readSlice(header.bodySize, "RTCP packet body")
            if header.hasPadding {
                guard reader.remaining == 0 else {
                    throw .invalidValue(field: "RTCP padding bit on a packet that is not last",
                                        value: packets.count)
                }
                guard let count = body.last else {
                    throw .truncated(field: "RTCP padding count", needed: 1, available: 0)
                }
                guard count > 0, Int(count) <= body.count else {
                    throw .invalidValue(field: "RTCP padding count", value: Int(count))
                }
                body = body.dropLast(Int(count))
                padding = count
            }
            packets.append(try RTCPPacket.parseBody(header: header, body: body))
        }
        self.init(packets: packets, paddingLength: padding)
    }

    /// Parses a compound packet that fills `bytes` exactly.
    public init(parsing bytes: [UInt8]) throws(WireError) {
        try self.init(parsing: bytes[...])
    }

    /// Appends the wire form to `out`. On error `out` is left as it was.
    public func serialize(into out: inout [UInt8]) throws(WireError) {
        guard !packets.isEmpty else {
            throw .outOfRange(field: "RTCP compound packet count", value: 0)
        }
        let start = out.count
        do throws(WireError) {
            for (index, packet) in packets.enumerated() {
                let isLast = index == packets.count - 1
                try packet.serialize(into: &out, paddingLength: isLast ? paddingLength : 0)
            }
        } catch {
            out.removeSubrange(start...)
            throw error
        }
    }

    /// The wire form as a new array.
    public func serialized() throws(WireError) -> [UInt8] {
        var out: [UInt8] = []
        try serialize(into: &out)
        return out
    }
}
