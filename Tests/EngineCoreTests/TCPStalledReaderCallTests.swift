import MediaCodecs
import SessionCore
import RTPWire
import Simulcast
import Testing
@testable import EngineCore

/// Issue 18's stalled reader, on a real call and the real clock: a subscriber over TCP (RFC 4571)
/// stops reading for 3 s while the publisher keeps sending. The node's send queue to it stays
/// within its limit (what does not fit is dropped and counted, whole datagrams, so the framing
/// survives), and when the subscriber reads again it decodes the backlog, then, past the gap, a
/// new key frame (no NACKs over TCP: the node's estimate saw the stall and moves the reader down a
/// layer, which starts at a key frame), with zero decoder errors, at full rate again. Real time: the kernel's TCP
/// timers and buffers are part of what is tested, so no simulated clock.
@Suite(.serialized) struct TCPStalledReaderCallTests {
    @Test func aReaderThatStopsFor3SecondsCostsBoundedMemoryAndRecoversWithAKeyFrame() throws {
        let clock = MediaClock.system
        let plan = try LayerPlan(width: 640, height: 360)
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: 0x7600)
        // A small queue and kernel buffers, so 3 s of the top layer cannot all wait. (The reader's
        // buffer stays at 32 KiB: far below loopback's 64 KiB MSS, window updates stall on the
        // sender's persist timer, which is not what this test is about.)
        let queueLimit = 8 * 1024
        let transport = try UDPAndTCPTransport(sendQueueLimit: queueLimit, socketBufferBytes: 16 * 1024)
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(plan: plan, layerSSRCs: video.ssrcs,
                                                                                 publisherKeys: nil, feedbackKeys: nil),
                                      transport: transport, clock: clock)
        let connection = try transport.connectProven(socketBufferBytes: 32 * 1024)
        let subscriber = try Subscriber(configuration: SubscriberConfiguration(
            localSSRC: 0x93, security: .insecurePlaintext, senderRTCPEndpoint: transport.tcpEndpoint,
            video: VideoReceiver.Configuration(localSSRC: 0x93)), transport: connection, clock: clock)
        try node.addSubscriber(ForwardedSubscriberConfiguration(id: "tcp", outputSSRC: 0xE3, destination: connection.localEndpoint,
                                                                sendKeys: nil, receiveKeys: nil))
        var random = SplitMix64(seed: 41)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .insecure, cname: "stalled"),
            transport: try UDPSocket(), routing: try PublisherRouting(destination: node.localEndpoint),
            clock: clock, using: &random)
        let source = try VideoSource(testSceneWidth: 640, height: 360)
        var decoded = 0, sent = 0
        var decodeTimes: [Int64] = []
        subscriber.onVideoFrame = { _ in
            decoded += 1
            decodeTimes.append(clock.monotonicMicroseconds() / 1000)
        }

        /// Sends a frame every 33 ms for `seconds`, the node and (when `reading`) the subscriber
        /// serviced between frames; the largest queue toward the subscriber seen.
        func run(seconds: Double, reading: Bool) throws -> Int {
            var largestQueue = 0
            let start = clock.monotonicMicroseconds()
            var next = start
            while clock.monotonicMicroseconds() - start < Int64(seconds * 1_000_000) {
                if clock.monotonicMicroseconds() >= next {
                    if let frame = try source.nextFrame() {
                        try publisher.send(video: frame)
                        sent += 1
                    }
                    next += 33_333
                }
                try node.poll(timeoutMilliseconds: 2)
                node.service()
                if reading { try subscriber.step(timeoutMilliseconds: 0) }
                while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
                largestQueue = max(largestQueue, transport.connection(for: connection.localEndpoint)?.queuedBytes ?? 0)
            }
            return largestQueue
        }

        _ = try run(seconds: 1.5, reading: true)
        let before = (decoded: decoded, stats: subscriber.statistics.video)
        let stalledQueue = try run(seconds: 3, reading: false)
        let nodeSide = try #require(transport.connection(for: connection.localEndpoint))
        let droppedWhileStalled = nodeSide.droppedForBackPressure
        let resumedAt = clock.monotonicMicroseconds() / 1000
        _ = try run(seconds: 2.5, reading: true)
        // The backlog decodes at once; then the gap, the key-frame request and the key frame.
        let afterResume = decodeTimes.filter { $0 >= resumedAt }.map { $0 - resumedAt }
        let longestWait = zip(afterResume, afterResume.dropFirst()).map { $1 - $0 }.max() ?? 0
        let (recovering, sentBefore) = (decoded, sent)
        _ = try run(seconds: 1.5, reading: true)
        let after = subscriber.statistics.video
        print("TCP reader stalled 3 s: largest queue \(stalledQueue) B (limit \(queueLimit)), \(droppedWhileStalled) datagrams dropped "
              + "at the node; before \(before.decoded) frames decoded, after \(decoded) (key-frame requests "
              + "\(before.stats.keyFrameRequests) → \(after.keyFrameRequests), key frames decoded "
              + "\(before.stats.keyFramesDecoded) → \(after.keyFramesDecoded), the longest wait after resuming \(longestWait) ms), "
              + "\(decoded - recovering) of \(sent - sentBefore) sent in the last 1.5 s, "
              + "decoder errors \(after.decoderErrors), NACKs \(after.nackRequests); the publisher made \(publisher.keyFramesRequested) "
              + "requested key frame(s), layer switches \(node.forwarder.switchEvents.drain().map { "\($0.1.from.map { "\($0)" } ?? "-")→\($0.1.to.map { "\($0)" } ?? "-") \($0.1.reason)" })")
        #expect(before.decoded > 20)
        #expect(stalledQueue <= queueLimit)
        #expect(droppedWhileStalled > 0)
        #expect(after.keyFramesDecoded > before.stats.keyFramesDecoded)
        #expect(longestWait < 1_000)
        #expect(decoded - recovering >= (sent - sentBefore) * 3 / 4)  // steady again
        #expect(after.decoderErrors == 0)
        #expect(after.nackRequests == 0)
    }
}
