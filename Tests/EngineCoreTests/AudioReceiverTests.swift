import MediaCodecs
import RTPWire
import Testing
@testable import EngineCore

/// Opus packets 0..<count from a real encoder with in-band FEC.
private func opusPackets(_ count: Int) throws -> [RTPPacket] {
    let encoder = try OpusEncoder(configuration: .init(inbandFEC: true, expectedPacketLossPercent: 20))
    var packetizer = OpusPacketizer(initialTimestamp: 0)
    var output = [UInt8](repeating: 0, count: OpusEncoder.maxPacketSize)
    let signal = TestSignal()
    return try (0..<count).map { index in
        let length = try encoder.encode(signal.frame(index), into: &output)
        let (payload, timestamp, _) = try packetizer.packetize(Array(output[0..<length]))
        return RTPPacket(header: RTPHeader(payloadType: 111, sequenceNumber: UInt16(index), timestamp: timestamp, ssrc: 5),
                         payload: Array(payload))
    }
}

@Suite struct AudioReceiverTests {
    @Test func singleLossIsRebuiltFromTheNextPacketsFEC() throws {
        let packets = try opusPackets(6)
        let receiver = try AudioReceiver()
        var kinds: [ReceivedAudioKind] = []
        receiver.onAudio = { _, kind in kinds.append(kind) }
        for (index, packet) in packets.enumerated() where index != 3 {
            receiver.receive(packet, arrivalMicroseconds: Int64(index) * 20_000)
        }
        #expect(kinds == [.decoded, .decoded, .decoded, .recoveredFromFEC, .decoded, .decoded])
    }

    @Test func longerGapIsConcealedExceptTheLastMissingPacket() throws {
        let packets = try opusPackets(8)
        let receiver = try AudioReceiver()
        var kinds: [ReceivedAudioKind] = []
        receiver.onAudio = { _, kind in kinds.append(kind) }
        for (index, packet) in packets.enumerated() where !(2...4).contains(index) {
            receiver.receive(packet, arrivalMicroseconds: Int64(index) * 20_000)
        }
        #expect(kinds == [.decoded, .decoded, .concealed, .concealed, .recoveredFromFEC, .decoded, .decoded, .decoded])
        #expect(receiver.statistics.framesConcealed == 2)
        #expect(receiver.statistics.decoderErrors == 0)
    }

    @Test func packetOlderThanWhatWasPlayedIsLate() throws {
        let packets = try opusPackets(4)
        let receiver = try AudioReceiver()
        for index in [0, 1, 3, 2] { receiver.receive(packets[index], arrivalMicroseconds: Int64(index) * 20_000) }
        #expect(receiver.statistics.latePackets == 1)
        #expect(receiver.statistics.framesDecoded == 3)
    }

    @Test func invalidOpusPayloadIsCountedNotDecoded() throws {
        let receiver = try AudioReceiver()
        receiver.receive(RTPPacket(header: RTPHeader(payloadType: 111, sequenceNumber: 1, timestamp: 0, ssrc: 5), payload: []),
                         arrivalMicroseconds: 0)
        #expect(receiver.statistics.malformedPackets == 1)
        #expect(receiver.statistics.decoderErrors == 0)
    }
}
