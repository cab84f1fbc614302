import Testing
import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore

/// Hostile feedback at a publisher (issue 11): NACK floods, PLI floods, and REMBs from strangers
/// change at most a bounded amount.
@Suite struct PublisherFeedbackHardeningTests {
    /// The attack that made `simulcast send` emit 4,800x its input: 20 NACKs, each naming the same
    /// 17 packets 330 times, back to back. Each packet goes out once: at most 2x the unique bytes.
    @Test func nackBurstResendsEachRequestedPacketAtMostOnce() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(30)
        let layer1 = try sentRTP(rig.transport, receiver: receiver).filter { $0.packet.header.ssrc == 1001 }
        let requested = Array(layer1.suffix(17))
        #expect(requested.count == 17)
        let uniqueBytes = requested.reduce(0) { $0 + $1.datagram.count }
        let items = NACKItem.items(forLost: requested.map { $0.packet.header.sequenceNumber })
        let nack = [RTCPPacket.genericNACK(GenericNACK(
            senderSSRC: 9, mediaSSRC: 1001, items: Array(repeating: items, count: 330).flatMap { $0 }))]
        let before = rig.transport.sent.count
        var retransmitted = 0, refused = 0, nackBytes = 0
        for _ in 0..<20 {
            let datagram = try receiver.protectFeedback(nack)  // SRTCP: each one a fresh index
            nackBytes += datagram.count
            let outcome = try rig.publisher.handleIncoming(datagram)
            retransmitted += outcome.retransmitted
            refused += outcome.retransmissionsRefused
            rig.clock.advance(milliseconds: 2)
        }
        let resentBytes = rig.transport.sent[before...].reduce(0) { $0 + $1.bytes.count }
        print("NACK burst: \(nackBytes) bytes in 20 NACKs → \(resentBytes) bytes resent for \(uniqueBytes) unique bytes")
        #expect(retransmitted == 17)
        #expect(refused == 17 * 19)
        #expect(resentBytes <= 2 * uniqueBytes)
        #expect(rig.publisher.statistics[1].retransmissionsRefused == 17 * 19)
    }

    /// Spread out in time, the same NACKs may repeat a packet once per RTT, at most three times.
    @Test func repeatedNacksResendAPacketOncePerRoundTripAndAtMostThreeTimes() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(3)
        let wanted = try #require(try sentRTP(rig.transport, receiver: receiver).last { $0.packet.header.ssrc == 1000 })
        let nack = [RTCPPacket.genericNACK(GenericNACK(
            senderSSRC: 9, mediaSSRC: 1000, lostSequenceNumbers: [wanted.packet.header.sequenceNumber]))]
        var outcomes: [Int] = []
        for _ in 0..<8 {
            outcomes.append(try rig.publisher.handleIncoming(try receiver.protectFeedback(nack)).retransmitted)
            rig.clock.advance(milliseconds: 60)  // shorter than the default 100 ms without an RTT
        }
        #expect(outcomes == [1, 0, 1, 0, 1, 0, 0, 0])
    }

    /// Retransmissions stay within half of the media rate: NACKs for a whole history of a quiet
    /// stream are cut off by the budget.
    @Test func retransmissionsStayWithinHalfTheMediaRate() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(30)
        let packets = try sentRTP(rig.transport, receiver: receiver).filter { $0.packet.header.ssrc == 1001 }
        let mediaBytesLastSecond = packets.suffix(from: max(0, packets.count - 200)).reduce(0) { $0 + $1.datagram.count }
        let nack = try receiver.protectFeedback([.genericNACK(GenericNACK(
            senderSSRC: 9, mediaSSRC: 1001, lostSequenceNumbers: packets.map(\.packet.header.sequenceNumber)))])
        let before = rig.transport.sent.count
        let outcome = try rig.publisher.handleIncoming(nack)
        let resentBytes = rig.transport.sent[before...].reduce(0) { $0 + $1.bytes.count }
        #expect(outcome.retransmissionsRefused > 0)
        #expect(Double(resentBytes) <= Double(mediaBytesLastSecond) * 0.5 + 3000)
        #expect(outcome.retransmitted + outcome.retransmissionsRefused + outcome.missing == outcome.nacked)
    }

    /// 5,000 PLIs per second for 3 s cost at most two key frames per second per layer.
    @Test func pliFloodYieldsAtMostTwoKeyFramesPerSecondPerLayer() throws {
        let rig = try PublisherRig()
        let receiver = try TestReceiver()
        try rig.sendFrames(1)  // the first key frame
        let start = rig.transport.sent.count
        let pli = [RTCPPacket.pictureLossIndication(.init(senderSSRC: 9, mediaSSRC: 1001))]
        var requests = 0
        for _ in 0..<90 {  // 3 s of 33 ms frames, 165 PLIs before each
            for _ in 0..<165 { requests += try rig.publisher.handleIncoming(try receiver.protectFeedback(pli)).keyFrameRequests }
            try rig.sendFrames(1)
        }
        var keyFrames: [UInt32: Int] = [:]
        for sent in try sentRTP(rig.transport, receiver: receiver, from: start) where try startsKeyFrame(sent.packet.payload) {
            keyFrames[sent.packet.header.ssrc, default: 0] += 1
        }
        print("PLI flood: \(requests) requests in 3 s → key frames per layer \(keyFrames)")
        #expect(requests == 90 * 165)
        #expect(keyFrames.count == 2 && keyFrames.values.allSatisfy { $0 >= 2 && $0 <= 6 })
        #expect(rig.publisher.keyFrameRequestsThrottled >= requests - 6)
    }

    /// With plain RTCP (the Janus mode), a REMB 0 from another local port is dropped at the
    /// transport and changes nothing; the same REMB from the peer's address pauses the top layer.
    @Test func spoofedREMBFromAnotherPortChangesNothing() throws {
        let peer = try UDPSocket(bindingTo: .loopback(port: 0))
        let stranger = try UDPSocket(bindingTo: .loopback(port: 0))
        let socket = try UDPSocket(sendingToward: peer.localEndpoint)
        #expect(socket.localEndpoint.ipv4 == 0x7F00_0001)  // loopback for a loopback peer
        let plan = try LayerPlan(width: 640, height: 360)
        var random = SplitMix64(seed: 7)
        let clock = ManualClock()
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 1000),
                                                  security: .srtpPlainRTCP(local: try testMaterial()), cname: "c"),
            transport: socket, routing: try PublisherRouting(destination: peer.localEndpoint), clock: clock.mediaClock,
            using: &random)
        let remb = try RTCPCompoundPacket(packets: [
            .receiverReport(ReceiverReport(ssrc: 9)),
            .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 9, bitrate: 0, ssrcs: [1000, 1001])),
        ]).serialized()
        for _ in 0..<5 { try stranger.send(remb, to: socket.localEndpoint) }
        while try publisher.pollIncoming(timeoutMilliseconds: 50) != nil {}
        #expect(publisher.path.datagramsFromUnknownSources == 5)
        #expect(publisher.rembsReceived == 0 && publisher.rembActiveLayerCount == 2)
        try peer.send(remb, to: socket.localEndpoint)
        _ = try publisher.pollIncoming(timeoutMilliseconds: 500)
        #expect(publisher.rembsReceived == 1 && publisher.rembActiveLayerCount == 1)
    }
}
