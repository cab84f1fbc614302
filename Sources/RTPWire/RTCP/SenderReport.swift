/// Sender report, SR (RFC 3550 §6.4.1): sender info plus up to 31 reception report blocks and
/// an optional profile-specific extension kept as raw bytes.
public struct SenderReport: Sendable, Equatable {
    /// SSRC of the sender of this report.
    public var ssrc: UInt32
    /// NTP timestamp (64-bit fixed point, seconds since 1900) of this report.
    public var ntpTimestamp: UInt64
    /// RTP timestamp corresponding to `ntpTimestamp`.
    public var rtpTimestamp: UInt32
    /// Sender's packet count since the start of transmission.
    public var packetCount: UInt32
    /// Sender's payload octet count since the start of transmission.
    public var octetCount: UInt32
    /// Reception report blocks (at most 31).
    public var reportBlocks: [ReportBlock]
    /// Profile-specific extension octets following the report blocks (RFC 3550 §6.4.1).
    public var profileExtension: [UInt8]

    /// Creates a sender report from its fields.
    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32,
                octetCount: UInt32, reportBlocks: [ReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }
}

extension SenderReport {
    static func parseBody(count: UInt8, _ reader: inout ByteReader) throws(WireError) -> SenderReport {
        let ssrc = try reader.readUInt32("SR SSRC")
        let ntp = try reader.readUInt64("SR NTP timestamp")
        let rtp = try reader.readUInt32("SR RTP timestamp")
        let packets = try reader.readUInt32("SR packet count")
        let octets = try reader.readUInt32("SR octet count")
        let blocks = try ReportBlock.parseList(count: Int(count), &reader, packet: "SR")
        return SenderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: packets,
                            octetCount: octets, reportBlocks: blocks,
                            profileExtension: Array(reader.readRest()))
    }

    func headerCount() throws(WireError) -> UInt8 {
        try ReportBlock.countField(reportBlocks, packet: "SR")
    }

    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        out.appendUInt32(ssrc)
        out.appendUInt64(ntpTimestamp)
        out.appendUInt32(rtpTimestamp)
        out.appendUInt32(packetCount)
        out.appendUInt32(octetCount)
        for block in reportBlocks { try block.serialize(into: &out) }
        out.append(contentsOf: profileExtension)
    }
}
