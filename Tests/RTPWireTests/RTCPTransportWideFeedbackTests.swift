import Testing
import RTPWire

/// Transport-wide CC feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
@Suite struct RTCPTransportWideFeedbackTests {
    typealias Result = TransportWideFeedback.PacketResult

    func feedback(_ bytes: [UInt8]) throws -> TransportWideFeedback {
        guard case let .transportWideFeedback(twcc) = try RTCPCompoundPacket(parsing: bytes).packets.first else {
            throw WireError.unsupported("not TWCC")
        }
        return twcc
    }

    @Test func twoBitVectorParsesIntoReceivedLostSmallAndLargeDeltas() throws {
        let twcc = try feedback(RTCPSamples.transportWideFeedback)
        #expect(twcc.baseSequenceNumber == 100)
        #expect(twcc.referenceTime == 0x102)
        #expect(twcc.feedbackPacketCount == 7)
        #expect(try twcc.packetResults() == [
            Result(sequenceNumber: 100, receiveDelta: 16),
            Result(sequenceNumber: 101, receiveDelta: -200),
            Result(sequenceNumber: 102, receiveDelta: nil),
            Result(sequenceNumber: 103, receiveDelta: 0),
            Result(sequenceNumber: 104, receiveDelta: 255),
        ])
    }

    @Test func runLengthAndOneBitVectorParseAcrossSequenceWrap() throws {
        let twcc = try feedback(RTCPSamples.transportWideFeedbackRunAndVector)
        #expect(twcc.referenceTime == -1)
        let results = try twcc.packetResults()
        #expect(results.count == 17)
        #expect(results.prefix(6) == [
            Result(sequenceNumber: 65534, receiveDelta: 1),
            Result(sequenceNumber: 65535, receiveDelta: 2),
            Result(sequenceNumber: 0, receiveDelta: 3),
            Result(sequenceNumber: 1, receiveDelta: nil),
            Result(sequenceNumber: 2, receiveDelta: 4),
            Result(sequenceNumber: 3, receiveDelta: 5),
        ])
        #expect(results.dropFirst(6).allSatisfy { !$0.isReceived })
        #expect(results.last?.sequenceNumber == 14)
    }

    @Test func buildingFromMixedResultsParsesBackToTheSameResults() throws {
        var packets: [Result] = []
        for index in 0..<60 {
            let sequence = UInt16(truncatingIfNeeded: 65_520 + index)
            switch index % 5 {
            case 0: packets.append(Result(sequenceNumber: sequence, receiveDelta: nil))
            case 1: packets.append(Result(sequenceNumber: sequence, receiveDelta: Int16(index)))
            case 2: packets.append(Result(sequenceNumber: sequence, receiveDelta: -Int16(index)))
            case 3: packets.append(Result(sequenceNumber: sequence, receiveDelta: 1000 + Int16(index)))
            default: packets.append(Result(sequenceNumber: sequence, receiveDelta: 255))
            }
        }
        // A long run of losses and a long run of small deltas exercise run-length chunks.
        for index in 60..<100 {
            packets.append(Result(sequenceNumber: UInt16(truncatingIfNeeded: 65_520 + index),
                                  receiveDelta: index < 80 ? nil : 4))
        }
        let built = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, referenceTime: 1234,
                                              feedbackPacketCount: 3, packets: packets)
        #expect(built.chunks.contains { if case .runLength = $0 { true } else { false } })
        #expect(built.chunks.contains { if case .twoBitVector = $0 { true } else { false } })
        let bytes = try RTCPCompoundPacket(packets: [.transportWideFeedback(built)]).serialized()
        let parsed = try feedback(bytes)
        #expect(parsed == built)
        #expect(try parsed.packetResults() == packets)
    }

    @Test func buildingFillsSequenceGapsAsNotReceived() throws {
        let built = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, referenceTime: 0, feedbackPacketCount: 0,
                                              packets: [Result(sequenceNumber: 65535, receiveDelta: 8),
                                                        Result(sequenceNumber: 2, receiveDelta: 9)])
        #expect(try built.packetResults() == [
            Result(sequenceNumber: 65535, receiveDelta: 8), Result(sequenceNumber: 0, receiveDelta: nil),
            Result(sequenceNumber: 1, receiveDelta: nil), Result(sequenceNumber: 2, receiveDelta: 9),
        ])
        #expect(built.chunks == [.oneBitVector([.receivedSmallDelta, .notReceived, .notReceived, .receivedSmallDelta]
                                                + Array(repeating: .notReceived, count: 10))])
    }

    @Test func buildingRejectsSequenceNumbersGoingBackwards() {
        #expect(throws: WireError.self) {
            try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, referenceTime: 0, feedbackPacketCount: 0,
                                      packets: [Result(sequenceNumber: 5, receiveDelta: 1),
                                                Result(sequenceNumber: 4, receiveDelta: 1)])
        }
    }

    @Test func reservedStatusSymbolIsRejected() {
        var bytes = RTCPSamples.transportWideFeedback
        bytes[20] = 0xFF   // two-bit vector whose first symbol is 11
        #expect(throws: WireError.invalidValue(field: "TWCC status symbol", value: 3)) {
            try RTCPCompoundPacket(parsing: bytes)
        }
    }

    @Test func missingReceiveDeltasAreTruncation() {
        var bytes = RTCPSamples.transportWideFeedback
        bytes[3] = 5   // length 5: the packet ends right after the status chunk
        #expect(throws: WireError.self) {
            try RTCPCompoundPacket(parsing: Array(bytes[0..<24]))
        }
    }

    @Test func smallDeltaOutOfRangeIsRejectedOnSerialize() {
        let twcc = TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 1,
                                         referenceTime: 0, feedbackPacketCount: 0,
                                         chunks: [.runLength(.receivedSmallDelta, count: 1)], receiveDeltas: [-1])
        #expect(throws: WireError.outOfRange(field: "TWCC small receive delta", value: -1)) {
            try RTCPCompoundPacket(packets: [.transportWideFeedback(twcc)]).serialized()
        }
    }
}
