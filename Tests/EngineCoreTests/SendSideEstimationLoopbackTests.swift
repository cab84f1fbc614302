import MediaCodecs
import RTPWire
import SessionCore
import Simulcast
import Testing
@testable import EngineCore

/// Congestion control end to end on loopback UDP, in simulated time: a publisher with send-side
/// estimation, a subscriber sending transport-wide feedback, and between them a relay whose
/// forward link is a bottleneck (rate + 300 ms FIFO) that is squeezed mid-call.
@Suite struct SendSideEstimationLoopbackTests {
    @Test func aSqueezedLinkBringsTheSendRateUnderItWithinTwoSecondsAndProbingBringsTheTopLayerBack() throws {
        let clock = ManualClock()
        let path = try BottleneckedSubscriber(clock: clock, capacityBitsPerSecond: 3_000_000)
        let (relay, subscriber) = (path.relay, path.subscriber)
        let plan = try LayerPlan(width: 640, height: 360)
        var random = SplitMix64(seed: 21)
        let publisherSocket = try UDPSocket()
        try publisherSocket.setReceiveBufferSize(1 << 20)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: VideoTrackConfiguration(plan: plan, firstSSRC: 0x6000),
                                                  security: .insecure, cname: "cc",
                                                  sendSideEstimation: .init(initialBitsPerSecond: 1_500_000)),
            transport: publisherSocket, routing: try PublisherRouting(destination: relay.senderFacingEndpoint),
            clock: clock.mediaClock, using: &random)
        var decoded = 0
        subscriber.onVideoFrame = { _ in decoded += 1 }
        let source = try VideoSource(testSceneWidth: 640, height: 360)

        var sent = SentBytesWindow()
        func run(milliseconds: Int64) throws {
            let end = clock.now + milliseconds * 1000
            var nextFrame = clock.now
            while clock.now < end {
                if clock.now >= nextFrame {
                    if let frame = try source.nextFrame() { try publisher.send(video: frame) }
                    nextFrame += 33_333
                }
                clock.advance(milliseconds: 5)
                _ = try relay.service()
                try subscriber.step(timeoutMilliseconds: 0)
                _ = try relay.service()
                while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
                sent.record(atMicroseconds: clock.now, totalBytes: Int(publisher.videoSenders.reduce(0) { $0 + $1.wireBytes }))
            }
        }
        func sendRate() -> Double { sent.bitsPerSecond }

        try run(milliseconds: 3_000)
        #expect(publisher.transportFeedbacksReceived > 20)
        #expect(publisher.rembActiveLayerCount == 2)
        let before = publisher.estimatedBitsPerSecond ?? 0
        let rateBefore = sendRate()
        relay.forward.configuration.capacityBitsPerSecond = 300_000
        let squeezed = clock.now
        var underAt: Int64?
        while clock.now - squeezed < 4_000_000 {
            try run(milliseconds: 100)
            if underAt == nil, sendRate() < 330_000, publisher.rembActiveLayerCount == 1 { underAt = clock.now - squeezed }
        }
        print("send-side estimation: \(before) bps estimated and \(Int(rateBefore)) bps sent at 3 Mbps; squeezed to 300 kbps: "
              + "under 330 kbps with the top layer paused after \(underAt.map { "\($0 / 1000) ms" } ?? "never"), "
              + "estimate \(publisher.estimatedBitsPerSecond ?? 0) bps, \(relay.forward.statistics.droppedByQueue) datagrams tail-dropped")
        #expect((underAt ?? .max) <= 2_000_000)
        #expect(sendRate() < 330_000)

        // The squeeze ends: probing climbs back (padding clusters at twice the estimate) and the
        // top layer resumes within 10 s; the subscriber drops the padding after counting it.
        relay.forward.configuration.capacityBitsPerSecond = 3_000_000
        let opened = clock.now
        let probesBefore = publisher.probeClusters
        var allLayersAt: Int64?
        while clock.now - opened < 10_000_000, allLayersAt == nil {
            try run(milliseconds: 100)
            if publisher.rembActiveLayerCount == 2 { allLayersAt = clock.now - opened }
        }
        print("send-side estimation: link open again: all layers after \(allLayersAt.map { "\($0 / 1000) ms" } ?? "never"), "
              + "estimate \(publisher.estimatedBitsPerSecond ?? 0) bps, probe clusters \(publisher.probeClusters.started - probesBefore.started) "
              + "(\(publisher.probeClusters.succeeded - probesBefore.succeeded) proved their rate), "
              + "\(subscriber.statistics.paddingPackets) padding packets counted and dropped")
        #expect((allLayersAt ?? .max) <= 10_000_000)
        #expect(publisher.probeClusters.succeeded > probesBefore.succeeded)
        #expect(subscriber.statistics.paddingPackets > 0 && subscriber.statistics.video.decoderErrors == 0)
        #expect(decoded > 100)
    }
}
