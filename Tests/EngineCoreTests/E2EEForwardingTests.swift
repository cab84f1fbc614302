import MediaCodecs
import RTPWire
import SFrame
import SessionCore
import Simulcast
import Testing
@testable import EngineCore

/// End-to-end encryption through a forwarding node that holds no key (RFC 9605 per-frame
/// SFrame): every frame the subscriber decodes was opened with the publisher's key, what the node
/// forwarded is not the plaintext (only the clear VP8 payload header is), the node still
/// switches layers at key frames, and a subscriber with the wrong key decodes nothing while
/// counting every frame it refused.
@Suite struct E2EEForwardingTests {
    /// Records the payload of every RTP packet the node sends its subscriber (plain RTP here, so
    /// what the node forwarded can be read; with SRTP only the hop key changes).
    final class Tap: ForwardingLink {
        var payloads: [[UInt8]] = []
        func transmit(_ datagram: ArraySlice<UInt8>, nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void) {
            if let packet = try? RTPPacket(parsing: datagram), !(192...223).contains(datagram[datagram.startIndex + 1]),
               let (_, frameBytes) = try? VP8PayloadDescriptor.parse(packet.payload) {
                payloads.append(Array(frameBytes))
            }
            deliver(datagram)
        }
    }

    @Test func theNodeForwardsCiphertextItCannotReadAndTheSubscriberDecodesEveryFrame() throws {
        let clock = ManualClock()
        let plan = try LayerPlan(width: 640, height: 360)
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: 0x7300)
        let node = try ForwardingNode(configuration: ForwardingNodeConfiguration(plan: plan, layerSSRCs: video.ssrcs,
                                                                                 publisherKeys: nil, feedbackKeys: nil),
                                      clock: clock.mediaClock)
        let baseKey: [UInt8] = Array(100..<116)
        let viewers = try (0..<2).map { _ in try UDPSocket() }
        let taps = [Tap(), Tap()]
        var subscribers: [Subscriber] = []
        for (index, socket) in viewers.enumerated() {
            try socket.setReceiveBufferSize(1 << 20)
            try node.addSubscriber(ForwardedSubscriberConfiguration(id: "viewer\(index)", outputSSRC: 0xE0 + UInt32(index),
                                                                    destination: socket.localEndpoint, sendKeys: nil, receiveKeys: nil),
                                   link: taps[index])
            let subscriber = try Subscriber(configuration: SubscriberConfiguration(
                localSSRC: 0x90 + UInt32(index), security: .insecurePlaintext, senderRTCPEndpoint: node.localEndpoint,
                video: VideoReceiver.Configuration(localSSRC: 0x90 + UInt32(index))), transport: socket, clock: clock.mediaClock)
            // Viewer 0 holds the publisher's key; viewer 1 a wrong one.
            let receiver = SFrameReceiver(suite: .aes128CtrHmacSha256_80)
            try receiver.setKey(keyID: 5, baseKey: index == 0 ? baseKey : Array(repeating: 1, count: 16), nowMilliseconds: 0)
            subscriber.frameOpener = E2EEFrameOpener(receiver: receiver)
            subscribers.append(subscriber)
        }
        var random = SplitMix64(seed: 36)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .insecure, cname: "e2ee"),
            transport: try UDPSocket(), routing: try PublisherRouting(destination: node.localEndpoint),
            clock: clock.mediaClock, using: &random)
        publisher.frameSealer = E2EEFrameSealer(sender: try SFrameSender(suite: .aes128CtrHmacSha256_80, keyID: 5, baseKey: baseKey))
        let encoder = try SimulcastEncoder(plan: plan)
        let source = try VideoSource(testSceneWidth: 640, height: 360)
        var plaintextTopLayer: [[UInt8]] = []
        var decoded = 0
        var keyFramesAnswered = 0
        subscribers[0].onVideoFrame = { _ in decoded += 1 }
        func run(frames: Int) throws {
            for _ in 0..<frames {
                guard let frame = try source.nextFrame() else { break }
                for encoded in try encoder.encode(scaling: frame) {
                    if encoded.spatialIndex == 1 { plaintextTopLayer.append(encoded.data) }
                    try publisher.send(encoded)
                }
                clock.advance(milliseconds: 33)
                try node.poll(timeoutMilliseconds: 0)
                node.service()
                for subscriber in subscribers { try subscriber.step(timeoutMilliseconds: 0) }
                try node.poll(timeoutMilliseconds: 0)
                // The node's PLIs reach the publisher; this test encodes itself, so it answers them.
                while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
                if publisher.keyFramesRequested > keyFramesAnswered {
                    keyFramesAnswered = publisher.keyFramesRequested
                    encoder.requestKeyFrame()
                }
            }
        }
        try run(frames: 40)
        #expect(try node.stats(for: "viewer0").currentSpatialLayer == 1)
        // The viewer with the key decoded every top-layer frame; the node forwarded none of them as plaintext.
        let good = subscribers[0].statistics.video, bad = subscribers[1].statistics.video
        print("e2ee: \(plaintextTopLayer.count) top-layer frames sent, \(decoded) decoded by the key holder, "
              + "\(bad.framesUndecryptable) refused by the wrong key, \(taps[0].payloads.count) packets forwarded")
        #expect(decoded > 20 && good.decoderErrors == 0 && good.framesUndecryptable == 0)
        #expect(good.framesDecoded == good.framesAssembled - good.framesDropped)  // every frame it could decode, it opened
        let forwarded = taps[0].payloads.joined()
        #expect(!plaintextTopLayer.contains { frame in frame.count > 16 && forwarded.starts(with: frame) })
        for frame in plaintextTopLayer where frame.count > 64 {
            #expect(!forwarded.contains(frame[20..<52]), "a 32-byte run of a plaintext frame crossed the node")
        }
        // The wrong key: nothing decoded, nothing reached the decoder, every frame counted.
        #expect(bad.framesDecoded == 0 && bad.decoderErrors == 0 && bad.framesUndecryptable > 0)
        #expect(subscribers[1].frameOpener?.receiver.counters.authenticationFailures == Int(bad.framesUndecryptable))

        // Layer switching still works: viewer 0 asks for the small layer, then the large one again.
        try node.setPreference(.quality(.low), for: "viewer0")
        try run(frames: 20)
        #expect(try node.stats(for: "viewer0").currentSpatialLayer == 0)
        try node.setPreference(.quality(.high), for: "viewer0")
        try run(frames: 40)
        #expect(try node.stats(for: "viewer0").currentSpatialLayer == 1)
        #expect(subscribers[0].statistics.video.decoderErrors == 0 && subscribers[0].statistics.video.framesUndecryptable == 0)
    }
}

extension Array where Element == UInt8 {
    /// Whether `run` occurs somewhere in the array.
    func contains(_ run: ArraySlice<UInt8>) -> Bool {
        guard !run.isEmpty, run.count <= count else { return false }
        return (0...(count - run.count)).contains { self[$0..<($0 + run.count)].elementsEqual(run) }
    }
}
