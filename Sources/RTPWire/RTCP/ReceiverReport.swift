/// Receiver report, RR (RFC 3550 §6.4.2): up to 31 reception report blocks and an optional
/// profile-specific extension kept as raw bytes.
public struct ReceiverReport: Sendable, Equatable {
    /// SSRC of the sender of this report.
    public var ssrc: UInt32
    /// Reception report blocks (at most 31).
    public var reportBlocks: [ReportBlock]
    /// Profile-specific extension octets following the report blocks.
    public var profileExtension: [UInt8]

    /// Creates a receiver report from its fields.
    public init(ssrc: UInt32, reportBlocks: [ReportBlock] = [], profileExtension: [UInt8] = []) {
        self.ssrc = ssrc
        self.reportBlocks = reportBlocks
        self.profileExtension = profileExtension
    }
}

extension ReceiverReport {
    static func parseBody(count: UInt8, _ reader: inout ByteReader) throws(WireError) -> ReceiverReport {
        let ssrc = try reader.readUInt32("RR SSRC")
        let blocks = try ReportBlock.parseList(count: Int(count), &reader, packet: "RR")
        return ReceiverReport(ssrc: ssrc, reportBlocks: blocks, profileExtension: Array(reader.readRest()))
    }

    func headerCount() throws(WireError) -> UInt8 {
        try ReportBlock.countField(reportBlocks, packet: "RR")
    }

    func serializeBody(into out: inout [UInt8]) throws(WireError) {
        out.appendUInt32(ssrc)
        for block in reportBlocks { try block.serialize(into: &out) }
        out.append(contentsOf: profileExtension)
    }
}
