import Testing
import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore

/// ForwardingNode's RTCP handling, one rule per test, with datagrams handed in directly
/// (`handle(datagram:from:)`) and the node's output read from real loopback sockets.
@Suite(.serialized) struct ForwardingNodeTests {
    static let publisherEndpoint = NetworkEndpoint.loopback(port: 40_000)

    /// A node forwarding a plain-RTP 2-layer publisher to one SRTP subscriber whose socket we
    /// read; `publisherRTCP` receives the node's feedback for the publisher.
    struct Rig {
        let node: ForwardingNode
        let publisher: TestPublisher
        let viewer: UDPSocket
        let publisherRTCP: UDPSocket
        let clock = ManualClock()

        init(preference: EffectivePreference = .quality(.high)) throws {
            let plan = try LayerPlan(width: 640, height: 360)
            publisher = try TestPublisher(plan: plan)
            publisherRTCP = try UDPSocket()
            node = try ForwardingNode(configuration: ForwardingNodeConfiguration(
                plan: plan, layerSSRCs: publisher.ssrcs, publisherKeys: nil, feedbackKeys: nil,
                publisherRTCPEndpoint: publisherRTCP.localEndpoint), clock: clock.mediaClock)
            viewer = try UDPSocket()
            try viewer.setReceiveBufferSize(1 << 20)
            try node.addSubscriber(ForwardedSubscriberConfiguration(
                id: "viewer", outputSSRC: 0xD1, destination: viewer.localEndpoint, sendKeys: try TestKeys.material(3),
                receiveKeys: nil, preference: preference))
        }

        /// Feeds `frames` frames of the publisher into the node; returns what the viewer received.
        func forward(frames: Int) throws -> [[UInt8]] {
            for _ in 0..<frames {
                clock.advance(milliseconds: 33)
                for packet in try publisher.nextFramePackets() {
                    node.handle(datagram: packet, from: ForwardingNodeTests.publisherEndpoint)
                }
            }
            return try drain(viewer)
        }

        /// The subscriber's RTCP, as if it came from its socket.
        func fromViewer(_ packets: [RTCPPacket]) throws {
            node.handle(datagram: try RTCPCompoundPacket(packets: packets).serialized(), from: viewer.localEndpoint)
        }
    }

    static func drain(_ socket: UDPSocket) throws -> [[UInt8]] {
        var received: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while let got = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0, timeoutMilliseconds: 20) }) {
            received.append(Array(buffer[0..<got.count]))
        }
        return received
    }

    /// The RTP sequence number of an SRTP packet (the header is not encrypted, RFC 3711 §3.1).
    static func sequenceNumber(_ datagram: [UInt8]) -> UInt16 { UInt16(datagram[2]) << 8 | UInt16(datagram[3]) }

    @Test func nackIsAnsweredWithTheExactProtectedBytesFirstSent() throws {
        let rig = try Rig()
        let sent = try rig.forward(frames: 3)
        #expect(sent.count > 3)
        let wanted = sent[2]
        try rig.fromViewer([
            .receiverReport(ReceiverReport(ssrc: 0xAB)),
            .genericNACK(GenericNACK(senderSSRC: 0xAB, mediaSSRC: 0xD1, lostSequenceNumbers: [Self.sequenceNumber(wanted)])),
        ])
        let resent = try Self.drain(rig.viewer)
        #expect(resent == [wanted])
        let counters = try #require(rig.node.counters(for: "viewer"))
        #expect(counters.nacked == 1 && counters.retransmitted == 1 && counters.missing == 0)
    }

    @Test func nackForAnUnknownSequenceNumberIsCountedMissing() throws {
        let rig = try Rig()
        let sent = try rig.forward(frames: 1)
        let unknown = Self.sequenceNumber(try #require(sent.last)) &+ 5000
        try rig.fromViewer([.receiverReport(ReceiverReport(ssrc: 0xAB)),
                            .genericNACK(GenericNACK(senderSSRC: 0xAB, mediaSSRC: 0xD1, lostSequenceNumbers: [unknown]))])
        #expect(try Self.drain(rig.viewer).isEmpty)
        #expect(rig.node.counters(for: "viewer")?.missing == 1)
    }

    @Test func subscriberPLIBecomesAKeyFrameRequestForItsLayer() throws {
        let rig = try Rig()
        _ = try rig.forward(frames: 2)
        _ = try Self.drain(rig.publisherRTCP)  // the start's request
        rig.clock.advance(milliseconds: 400)  // past the upstream rate limit
        try rig.fromViewer([.receiverReport(ReceiverReport(ssrc: 0xAB)),
                            .pictureLossIndication(PictureLossIndication(senderSSRC: 0xAB, mediaSSRC: 0xD1))])
        let upstream = try Self.drain(rig.publisherRTCP)
        let plis = try upstream.flatMap { try RTCPCompoundPacket(parsing: $0[...]).packets }.compactMap { packet -> UInt32? in
            if case let .pictureLossIndication(pli) = packet { return pli.mediaSSRC }
            return nil
        }
        #expect(plis == [rig.publisher.ssrcs[1]])
        #expect(rig.node.counters(for: "viewer")?.keyFrameRequestsReceived == 1)
    }

    @Test func rembLowersTheSubscribersTargetLayer() throws {
        let rig = try Rig()
        _ = try rig.forward(frames: 2)
        #expect(try rig.node.forwarder.stats(for: "viewer").target?.spatial == 1)
        try rig.fromViewer([.receiverReport(ReceiverReport(ssrc: 0xAB)),
                            .receiverEstimatedMaxBitrate(ReceiverEstimatedMaxBitrate(senderSSRC: 0xAB, bitrate: 100_000,
                                                                                     ssrcs: [0xD1]))])
        #expect(try rig.node.forwarder.stats(for: "viewer").target?.spatial == 0)
        #expect(rig.node.counters(for: "viewer")?.lastREMBBitsPerSecond == 100_000)
    }

    @Test func subscribersComeAndGoByIdAndTheRemovedOnesGetNothingMore() throws {
        let rig = try Rig()
        let other = try UDPSocket()
        try rig.node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "another", outputSSRC: 0xD2, destination: other.localEndpoint, sendKeys: try TestKeys.material(4),
            receiveKeys: nil))
        // Added again under the same id: replaced, not doubled.
        try rig.node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "another", outputSSRC: 0xD2, destination: other.localEndpoint, sendKeys: try TestKeys.material(5),
            receiveKeys: nil))
        #expect(rig.node.subscriberIds == ["another", "viewer"])
        rig.node.removeSubscriber("another")
        #expect(rig.node.subscriberIds == ["viewer"])
        #expect(try rig.forward(frames: 2).count > 2)
        #expect(try Self.drain(other).isEmpty)
    }

    @Test func garbageFromAnySideIsCountedNeverTrapped() throws {
        let rig = try Rig()
        var random = SplitMix64(seed: 99)
        for length in [0, 1, 2, 11, 12, 13, 40, 200, 1500, 3000] {
            for _ in 0..<20 {
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if length > 1, random.next() % 2 == 0 { bytes[0] = 0x80 | bytes[0] & 0x3F }  // version 2 more often
                rig.node.handle(datagram: bytes, from: Self.publisherEndpoint)
                rig.node.handle(datagram: bytes, from: rig.viewer.localEndpoint)
            }
        }
        #expect(rig.node.counters.malformed > 0)
        #expect((rig.node.counters(for: "viewer")?.rtcpErrors ?? 0) > 0)
        // Still forwarding afterwards.
        #expect(!(try rig.forward(frames: 2)).isEmpty)
    }
}
