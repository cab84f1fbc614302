import MediaCodecs
import RTPWire
import SRTP
import Simulcast
import Testing
@testable import EngineCore
import SessionCore

/// docs/sending-caps.md `setWebcamQuality` reaching the forwarding side in band (issue 12): a real publisher
/// (1280x720, three layers, SRTP) → `ForwardingNode` → a subscriber with a 640x360 viewport, all
/// on loopback UDP with a hand-moved clock. The publisher caps itself to `.low`; nobody calls the
/// node; the subscriber moves from 640x360 to 320x180 with no frozen interval over 500 ms, and
/// back up when the cap is lifted.
@Suite(.serialized) struct WebcamQualityInBandTests {
    @Test func cappingThePublisherMovesTheSubscriberDownWithoutACallOnTheNode() throws {
        let clock = ManualClock()
        let plan = try LayerPlan(width: 1280, height: 720)
        let publisherKeys = try TestKeys.material(0x21), feedbackKeys = try TestKeys.material(0x22)
        let downKeys = try TestKeys.material(0x23), upKeys = try TestKeys.material(0x24)
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: 0x4000)
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(
            plan: plan, layerSSRCs: video.ssrcs, publisherKeys: publisherKeys, feedbackKeys: feedbackKeys),
            clock: clock.mediaClock)
        var random = SplitMix64(seed: 12)
        let publisherSocket = try UDPSocket()
        try publisherSocket.setReceiveBufferSize(1 << 20)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .srtp(local: publisherKeys, remote: feedbackKeys),
                                                  cname: "cap"),
            transport: publisherSocket, routing: try PublisherRouting(destination: node.localEndpoint),
            clock: clock.mediaClock, using: &random)
        let subscriberSocket = try UDPSocket()
        try subscriberSocket.setReceiveBufferSize(1 << 20)
        let subscriber = try Subscriber(configuration: SubscriberConfiguration(
            localSSRC: 0x77, security: .srtp(receiveKeys: downKeys, sendKeys: upKeys), senderRTCPEndpoint: node.localEndpoint),
            transport: subscriberSocket, clock: clock.mediaClock)
        try node.addSubscriber(ForwardedSubscriberConfiguration(
            id: "viewer", outputSSRC: 0x99, destination: subscriberSocket.localEndpoint, sendKeys: downKeys,
            receiveKeys: upKeys, preference: .viewPort(VideoSize(width: 640, height: 360))))
        var decoded: [(atMicroseconds: Int64, width: Int)] = []
        subscriber.onVideoFrame = { decoded.append((clock.now, $0.width)) }
        let source = try VideoSource(testSceneWidth: 1280, height: 720)

        func run(frames: Int) throws {
            for _ in 0..<frames {
                if let frame = try source.nextFrame() { try publisher.send(video: frame) }
                for _ in 0..<3 {
                    clock.advance(milliseconds: 11)
                    try node.poll(timeoutMilliseconds: 2)
                    node.service()
                    try subscriber.step(timeoutMilliseconds: 2)
                    try node.poll(timeoutMilliseconds: 1)
                    while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
                }
            }
        }
        try run(frames: 30)
        #expect(decoded.last?.width == 640)
        let capped = clock.now
        try publisher.setWebcamQuality(.low)
        try run(frames: 30)
        let afterCap = decoded.filter { $0.atMicroseconds > capped }
        #expect(afterCap.last?.width == 320)
        let firstLow = try #require(afterCap.first { $0.width == 320 })
        let lastBefore = decoded.last { $0.atMicroseconds <= capped }?.atMicroseconds ?? capped
        #expect(firstLow.atMicroseconds - lastBefore <= 500_000, "frozen \(firstLow.atMicroseconds - lastBefore) µs")
        var gaps = zip(decoded, decoded.dropFirst()).map { $1.atMicroseconds - $0.atMicroseconds }
        #expect(gaps.allSatisfy { $0 <= 500_000 }, "largest gap \(gaps.max() ?? 0) µs")
        #expect(node.forwarder.switchEvents.contains { $0.event.to?.spatial == 0 })

        // Lifting the cap: the layer comes back with its first packet and the viewer climbs back.
        let lifted = clock.now
        try publisher.setWebcamQuality(.high)
        try run(frames: 120)
        #expect(decoded.last?.width == 640)
        gaps = zip(decoded, decoded.dropFirst()).map { $1.atMicroseconds - $0.atMicroseconds }
        #expect(gaps.allSatisfy { $0 <= 500_000 })
        print("cap .low: first 320x180 frame \((firstLow.atMicroseconds - capped) / 1000) ms after the call; back to 640x360 \(((decoded.first { $0.atMicroseconds > lifted && $0.width == 640 }?.atMicroseconds ?? 0) - lifted) / 1000) ms after .high")
    }
}
