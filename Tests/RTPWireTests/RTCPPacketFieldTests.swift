import Testing
import RTPWire

/// Parsed values carry the fields the wire images were assembled from.
@Suite struct RTCPPacketFieldTests {
    func onlyPacket(_ bytes: [UInt8]) throws -> RTCPPacket {
        let compound = try RTCPCompoundPacket(parsing: bytes)
        try #require(compound.packets.count == 1)
        return compound.packets[0]
    }

    @Test func senderReportCarriesSenderInfoAndSignedCumulativeLost() throws {
        guard case let .senderReport(sr) = try onlyPacket(RTCPSamples.senderReport) else {
            Issue.record("not an SR"); return
        }
        #expect(sr.ssrc == 0x1122_3344)
        #expect(sr.ntpTimestamp == 0xDDCC_BBAA_1234_5678)
        #expect(sr.rtpTimestamp == 123_456)
        #expect(sr.packetCount == 10)
        #expect(sr.octetCount == 1000)
        #expect(sr.reportBlocks == [ReportBlock(ssrc: 0x5566_7788, fractionLost: 0x1A, cumulativeLost: -2,
                                                extendedHighestSequenceNumber: 0x1_002A, interarrivalJitter: 16,
                                                lastSenderReport: 0x1234_5678, delaySinceLastSenderReport: 0x8000)])
        #expect(sr.profileExtension.isEmpty)
    }

    @Test func senderReportKeepsProfileExtension() throws {
        guard case let .senderReport(sr) = try onlyPacket(RTCPSamples.senderReportWithExtension) else {
            Issue.record("not an SR"); return
        }
        #expect(sr.reportBlocks.isEmpty)
        #expect(sr.profileExtension == [0xDE, 0xAD, 0xBE, 0xEF])
    }

    @Test func receiverReportCarriesReportBlock() throws {
        guard case let .receiverReport(rr) = try onlyPacket(RTCPSamples.receiverReport) else {
            Issue.record("not an RR"); return
        }
        #expect(rr.ssrc == 0x1122_3344)
        #expect(rr.reportBlocks.first?.fractionLost == 5)
        #expect(rr.reportBlocks.first?.cumulativeLost == 3)
        #expect(rr.reportBlocks.first?.extendedHighestSequenceNumber == 0x2_FFFF)
    }

    @Test func sourceDescriptionExposesCNAMEPerSource() throws {
        guard case let .sourceDescription(sdes) = try onlyPacket(RTCPSamples.sourceDescription) else {
            Issue.record("not SDES"); return
        }
        #expect(sdes.chunks.count == 2)
        #expect(sdes.cname(for: 0x1122_3344) == "abc")
        #expect(sdes.cname(for: 0x5566_7788) == "ab")
        #expect(sdes.chunks[1].items.last == SDESItem(type: .tool, value: [0x78]))
        #expect(sdes.cname(for: 1) == nil)
    }

    @Test func goodbyeCarriesSourcesAndReason() throws {
        guard case let .goodbye(bye) = try onlyPacket(RTCPSamples.goodbye) else {
            Issue.record("not BYE"); return
        }
        #expect(bye.ssrcs == [0x1122_3344, 0x5566_7788])
        #expect(bye.reasonText == "gone")
        guard case let .goodbye(bare) = try onlyPacket(RTCPSamples.goodbyeWithoutReason) else {
            Issue.record("not BYE"); return
        }
        #expect(bare.reason == nil)
    }

    @Test func applicationDefinedIsKeptRaw() throws {
        #expect(try onlyPacket(RTCPSamples.applicationDefined) == .applicationDefined(
            ApplicationDefined(subtype: 5, ssrc: 0x1122_3344, name: 0x5445_5354, data: [1, 2, 3, 4])))
    }

    @Test func pictureLossIndicationCarriesBothSSRCs() throws {
        #expect(try onlyPacket(RTCPSamples.pictureLossIndication) == .pictureLossIndication(
            PictureLossIndication(senderSSRC: 0x1122_3344, mediaSSRC: 0x5566_7788)))
    }

    @Test func fullIntraRequestCarriesEntries() throws {
        #expect(try onlyPacket(RTCPSamples.fullIntraRequest) == .fullIntraRequest(
            FullIntraRequest(senderSSRC: 0x1122_3344, entries: [FIREntry(ssrc: 0x5566_7788, sequenceNumber: 7)])))
    }

    @Test func unknownPacketTypesAndFormatsAreKeptRaw() throws {
        #expect(try onlyPacket(RTCPSamples.unknownType) == .unknown(
            UnknownRTCPPacket(packetType: 207, countOrFormat: 0, body: [0x11, 0x22, 0x33, 0x44, 1, 2, 3, 4])))
        guard case let .unknown(tmmbr) = try onlyPacket(RTCPSamples.unknownTransportFeedback) else {
            Issue.record("not unknown"); return
        }
        #expect(tmmbr.packetType == 205 && tmmbr.countOrFormat == 3)
        guard case let .unknown(afb) = try onlyPacket(RTCPSamples.unknownApplicationFeedback) else {
            Issue.record("not unknown"); return
        }
        #expect(afb.packetType == 206 && afb.countOrFormat == 15)
    }

    @Test func paddingOnLastPacketIsRecordedOnCompound() throws {
        let compound = try RTCPCompoundPacket(parsing: RTCPSamples.paddedReceiverReport)
        #expect(compound.paddingLength == 4)
        #expect(compound.packets == [.receiverReport(ReceiverReport(ssrc: 0x1122_3344))])
    }

    @Test func compoundKeepsPacketOrder() throws {
        let compound = try RTCPCompoundPacket(parsing: RTCPSamples.compound)
        #expect(compound.packets.map(\.packetType) == [200, 202, 206, 205])
        #expect(compound.paddingLength == 1)
    }
}
