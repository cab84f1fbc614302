import Testing
import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore
import SessionCore

/// Hostile or degenerate input at the forwarding node (issue 11): NACK floods from a subscriber,
/// spoofed publisher packets in plaintext mode, a downlink that delivers nothing, event logs on
/// long calls.
@Suite(.serialized) struct ForwardingNodeHardeningTests {
    typealias Rig = ForwardingNodeTests.Rig

    private static func nack(_ sequenceNumbers: [UInt16], repeated: Int) -> [RTCPPacket] {
        let items = NACKItem.items(forLost: sequenceNumbers)
        return [.receiverReport(ReceiverReport(ssrc: 0xAB)),
                .genericNACK(GenericNACK(senderSSRC: 0xAB, mediaSSRC: 0xD1, items: Array(repeating: items, count: repeated).flatMap { $0 }))]
    }

    /// 20 NACKs naming the same packets 100 times each, back to back: each packet resent once.
    @Test func nackBurstFromASubscriberResendsEachPacketOnce() throws {
        let rig = try Rig()
        let sent = try rig.forward(frames: 30)
        let wanted = Array(sent.suffix(12))
        let uniqueBytes = wanted.reduce(0) { $0 + $1.count }
        for _ in 0..<20 {
            try rig.fromViewer(Self.nack(wanted.map(ForwardingNodeTests.sequenceNumber), repeated: 100))
            rig.clock.advance(milliseconds: 1)
        }
        let resent = try ForwardingNodeTests.drain(rig.viewer)
        let counters = try #require(rig.node.counters(for: "viewer"))
        #expect(Set(resent) == Set(wanted) && resent.count == wanted.count)
        #expect(resent.reduce(0) { $0 + $1.count } <= 2 * uniqueBytes)
        #expect(counters.nacked == 20 * 12 && counters.retransmitted == 12 && counters.retransmissionsRefused == 19 * 12)
    }

