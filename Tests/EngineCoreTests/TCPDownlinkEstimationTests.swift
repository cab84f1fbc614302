import MediaCodecs
import SessionCore
import Simulcast
import Testing
@testable import EngineCore

/// Media over TCP behaves like media over TCP (issue 18): when the path slows down nothing is
/// lost, packets wait (head-of-line blocking in the kernel's buffers and the node's send queue),
/// and that delay is what the node's send-side estimate (GCC, from the viewer's transport-wide
/// feedback) must see to move the viewer down a layer. Real TCP on loopback, simulated time: the
/// viewer reads only as fast as its path delivers (`SlowTCPReader`).
@Suite struct TCPDownlinkEstimationTests {
    @Test func aSlowTCPPathShowsUpAsDelayAndMovesTheViewerDownWithoutLoss() throws {
        let transport = try UDPAndTCPTransport()
        let rig = try DownlinkEstimatingNode(firstSSRC: 0x7400, estimation: .init(initialBitsPerSecond: 1_000_000), seed: 41,
                                             transport: transport)
        let (clock, node) = (rig.clock, rig.node)
        let reader = SlowTCPReader(connection: try TCPFramedConnection.connect(to: transport.tcpEndpoint),
                                   bitsPerSecond: 3_000_000, clock: clock.mediaClock)
        let viewer = try Subscriber(configuration: SubscriberConfiguration(
            localSSRC: 0x89, security: .insecurePlaintext, senderRTCPEndpoint: transport.tcpEndpoint,
            video: VideoReceiver.Configuration(localSSRC: 0x89, bandwidth: .init(initialBitsPerSecond: 5_000_000)),
            sendsTransportFeedback: true), transport: reader, clock: clock.mediaClock)
        try transport.acceptPending()
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "viewer", outputSSRC: 0xD4, destination: reader.localEndpoint, sendKeys: nil, receiveKeys: nil))
        var decoded = 0
        viewer.onVideoFrame = { _ in decoded += 1 }
        func run(milliseconds: Int64) throws { try rig.run(milliseconds: milliseconds, subscriber: viewer) }
        func layer() throws -> Int? { try node.stats(for: "viewer").currentSpatialLayer }

        try run(milliseconds: 4_000)
        let before = node.estimatedBitsPerSecond(for: "viewer") ?? 0
        #expect(node.counters(for: "viewer")!.transportFeedbacksReceived > 30)
        #expect(before >= 700_000)
        #expect(try layer() == 1)
        reader.bitsPerSecond = 300_000
        let squeezed = clock.now
        var downAt: Int64?
        while clock.now - squeezed < 6_000_000 {
            try run(milliseconds: 100)
            if downAt == nil, (node.estimatedBitsPerSecond(for: "viewer") ?? .max) < 330_000, try layer() == 0 {
                downAt = clock.now - squeezed
            }
        }
        let connection = try #require(transport.connection(for: reader.localEndpoint))
        let stats = viewer.statistics.video
        print("TCP downlink: \(before) bps estimated at 3 Mbps; path slowed to 300 kbps: estimate under 330 kbps with the "
              + "viewer on layer 0 after \(downAt.map { "\($0 / 1000) ms" } ?? "never"), now \(node.estimatedBitsPerSecond(for: "viewer") ?? 0) bps; "
              + "node queue \(connection.queuedBytes) bytes, \(connection.droppedForBackPressure) dropped for back-pressure; "
              + "viewer: \(decoded) frames, \(stats.packetsLost) lost, \(stats.nackRequests) NACKs, \(stats.decoderErrors) decoder errors")
        #expect((downAt ?? .max) <= 3_000_000)
        #expect(stats.decoderErrors == 0 && stats.nackRequests == 0)
        #expect(connection.droppedForBackPressure == 0)  // it moved down before the queue overflowed
        #expect(decoded > 250)
    }
}
