/// One reception report block of an SR or RR (RFC 3550 §6.4.1, 24 octets).
public struct ReportBlock: Sendable, Equatable, Hashable {
    /// Size of a report block on the wire.
    public static let size = 24
    /// Smallest and largest value of the 24-bit signed cumulative-lost field.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// SSRC_n: the source this block reports on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256 units.
    public var fractionLost: UInt8
    /// Cumulative number of packets lost (24-bit signed; negative with duplicates).
    public var cumulativeLost: Int32
    /// Extended highest sequence number received (cycles << 16 | highest).
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in RTP timestamp units (RFC 3550 §6.4.1, A.8).
    public var interarrivalJitter: UInt32
    /// LSR: middle 32 bits of the NTP timestamp of the last SR received, or 0.
    public var lastSenderReport: UInt32
    /// DLSR: delay since that SR in units of 1/65536 s, or 0.
    public var delaySinceLastSenderReport: UInt32

    /// Creates a report block from its fields.
    public init(ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0,
                extendedHighestSequenceNumber: UInt32 = 0, interarrivalJitter: UInt32 = 0,
                lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.interarrivalJitter = interarrivalJitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Reads one 24-octet block (RFC 3550 §6.4.1).
    public static func parse(_ reader: inout ByteReader) throws(WireError) -> ReportBlock {
        let ssrc = try reader.readUInt32("report block SSRC")
        let fraction = try reader.readUInt8("report block fraction lost")
        let lost24 = try reader.readUInt24("report block cumulative lost")
        // Sign-extend 24 → 32 bits: move to the top byte, then arithmetic shift back.
        let lost = Int32(bitPattern: lost24 << 8) >> 8
        return ReportBlock(
            ssrc: ssrc, fractionLost: fraction, cumulativeLost: lost,
            extendedHighestSequenceNumber: try reader.readUInt32("report block highest sequence"),
            interarrivalJitter: try reader.readUInt32("report block jitter"),
            lastSenderReport: try reader.readUInt32("report block LSR"),
            delaySinceLastSenderReport: try reader.readUInt32("report block DLSR"))
    }

    /// Appends the 24-octet block; throws `.outOfRange` if `cumulativeLost` needs more than 24 bits.
    public func serialize(into out: inout [UInt8]) throws(WireError) {
        guard ReportBlock.cumulativeLostRange.contains(cumulativeLost) else {
            throw .outOfRange(field: "report block cumulative lost", value: Int(cumulativeLost))
        }
        out.appendUInt32(ssrc)
        out.appendUInt8(fractionLost)
        out.appendUInt24(UInt32(bitPattern: cumulativeLost) & 0xFF_FFFF)
        out.appendUInt32(extendedHighestSequenceNumber)
        out.appendUInt32(interarrivalJitter)
        out.appendUInt32(lastSenderReport)
        out.appendUInt32(delaySinceLastSenderReport)
    }
}

extension ReportBlock {
    /// Reads `count` blocks, checking first that the body can hold them all so a lying
    /// count field fails fast with the real shortfall.
    static func parseList(count: Int, _ reader: inout ByteReader, packet: String) throws(WireError) -> [ReportBlock] {
        let needed = count * ReportBlock.size
        guard reader.remaining >= needed else {
            throw .truncated(field: "\(packet) report blocks", needed: needed, available: reader.remaining)
        }
        var blocks: [ReportBlock] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count { blocks.append(try ReportBlock.parse(&reader)) }
        return blocks
    }

    /// The 5-bit RC field for `blocks`, or `.outOfRange` beyond 31 (RFC 3550 §6.4.1).
    static func countField(_ blocks: [ReportBlock], packet: String) throws(WireError) -> UInt8 {
        guard blocks.count <= 31 else {
            throw .outOfRange(field: "\(packet) report count", value: blocks.count)
        }
        return UInt8(blocks.count)
    }
}
