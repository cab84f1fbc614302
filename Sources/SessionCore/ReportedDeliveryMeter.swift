import RTPWire

/// A sender's view of what reached its receiver, from consecutive RTCP reception report blocks
/// (RFC 3550 §6.4.1) about the stream it sends: between two reports the receiver got
/// Δ(extended highest sequence number − cumulative lost) packets of the Δ(packets sent) the
/// sender sent meanwhile. Unlike the report's own fraction lost, this also sees a link that
/// delivers nothing at all (the receiver's highest sequence number stops moving, so its own loss
/// counters stay still while the sender keeps sending).
///
/// Packets in flight when a report is made count as lost in one interval and as received in the
/// next; over report intervals far longer than the round trip that evens out.
public struct ReportedDeliveryMeter: Sendable {
    /// Loss and delivered rate over one report interval.
    public struct Interval: Sendable, Equatable {
        /// 0…1.
        public var lossFraction: Double
        /// What got through, bits per second; nil when nothing was sent in the interval.
        public var deliveredBitsPerSecond: UInt64?
    }

    private var previous: (received: Int64, packetsSent: Int64, bytesSent: Int64, atMilliseconds: Int64)?

    public init() {}

    /// Measures the interval since the previous block: nil for the first block, or when time did
    /// not move forward. `packetsSent`/`bytesSent` are the sender's totals for the stream (new
    /// packets only: retransmissions do not move the receiver's highest sequence number).
    public mutating func measure(_ block: ReportBlock, packetsSent: Int64, bytesSent: Int64,
                                 nowMilliseconds: Int64) -> Interval? {
        let received = Int64(block.extendedHighestSequenceNumber) - Int64(block.cumulativeLost)
        defer { previous = (received, packetsSent, bytesSent, nowMilliseconds) }
        guard let previous else { return nil }
        let elapsed = nowMilliseconds.subtractingReportingOverflow(previous.atMilliseconds)
        guard !elapsed.overflow, elapsed.partialValue > 0 else { return nil }
        let sent = packetsSent &- previous.packetsSent
        guard sent > 0 else { return Interval(lossFraction: 0, deliveredBitsPerSecond: nil) }
        let got = received &- previous.received
        let loss = min(1, max(0, 1 - Double(got) / Double(sent)))
        let bits = Double(max(0, bytesSent &- previous.bytesSent)) * 8 * 1000 / Double(elapsed.partialValue)
        return Interval(lossFraction: loss, deliveredBitsPerSecond: UInt64(min(bits * (1 - loss), Double(UInt64.max / 2))))
    }
}
