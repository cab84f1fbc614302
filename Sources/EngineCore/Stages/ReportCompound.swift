import RTPWire

/// The RTCP compound packets the endpoints send (RFC 3550 §6.1: a compound starts with a report,
/// SR or RR, then SDES; feedback follows; BYE comes last, §6.6). One place builds them, so every
/// endpoint puts the same packets in the same order. (The forwarding node's one-packet
/// compounds are not built here: it reuses one list per subscriber for its sender reports.)
enum ReportCompound {
    /// SR, then SDES CNAME (when `cname` is set), then BYE (RFC 3550 §6.4.1, §6.5.1, §6.6).
    static func senderReport(_ report: SenderReport, cname: String?, goodbye: Goodbye? = nil) -> RTCPCompoundPacket {
        var packets: [RTCPPacket] = [.senderReport(report)]
        if let cname {
            packets.append(.sourceDescription(SourceDescription(chunks: [.cname(ssrc: report.ssrc, cname)])))
        }
        if let goodbye { packets.append(.goodbye(goodbye)) }
        return RTCPCompoundPacket(packets: packets)
    }

    /// RR from `localSSRC` with `blocks` (RFC 3550 §6.4.2; empty between reports), SDES CNAME
    /// when `cname` is set, then `feedback` (RFC 4585 §3.1: feedback rides in a compound).
    static func receiverReport(localSSRC: UInt32, blocks: [ReportBlock] = [], cname: String? = nil,
                               feedback: [RTCPPacket]) -> RTCPCompoundPacket {
        var packets: [RTCPPacket] = [.receiverReport(ReceiverReport(ssrc: localSSRC, reportBlocks: blocks))]
        if let cname {
            packets.append(.sourceDescription(SourceDescription(chunks: [.cname(ssrc: localSSRC, cname)])))
        }
        packets.append(contentsOf: feedback)
        return RTCPCompoundPacket(packets: packets)
    }
}