    /// In plaintext mode, one RTP packet from a stranger neither gets forwarded nor re-points
    /// where PLIs go; a run of eight valid packets from one new address (the publisher moved) does.
    @Test func plaintextNodePinsThePublishersAddress() throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let publisher = try TestPublisher(plan: plan)
        let clock = ManualClock()
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(
            plan: plan, layerSSRCs: publisher.ssrcs, publisherKeys: nil, feedbackKeys: nil), clock: clock.mediaClock)
        let first = NetworkEndpoint.loopback(port: 41_000), stranger = NetworkEndpoint.loopback(port: 41_001)
        let packets = try publisher.nextFramePackets()
        node.handle(datagram: packets[0], from: first)
        #expect(node.publisherEndpoint == first)
        node.handle(datagram: packets[1], from: stranger)
        #expect(node.publisherEndpoint == first && node.counters.foreignSourcePackets == 1)
        #expect(node.counters.mediaPackets == 1)
        // Sender reports from the stranger are dropped too.
        let report = try RTCPCompoundPacket(packets: [.senderReport(SenderReport(ssrc: 1000, ntpTimestamp: 1, rtpTimestamp: 1,
                                                                                 packetCount: 1, octetCount: 1))]).serialized()
        node.handle(datagram: report, from: stranger)
        #expect(node.counters.publisherRTCP == 0 && node.counters.foreignSourcePackets == 2)
        // The publisher moves: a run of packets from its new address takes over.
        var more: [[UInt8]] = []
        while more.count < 8 { more += try publisher.nextFramePackets() }
        // With the stray RTP packet above, the seventh in a row is the eighth valid one.
        for packet in more.prefix(6) { node.handle(datagram: packet, from: stranger) }
        #expect(node.publisherEndpoint == first)
        node.handle(datagram: more[6], from: stranger)
        #expect(node.publisherEndpoint == stranger && node.publisherSource.takeovers == 1)
    }

    /// A throttled downlink that delivers nothing leaves the subscriber's REMB where it was (it
    /// measures no loss without packets), but its receiver reports show the highest sequence
    /// number standing still while the node keeps sending: the feed's estimate falls.
    @Test func receiverReportsThatShowNothingArrivingLowerTheFeedEstimate() throws {
        let rig = try Rig()
        _ = try rig.forward(frames: 5)
        func report(highest: UInt32) throws {
            try rig.fromViewer([
                .receiverReport(ReceiverReport(ssrc: 0xAB, reportBlocks: [ReportBlock(
                    ssrc: 0xD1, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: highest,
                    interarrivalJitter: 0, lastSenderReport: 0, delaySinceLastSenderReport: 0)])),
                .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 0xAB, bitrate: 3_000_000, ssrcs: [0xD1])),
            ])
        }
        try report(highest: 100)
        #expect(rig.node.estimatedBitsPerSecond(for: "viewer") == 3_000_000)
        let before = try #require(rig.node.counters(for: "viewer")).packetsSent
        _ = try rig.forward(frames: 15)  // 500 ms of media the viewer never gets
        #expect(try #require(rig.node.counters(for: "viewer")).packetsSent > before)
        try report(highest: 100)
        let estimate = try #require(rig.node.estimatedBitsPerSecond(for: "viewer"))
        #expect(estimate == 30_000)  // nothing delivered: the floor
        #expect(try rig.node.stats(for: "viewer").estimatedBitsPerSecond == estimate)
        #expect(try rig.node.forwarder.stats(for: "viewer").target?.spatial == 0)
        // Delivery resumes: no loss, the ceiling grows again from what got through.
        let sentNow = try #require(rig.node.counters(for: "viewer")).packetsSent
        _ = try rig.forward(frames: 15)
        let delivered = try #require(rig.node.counters(for: "viewer")).packetsSent - sentNow
        try report(highest: 100 + UInt32(sentNow + delivered - before))
        #expect(try #require(rig.node.estimatedBitsPerSecond(for: "viewer")) > estimate)
    }

    /// The switch-event log keeps the latest events only, however long the call.
    @Test func switchEventLogIsBounded() throws {
        let rig = try Rig()
        _ = try rig.forward(frames: 2)
        var index = 0
        while rig.node.forwarder.switchEvents.totalAppended <= TrackForwarder.switchEventCapacity + 4, index < 2000 {
            let preference: EffectivePreference = index % 2 == 0 ? .quality(.low) : .quality(.high)
            try rig.node.setPreference(preference, for: "viewer")
            rig.publisher.encoder.requestKeyFrame()  // the switch happens at the next key frame
            _ = try rig.forward(frames: 1)
            index += 1
        }
        let events = rig.node.forwarder.switchEvents
        #expect(events.totalAppended > TrackForwarder.switchEventCapacity)
        #expect(events.count == TrackForwarder.switchEventCapacity && events.dropped == events.totalAppended - events.count)
    }
}

@Suite struct VideoReceiverSSRCTests {
    /// Through a real receiver: a spoofed packet of another SSRC is dropped and counted, the
    /// stream goes on.
    @Test func videoReceiverIgnoresAStraySSRC() throws {
        let receiver = try VideoReceiver(configuration: .init(localSSRC: 7))
        func packet(ssrc: UInt32, sequence: UInt16) throws -> RTPPacket {
            var bytes: [UInt8] = []
            try RTPHeader(payloadType: 96, sequenceNumber: sequence, timestamp: 0, ssrc: ssrc).serialize(into: &bytes)
            bytes += [0x90, 0x80, 0x01, 0x00]
            return try RTPPacket(parsing: bytes)
        }
        receiver.receive(try packet(ssrc: 1, sequence: 1), wireBytes: 16, arrivalMicroseconds: 0)
        receiver.receive(try packet(ssrc: 99, sequence: 7), wireBytes: 16, arrivalMicroseconds: 1000)
        #expect(receiver.mediaSSRC == 1)
        #expect(receiver.statistics(nowMicroseconds: 1000).otherSSRCPackets == 1)
    }
}
