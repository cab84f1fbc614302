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

/// Playout through the jitter buffer (`startPlayout`): one block per 20 ms step, in sequence
/// order whatever the arrival order, a loss rebuilt from the next packet's FEC, a longer one
/// concealed, each block with its RTP time and, after a sender report, the sender's clock.
@Suite struct AudioReceiverPlayoutTests {
    /// Real time in 20 ms steps: the packets due by each step's instant arrive (`arrivals`: packet
    /// index → arrival µs), then the step plays; what played, silent steps left out.
    private func run(_ receiver: AudioReceiver, _ packets: [RTPPacket], arrivals: [Int: Int64], steps: Int,
                     beforeStep: (Int64) -> Void = { _ in }) -> [ReceivedAudioFrame] {
        var waiting = arrivals.sorted { $0.value < $1.value }[...]
        return (0..<steps).compactMap { step in
            let now = Int64(step) * 20_000
            while let next = waiting.first, next.value <= now {
                receiver.receive(packets[next.key], arrivalMicroseconds: next.value)
                waiting = waiting.dropFirst()
            }
            beforeStep(now)
            return receiver.playOut(nowMicroseconds: now)
        }
    }

    @Test func reorderedPacketsPlayInOrderWithTheirTimes() throws {
        let packets = try opusPackets(6)
        let receiver = try AudioReceiver()
        receiver.startPlayout()
        // Packet 1 comes 5 ms after packet 2, within the 20 ms the buffer waits.
        let arrivals = [0: 0, 1: 35_000, 2: 30_000, 3: 60_000, 4: 80_000, 5: 100_000] as [Int: Int64]
        let played = run(receiver, packets, arrivals: arrivals, steps: 10) { now in
            guard now == 20_000 else { return }
            receiver.receiveSenderReport(SenderReport(ssrc: 5, ntpTimestamp: 100 << 32, rtpTimestamp: packets[0].header.timestamp,
                                                      packetCount: 1, octetCount: 0), arrivalMicroseconds: now)
        }.prefix(6)
        #expect(played.map(\.kind) == Array(repeating: .decoded, count: 6))
        #expect(played.map(\.rtpTimestamp) == packets.map(\.header.timestamp))
        #expect(played.map(\.senderTimeMicroseconds) == (0..<6).map { 100_000_000 + Int64($0) * 20_000 })
        #expect(played.allSatisfy { $0.audio.samplesPerChannel == 960 })
        #expect(receiver.statistics.latePackets == 0)
        #expect(played.first?.senderTimeMicroseconds != nil)
    }

    @Test func lossesAreRebuiltOrConcealedAtTheirTurn() throws {
        let packets = try opusPackets(10)
        let receiver = try AudioReceiver()
        receiver.startPlayout()
        var arrivals: [Int: Int64] = [:]
        for index in packets.indices where index != 3 && !(6...7).contains(index) { arrivals[index] = Int64(index) * 20_000 }
        let played = run(receiver, packets, arrivals: arrivals, steps: 12).prefix(10)
        // Packet 6's turn comes before packet 8 arrives: an underrun stretches (conceals) while
        // waiting for it; then 6 is lost (concealed), 7 rebuilt from 8's FEC.
        #expect(played.map(\.kind) == [.decoded, .decoded, .decoded, .recoveredFromFEC, .decoded, .decoded,
                                       .concealed, .concealed, .recoveredFromFEC, .decoded])
        // A rebuilt or concealed block sits where its packet would have; the stretch carries the
        // time of the packet it waited for.
        let times = packets.map(\.header.timestamp)
        #expect(played.map(\.rtpTimestamp) == Array(times[0...6]) + [times[6], times[7], times[8]])
        #expect(played.allSatisfy { $0.senderTimeMicroseconds == nil })  // no sender report yet
        #expect(receiver.playoutStatistics?.recoveredSteps == 2)
        #expect(receiver.playoutStatistics?.underruns == 1 && receiver.playoutStatistics?.packetsLost == 3)
        #expect(receiver.statistics.decoderErrors == 0)
    }

    @Test func stoppingPlayoutGoesBackToArrivalOrder() throws {
        let packets = try opusPackets(4)
        let receiver = try AudioReceiver()
        var arrivals = 0
        receiver.onAudio = { _, _ in arrivals += 1 }
        receiver.startPlayout()
        receiver.receive(packets[0], arrivalMicroseconds: 0)
        #expect(arrivals == 0 && receiver.isPlayingOut)
        #expect(receiver.playOut(nowMicroseconds: 0) == nil)  // the target delay has not passed
        receiver.stopPlayout()
        #expect(receiver.playOut(nowMicroseconds: 40_000) == nil && receiver.playoutStatistics == nil)
        for packet in packets.dropFirst() { receiver.receive(packet, arrivalMicroseconds: 60_000) }
        #expect(arrivals == 3)
    }
}
