import Testing
import RTPWire

/// Parse → serialize reproduces the input byte for byte, for every packet kind.
@Suite struct RTCPRoundTripTests {
    static let samples: [(String, [UInt8])] = [
        ("SR", RTCPSamples.senderReport),
        ("SR with profile extension", RTCPSamples.senderReportWithExtension),
        ("RR", RTCPSamples.receiverReport),
        ("SDES", RTCPSamples.sourceDescription),
        ("BYE", RTCPSamples.goodbye),
        ("BYE without reason", RTCPSamples.goodbyeWithoutReason),
        ("APP", RTCPSamples.applicationDefined),
        ("NACK", RTCPSamples.genericNACK),
        ("PLI", RTCPSamples.pictureLossIndication),
        ("FIR", RTCPSamples.fullIntraRequest),
        ("REMB", RTCPSamples.remb),
        ("TWCC", RTCPSamples.transportWideFeedback),
        ("TWCC run and vector", RTCPSamples.transportWideFeedbackRunAndVector),
        ("TWCC with P-bit padding", RTCPSamples.transportWideFeedbackPadded),
        ("RR with padding", RTCPSamples.paddedReceiverReport),
        ("unknown PT", RTCPSamples.unknownType),
        ("unknown RTPFB FMT", RTCPSamples.unknownTransportFeedback),
        ("unknown PSFB application feedback", RTCPSamples.unknownApplicationFeedback),
        ("compound", RTCPSamples.compound),
    ]

    @Test("every packet kind round-trips byte-exact", arguments: samples)
    func everyPacketKindRoundTripsByteExact(name: String, bytes: [UInt8]) throws {
        let packet = try RTCPCompoundPacket(parsing: bytes)
        #expect(try packet.serialized() == bytes, "\(name)")
    }

    @Test func serializeAppendsAfterExistingBytes() throws {
        var out: [UInt8] = [0xAA, 0xBB]
        try RTCPCompoundPacket(parsing: RTCPSamples.pictureLossIndication).serialize(into: &out)
        #expect(out == [0xAA, 0xBB] + RTCPSamples.pictureLossIndication)
    }

    @Test func failedSerializeLeavesOutputUntouched() {
        let tooMany = RTCPPacket.goodbye(Goodbye(ssrcs: Array(0..<32)))
        let compound = RTCPCompoundPacket(packets: [.pictureLossIndication(.init(senderSSRC: 1, mediaSSRC: 2)), tooMany])
        var out: [UInt8] = [1, 2, 3]
        #expect(throws: WireError.outOfRange(field: "BYE source count", value: 32)) {
            try compound.serialize(into: &out)
        }
        #expect(out == [1, 2, 3])
    }

    @Test func builtValuesSerializeAndParseBackEqual() throws {
        let compound = RTCPCompoundPacket(packets: [
            .senderReport(SenderReport(ssrc: 1, ntpTimestamp: 2, rtpTimestamp: 3, packetCount: 4, octetCount: 5,
                                       reportBlocks: [ReportBlock(ssrc: 9, cumulativeLost: -0x80_0000)])),
            .receiverReport(ReceiverReport(ssrc: 1, reportBlocks: [ReportBlock(ssrc: 2, cumulativeLost: 0x7F_FFFF)])),
            .sourceDescription(SourceDescription(chunks: [.cname(ssrc: 1, "user@host"), SDESChunk(ssrc: 2, items: [])])),
            .goodbye(Goodbye(ssrcs: [1, 2, 3], reason: "bye")),
            .goodbye(Goodbye(ssrcs: [], reason: "")),
            .applicationDefined(ApplicationDefined(subtype: 31, ssrc: 1, name: 0x4142_4344, data: [1, 2, 3, 4])),
            .genericNACK(GenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [5, 6, 40])),
            .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2)),
            .fullIntraRequest(FullIntraRequest(senderSSRC: 1, entries: [FIREntry(ssrc: 2, sequenceNumber: 3),
                                                                        FIREntry(ssrc: 4, sequenceNumber: 5)])),
            .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [2, 3])),
            .transportWideFeedback(try TransportWideFeedback(
                senderSSRC: 1, mediaSSRC: 2, referenceTime: -5, feedbackPacketCount: 9,
                packets: [.init(sequenceNumber: 10, receiveDelta: 4), .init(sequenceNumber: 12, receiveDelta: -4)])),
            .unknown(UnknownRTCPPacket(packetType: 207, countOrFormat: 3, body: [1, 2, 3, 4])),
        ], paddingLength: 8)
        let bytes = try compound.serialized()
        #expect(bytes.count % 4 == 0)
        #expect(try RTCPCompoundPacket(parsing: bytes) == compound)
    }
}
