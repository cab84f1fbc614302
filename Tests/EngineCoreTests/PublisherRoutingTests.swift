import EngineCore
import Foundation
import MediaCodecs
import RTPWire
import Simulcast
import Testing

/// `PublisherRouting` on the publish path: per-stream routes, the RTCP port rules (RFC 3550 §11
/// port + 1 without mux) and the peers whose feedback is taken; `Publisher(configuration:destination:)`.
@Suite struct PublisherRoutingTests {
    @Test func eachStreamGoesWhereItsRouteSaysAndItsRTCPToThePortAbove() throws {
        let main = NetworkEndpoint.loopback(port: 5000), top = NetworkEndpoint.loopback(port: 6000)
        var routing = try PublisherRouting(destination: main, rtcpMux: false)
        try routing.route(ssrc: 1001, to: top)
        let transport = MemoryTransport()
        var random = SplitMix64(seed: 5)
        let plan = try LayerPlan(width: 640, height: 360)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 1000), security: .insecure),
            transport: transport, routing: routing, clock: ManualClock().mediaClock, using: &random)
        let source = try VideoSource(testSceneWidth: 640, height: 360)
        try publisher.send(video: try #require(try source.nextFrame()))
        var seen: Set<String> = []
        for datagram in transport.sent {
            let isRTCP = try RTPOrRTCP.classify(datagram.bytes[...]) == .rtcp
            let base = datagram.ssrc == 1001 ? top : main
            #expect(datagram.peer == (isRTCP ? NetworkEndpoint.loopback(port: base.port + 1) : base))
            seen.insert("\(datagram.ssrc) \(isRTCP ? "rtcp" : "rtp")")
        }
        #expect(seen == ["1000 rtp", "1000 rtcp", "1001 rtp", "1001 rtcp"])
        for peer in [main, top, .loopback(port: 5001), .loopback(port: 6001)] { #expect(publisher.path.routing.isPeer(peer)) }
        #expect(!publisher.path.routing.isPeer(.loopback(port: 5002)))
        #expect(throws: PublisherError.network(.portOutOfRange(65536))) {
            try PublisherRouting(destination: .loopback(port: 65535), rtcpMux: false)
        }
    }

    @Test func theShortInitializerSendsFromALoopbackSocketOfItsOwn() throws {
        let receiver = try UDPSocket()
        let publisher = try Publisher(configuration: PublisherConfiguration(audio: AudioTrackConfiguration(ssrc: 7), security: .insecure),
                                      destination: receiver.localEndpoint)
        try publisher.send(audio: TestSignal().frame(0))
        var buffer = [UInt8](repeating: 0, count: 2048)
        let got = try #require(try buffer.withUnsafeMutableBytes { try receiver.receive(into: $0, timeoutMilliseconds: 1000) })
        #expect(got.from == NetworkEndpoint(address: 0x7F00_0001, port: publisher.path.transport.localEndpoint.port))
        #expect(try RTPOrRTCP.classify(buffer[0..<got.count]) == .rtp)
        #expect(publisher.path.datagramsSent >= 1)
    }
}
