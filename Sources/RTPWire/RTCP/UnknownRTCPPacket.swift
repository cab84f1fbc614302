/// An RTCP packet whose PT (or feedback FMT) this module does not interpret, kept raw so it
/// survives parse → serialize unchanged (RFC 3550 §6.1 asks receivers to ignore unknown types).
public struct UnknownRTCPPacket: Sendable, Equatable {
    /// PT field.
    public var packetType: UInt8
    /// The 5-bit count/FMT field.
    public var countOrFormat: UInt8
    /// Everything after the 4-octet header, padding excluded.
    public var body: [UInt8]

    /// Creates a raw packet from its fields.
    public init(packetType: UInt8, countOrFormat: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.countOrFormat = countOrFormat
        self.body = body
    }
}
