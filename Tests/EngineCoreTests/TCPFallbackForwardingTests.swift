import MediaCodecs
import RTPWire
import Simulcast
import Testing
@testable import EngineCore

/// One forwarding node, one room, both transports (issue 18): a subscriber over UDP and a
/// subscriber whose UDP is blocked, connected over TCP (RFC 4571); both decode every frame with
/// zero decoder errors, and the TCP subscriber's feedback (receiver reports, key-frame requests)
/// reaches the node down its connection. Simulated clock, real sockets on loopback.
/// (`decoded` counts what each decoded: both see the same frames.) A NACK is answered over UDP
/// and ignored over TCP.
@Suite struct TCPFallbackForwardingTests {
    @Test func aNodeServesUDPAndTCPSubscribersInOneCall() throws {
        let clock = ManualClock()
        let plan = try LayerPlan(width: 640, height: 360)
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: 0x7400)
        let transport = try UDPAndTCPTransport()
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(plan: plan, layerSSRCs: video.ssrcs,
                                                                                 publisherKeys: nil, feedbackKeys: nil),
                                      transport: transport, clock: clock.mediaClock)
        // Over UDP.
        let udpSocket = try UDPSocket()
        try udpSocket.setReceiveBufferSize(1 << 20)
        let overUDP = try Subscriber(configuration: SubscriberConfiguration(
            localSSRC: 0x91, security: .insecurePlaintext, senderRTCPEndpoint: node.localEndpoint,
            video: VideoReceiver.Configuration(localSSRC: 0x91)), transport: udpSocket, clock: clock.mediaClock)
        try node.addSubscriber(ForwardedSubscriberConfiguration(id: "udp", outputSSRC: 0xE1, destination: udpSocket.localEndpoint,
                                                                sendKeys: nil, receiveKeys: nil))
        // Over TCP: the node knows it by the connection that proved itself.
        let connection = try transport.connectProven()
        let overTCP = try Subscriber(configuration: SubscriberConfiguration(
            localSSRC: 0x92, security: .insecurePlaintext, senderRTCPEndpoint: transport.tcpEndpoint,
            video: VideoReceiver.Configuration(localSSRC: 0x92)), transport: connection, clock: clock.mediaClock)
        try node.addSubscriber(ForwardedSubscriberConfiguration(id: "tcp", outputSSRC: 0xE2, destination: connection.localEndpoint,
                                                                sendKeys: nil, receiveKeys: nil))
        var random = SplitMix64(seed: 37)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .insecure, cname: "mixed"),
            transport: try UDPSocket(), routing: try PublisherRouting(destination: node.localEndpoint),
            clock: clock.mediaClock, using: &random)
        let source = try VideoSource(testSceneWidth: 640, height: 360)
        var decoded = (udp: 0, tcp: 0)
        overUDP.onVideoFrame = { _ in decoded.udp += 1 }
        overTCP.onVideoFrame = { _ in decoded.tcp += 1 }
        var sent = 0
        for _ in 0..<90 {
            if let frame = try source.nextFrame() { try publisher.send(video: frame) }
            sent += 1
            clock.advance(milliseconds: 33)
            for _ in 0..<3 {
                try node.poll(timeoutMilliseconds: 0)
                node.service()
                try overUDP.step(timeoutMilliseconds: 0)
                try overTCP.step(timeoutMilliseconds: 0)
            }
            while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
        }
        try node.poll(timeoutMilliseconds: 20)
        try overTCP.step(timeoutMilliseconds: 20)
        let (udpStats, tcpStats) = (overUDP.statistics.video, overTCP.statistics.video)
        print("mixed transports: \(sent) frames sent; decoded over UDP \(decoded.udp), over TCP \(decoded.tcp); "
              + "TCP peers \(transport.tcpPeers.count), node RTCP from the TCP subscriber: \(node.counters(for: "tcp")!.lastReportBlock != nil)")
        #expect(transport.tcpPeers == [connection.localEndpoint] && transport.tcpCounters.accepted == 1 && transport.tcpCounters.verified == 1)
        // The same frames over either transport (the forwarder's first seconds, layer start and
        // up-switch included, are the same for both).
        #expect(decoded.udp > 30 && decoded.tcp == decoded.udp)
        #expect(udpStats.decoderErrors == 0 && tcpStats.decoderErrors == 0)
        #expect(tcpStats.packetsLost == 0)  // TCP retransmits: nothing to NACK
        #expect(node.counters(for: "tcp")?.lastReportBlock != nil)  // its RTCP came back over TCP
        #expect(connection.droppedForBackPressure == 0 && transport.connection(for: connection.localEndpoint)?.droppedForBackPressure == 0)

        // A NACK over UDP is answered (from history); the same NACK over TCP is ignored and counted:
        // TCP already retransmits. Key-frame requests still work either way (above: both decoded).
        func nack(from ssrc: UInt32, about mediaSSRC: UInt32) throws -> [UInt8] {
            try RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: ssrc)),
                                             .genericNACK(GenericNACK(senderSSRC: ssrc, mediaSSRC: mediaSSRC, lostSequenceNumbers: [7]))])
                .serialized()
        }
        let (udpBefore, tcpBefore) = (node.counters(for: "udp")!, node.counters(for: "tcp")!)
        try udpSocket.send(nack(from: 0x91, about: 0xE1), to: node.localEndpoint)
        try connection.send(nack(from: 0x92, about: 0xE2), to: connection.peer)
        for _ in 0..<10 { try node.poll(timeoutMilliseconds: 10) }
        let (udpAfter, tcpAfter) = (node.counters(for: "udp")!, node.counters(for: "tcp")!)
        #expect(udpAfter.nacked == udpBefore.nacked + 1 && udpAfter.nacksIgnoredOverStream == 0)
        #expect(tcpAfter.nacked == tcpBefore.nacked && tcpAfter.nacksIgnoredOverStream == tcpBefore.nacksIgnoredOverStream + 1)
        #expect(tcpAfter.retransmitted == tcpBefore.retransmitted)
        #expect(overTCP.statistics.video.nackRequests == 0)
    }
}
