import RTPWire

/// (e) RTCP compound packets, per compound: the sender side builds SR + SDES(CNAME) into a
/// reused buffer; the receiver side parses RR + NACK + PLI + REMB + transport-cc feedback.
extension WireBenchmark {
    func measureRTCP() throws -> [WireResult] {
        let report = SenderReport(ssrc: 0x1234_5678, ntpTimestamp: 0xE8A1_0000_8000_0000, rtpTimestamp: 90_000,
                                  packetCount: 1000, octetCount: 1_200_000)
        let senderCompound = RTCPCompoundPacket(packets: [
            .senderReport(report), .sourceDescription(SourceDescription(chunks: [.cname(ssrc: 0x1234_5678, "bench@host")])),
        ])
        var build = RTCPBuildOperation(compound: senderCompound)
        var results: [TransportWideFeedback.PacketResult] = []
        for index in 0..<40 {
            let delta: Int16? = index % 7 == 3 ? nil : Int16(4 * (index % 5))
            results.append(TransportWideFeedback.PacketResult(sequenceNumber: UInt16(100 + index), receiveDelta: delta))
        }
        let feedback = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 0x1234_5678, referenceTime: 1000,
                                                 feedbackPacketCount: 3, packets: results)
        let receiverCompound = RTCPCompoundPacket(packets: [
            .receiverReport(ReceiverReport(ssrc: 1, reportBlocks: [ReportBlock(ssrc: 0x1234_5678, fractionLost: 12,
                                                                               cumulativeLost: 40)])),
            .genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: 0x1234_5678, lostSequenceNumbers: [10, 12, 13, 40])),
            .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 0x1234_5678)),
            .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 2_500_000, ssrcs: [0x1234_5678])),
            .transportWideFeedback(feedback),
        ])
        var parse = RTCPParseOperation(bytes: try receiverCompound.serialized())
        return [
            try measureWire(&build, name: "rtcp_compound_build", detail: "SR + SDES(CNAME) into a reused buffer",
                            unit: "packet", iterations: iterations, runs: runs),
            try measureWire(&parse, name: "rtcp_compound_parse",
                            detail: "RR + NACK + PLI + REMB + TWCC (40 packets) compound",
                            unit: "packet", iterations: iterations, runs: runs),
        ]
    }
}

struct RTCPBuildOperation: WireOperation {
    let compound: RTCPCompoundPacket
    var buffer: [UInt8] = []
    private(set) var checksum = 0

    init(compound: RTCPCompoundPacket) {
        self.compound = compound
        buffer.reserveCapacity(1500)
    }

    mutating func iterate() throws {
        buffer.removeAll(keepingCapacity: true)
        try compound.serialize(into: &buffer)
        checksum &+= buffer.count
    }
}

struct RTCPParseOperation: WireOperation {
    let bytes: [UInt8]
    private(set) var checksum = 0

    mutating func iterate() throws {
        let compound = try RTCPCompoundPacket(parsing: bytes)
        checksum &+= compound.packets.count
    }
}
