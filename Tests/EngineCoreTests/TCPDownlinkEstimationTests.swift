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
    /// A node estimating its viewer's downlink, and one viewer connected to it over TCP.
    struct TCPViewer {
        let transport: UDPAndTCPTransport
        let rig: DownlinkEstimatingNode
        let reader: SlowTCPReader
        let viewer: Subscriber
        let connection: TCPFramedConnection

        init(seed: UInt64) throws {
            transport = try UDPAndTCPTransport()
            rig = try DownlinkEstimatingNode(firstSSRC: 0x7400, estimation: .init(initialBitsPerSecond: 1_000_000), seed: seed,
                                             transport: transport)
            reader = SlowTCPReader(connection: try transport.connectProven(seed: seed),
                                   bitsPerSecond: 3_000_000, clock: rig.clock.mediaClock)
            viewer = try Subscriber(configuration: SubscriberConfiguration(
                localSSRC: 0x89, security: .insecurePlaintext, senderRTCPEndpoint: transport.tcpEndpoint,
                video: VideoReceiver.Configuration(localSSRC: 0x89, bandwidth: .init(initialBitsPerSecond: 5_000_000)),
                sendsTransportFeedback: true), transport: reader, clock: rig.clock.mediaClock)
            try rig.node.addSubscriber(ForwardedSubscriberConfiguration(
                id: "viewer", outputSSRC: 0xD4, destination: reader.localEndpoint, sendKeys: nil, receiveKeys: nil))
            connection = try #require(transport.connection(for: reader.localEndpoint))
        }

        func run(milliseconds: Int64, afterStep: () -> Void = {}) throws {
            try rig.run(milliseconds: milliseconds, subscriber: viewer, afterStep: afterStep)
        }

        func layer() throws -> Int? { try rig.node.stats(for: "viewer").currentSpatialLayer }
    }

    @Test func aSlowTCPPathShowsUpAsDelayAndMovesTheViewerDownWithoutLoss() throws {
        let call = try TCPViewer(seed: 41)
        let (clock, node, reader) = (call.rig.clock, call.rig.node, call.reader)
        var decoded = 0
        call.viewer.onVideoFrame = { _ in decoded += 1 }
        try call.run(milliseconds: 4_000)
        let before = node.estimatedBitsPerSecond(for: "viewer") ?? 0
        #expect(node.counters(for: "viewer")!.transportFeedbacksReceived > 30)
        #expect(before >= 700_000)
        #expect(try call.layer() == 1)
        reader.bitsPerSecond = 300_000
        let squeezed = clock.now
        var downAt: Int64?
        while clock.now - squeezed < 6_000_000 {
            try call.run(milliseconds: 100)
            if downAt == nil, (node.estimatedBitsPerSecond(for: "viewer") ?? .max) < 330_000, try call.layer() == 0 {
                downAt = clock.now - squeezed
            }
        }
        let stats = call.viewer.statistics.video
        print("TCP downlink: \(before) bps estimated at 3 Mbps; path slowed to 300 kbps: estimate under 330 kbps with the "
              + "viewer on layer 0 after \(downAt.map { "\($0 / 1000) ms" } ?? "never"), now \(node.estimatedBitsPerSecond(for: "viewer") ?? 0) bps; "
              + "node queue \(call.connection.queuedBytes) bytes, \(call.connection.droppedForBackPressure) dropped for back-pressure; "
              + "viewer: \(decoded) frames, \(stats.packetsLost) lost, \(stats.nackRequests) NACKs, \(stats.decoderErrors) decoder errors")
        #expect((downAt ?? .max) <= 3_000_000)
        #expect(stats.decoderErrors == 0 && stats.nackRequests == 0)
        #expect(call.connection.droppedForBackPressure == 0)  // it moved down before the queue overflowed
        #expect(decoded > 250)
    }
}
