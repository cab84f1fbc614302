/// The 32-bit header every RTCP packet starts with (RFC 3550 §6.4.1):
/// version (2 bits), padding (1), count or FMT (5), packet type (8), length (16).
public struct RTCPHeader: Sendable, Equatable {
    /// The only RTP/RTCP version in use, RFC 3550 §6.4.1.
    public static let version: UInt8 = 2
    /// Size of the header on the wire.
    public static let size = 4

    /// P bit: the packet ends with padding whose last octet counts the padding octets.
    public var hasPadding: Bool
    /// Report/source count (SR, RR, SDES, BYE), subtype (APP) or FMT (RFC 4585 feedback).
    public var countOrFormat: UInt8
    /// PT field, see `RTCPPacketType`.
    public var packetType: UInt8
    /// Length field: size of the packet in 32-bit words minus one, header included.
    public var length: UInt16

    /// Bytes that follow the header, padding included.
    public var bodySize: Int { Int(length) * 4 }

    /// Creates a header from its fields.
    public init(hasPadding: Bool, countOrFormat: UInt8, packetType: UInt8, length: UInt16) {
        self.hasPadding = hasPadding
        self.countOrFormat = countOrFormat
        self.packetType = packetType
        self.length = length
    }

    /// Reads and validates a header (RFC 3550 §6.4.1, version must be 2).
    public static func parse(_ reader: inout ByteReader) throws(WireError) -> RTCPHeader {
        let first = try reader.readUInt8("RTCP header")
        let version = first >> 6
        guard version == RTCPHeader.version else {
            throw .invalidValue(field: "RTCP version", value: Int(version))
        }
        let packetType = try reader.readUInt8("RTCP packet type")
        let length = try reader.readUInt16("RTCP length")
        return RTCPHeader(hasPadding: first & 0x20 != 0, countOrFormat: first & 0x1F,
                          packetType: packetType, length: length)
    }
}
