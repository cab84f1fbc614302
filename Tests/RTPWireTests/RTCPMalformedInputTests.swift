import Testing
import RTPWire

/// Malformed compound packets fail with a typed `WireError`, never a trap.
@Suite struct RTCPMalformedInputTests {
    @Test func everyTruncationOfACompoundIsAnErrorOrTheLeadingPackets() throws {
        let bytes = RTCPSamples.compound
        let whole = try RTCPCompoundPacket(parsing: bytes)
        // Packet boundaries: a prefix ending exactly there is itself a valid compound.
        var boundaries: [Int: Int] = [:]
        var offset = 0
        for (index, packet) in whole.packets.enumerated() {
            offset += try RTCPCompoundPacket(packets: [packet]).serialized().count
            boundaries[offset] = index + 1
        }
        for length in 0..<bytes.count {
            let prefix = bytes[0..<length]
            if let packetCount = boundaries[length] {
                #expect(try RTCPCompoundPacket(parsing: prefix).packets == Array(whole.packets.prefix(packetCount)))
            } else {
                #expect(throws: WireError.self, "prefix of \(length) bytes") {
                    try RTCPCompoundPacket(parsing: prefix)
                }
            }
        }
    }

    @Test func everyTruncationOfEachSamplePacketIsAnError() {
        let samples = [RTCPSamples.senderReport, RTCPSamples.receiverReport, RTCPSamples.sourceDescription,
                       RTCPSamples.goodbye, RTCPSamples.applicationDefined, RTCPSamples.genericNACK,
                       RTCPSamples.pictureLossIndication, RTCPSamples.fullIntraRequest, RTCPSamples.remb,
                       RTCPSamples.transportWideFeedback, RTCPSamples.transportWideFeedbackRunAndVector]
        for sample in samples {
            for length in 0..<sample.count {
                #expect(throws: WireError.self) { try RTCPCompoundPacket(parsing: sample[0..<length]) }
            }
        }
    }

    @Test func emptyInputIsTruncated() {
        #expect(throws: WireError.truncated(field: "RTCP header", needed: 4, available: 0)) {
            try RTCPCompoundPacket(parsing: [UInt8]())
        }
    }

    @Test func versionOtherThanTwoIsRejected() {
        var bytes = RTCPSamples.pictureLossIndication
        bytes[0] = 0x41
        #expect(throws: WireError.invalidValue(field: "RTCP version", value: 1)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func lengthBeyondBufferIsTruncated() {
        var bytes = RTCPSamples.pictureLossIndication
        bytes[3] = 3
        #expect(throws: WireError.truncated(field: "RTCP packet body", needed: 12, available: 8)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func reportCountBeyondLengthIsTruncated() {
        var bytes = RTCPSamples.receiverReport
        bytes[0] = 0x82   // RC 2, room for 1
        #expect(throws: WireError.truncated(field: "RR report blocks", needed: 48, available: 24)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func sourceCountBelowChunksLeavesOctetsOver() {
        var bytes = RTCPSamples.sourceDescription
        bytes[0] = 0x81   // SC 1, two chunks present
        #expect(throws: WireError.invalidValue(field: "SDES octets after the last of SC chunks", value: 12)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func paddingOnNonLastPacketIsRejected() {
        let bytes = RTCPSamples.paddedReceiverReport + RTCPSamples.pictureLossIndication
        #expect(throws: WireError.invalidValue(field: "RTCP padding bit on a packet that is not last", value: 0)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func paddingCountZeroOrBeyondBodyIsRejected() {
        var zero = RTCPSamples.paddedReceiverReport
        zero[11] = 0
        #expect(throws: WireError.invalidValue(field: "RTCP padding count", value: 0)) {
            try RTCPCompoundPacket(parsing: zero)
        }
        var huge = RTCPSamples.paddedReceiverReport
        huge[11] = 9
        #expect(throws: WireError.invalidValue(field: "RTCP padding count", value: 9)) {
            try RTCPCompoundPacket(parsing: huge)
        }
    }

    @Test func pliWithFeedbackControlInformationIsRejected() {
        var bytes = RTCPSamples.pictureLossIndication + [0, 0, 0, 0]
        bytes[3] = 3
        #expect(throws: WireError.invalidValue(field: "PLI FCI length", value: 4)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func goodbyeWithAWordAfterTheReasonIsRejected() {
        // Reason "ab" (3 octets with its length) + 1 null octet is a full word; 4 more are not padding.
        let bytes = rtcpHex("81cb0003 11223344 02616200 00000000")
        #expect(throws: WireError.invalidValue(field: "BYE octets after reason", value: 5)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func sdesChunkWithoutTerminatingNullIsTruncated() {
        let bytes = rtcpHex("81ca0002 11223344 01026162")
        #expect(throws: WireError.truncated(field: "SDES item type", needed: 1, available: 0)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func firEntryOfWrongSizeIsRejected() {
        let bytes = rtcpHex("84ce0003 11223344 00000000 55667788")
        #expect(throws: WireError.invalidValue(field: "FIR FCI length", value: 4)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func cumulativeLostBeyond24BitsIsRejectedOnSerialize() {
        let rr = ReceiverReport(ssrc: 1, reportBlocks: [ReportBlock(ssrc: 2, cumulativeLost: 0x80_0000)])
        #expect(throws: WireError.outOfRange(field: "report block cumulative lost", value: 0x80_0000)) {
            try RTCPCompoundPacket(packets: [.receiverReport(rr)]).serialized()
        }
    }

    @Test func emptyCompoundIsRejectedOnSerialize() {
        #expect(throws: WireError.self) { try RTCPCompoundPacket(packets: []).serialized() }
    }
}
