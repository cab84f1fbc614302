import MediaCodecs
import RTPWire
import SessionCore
import Simulcast
@testable import EngineCore

/// A subscriber that sends transport-wide feedback, behind a relay whose forward link is a
/// bottleneck (`capacityBitsPerSecond`, 20 ms each way): what the congestion-control loopback
/// tests squeeze. Its REMB starts high (as the engine's receivers do), so the sender's own
/// estimate decides.
struct BottleneckedSubscriber {
    let subscriber: Subscriber
    let relay: NetworkImpairmentRelay

    init(clock: ManualClock, capacityBitsPerSecond: Int, localSSRC: UInt32 = 0x88) throws {
        let socket = try UDPSocket()
        try socket.setReceiveBufferSize(1 << 20)
        relay = try NetworkImpairmentRelay(
            receiver: socket.localEndpoint,
            forward: .init(oneWayDelayMicroseconds: 20_000, capacityBitsPerSecond: capacityBitsPerSecond),
            backward: .init(oneWayDelayMicroseconds: 20_000), clock: clock.mediaClock)
        subscriber = try Subscriber(configuration: SubscriberConfiguration(
            localSSRC: localSSRC, security: .insecurePlaintext, senderRTCPEndpoint: relay.receiverFacingEndpoint,
            video: VideoReceiver.Configuration(localSSRC: localSSRC, bandwidth: .init(initialBitsPerSecond: 5_000_000)),
            sendsTransportFeedback: true), transport: socket, clock: clock.mediaClock)
    }
}

/// Bytes sent, sampled over time: the rate over the last 500 ms.
struct SentBytesWindow {
    private var samples: [(at: Int64, bytes: Int)] = []

    mutating func record(atMicroseconds at: Int64, totalBytes: Int) { samples.append((at, totalBytes)) }

    /// Bits per second over the last 500 ms (0 before that much was recorded).
    var bitsPerSecond: Double {
        guard let last = samples.last, let start = samples.last(where: { $0.at <= last.at - 500_000 }) else { return 0 }
        return Double(last.bytes - start.bytes) * 8 / (Double(last.at - start.at) / 1_000_000)
    }
}

/// A plain-RTP publisher (no estimation of its own) sending the 640x360 test scene to a
/// `ForwardingNode` that estimates its subscribers' downlinks, on a simulated clock.
struct DownlinkEstimatingNode {
    let clock = ManualClock()
    let node: ForwardingNode
    let publisher: Publisher
    let source: VideoSource

    /// `transport`: the node's (nil: a UDP socket on loopback).
    init(firstSSRC: UInt32, estimation: SendSideBandwidthEstimator.Configuration, seed: UInt64,
         transport: (any DatagramTransport)? = nil) throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: firstSSRC)
        var configuration = ForwardingNodeConfiguration(plan: plan, layerSSRCs: video.ssrcs, publisherKeys: nil, feedbackKeys: nil)
        configuration.downlinkEstimation = estimation
        node = try ForwardingNode(configuration: configuration, transport: transport, clock: clock.mediaClock)
        var random = SplitMix64(seed: seed)
        publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .insecure, cname: "downlink"),
            transport: try UDPSocket(), routing: try PublisherRouting(destination: node.localEndpoint),
            clock: clock.mediaClock, using: &random)
        source = try VideoSource(testSceneWidth: 640, height: 360)
    }

    /// Encodes and sends the scene's next frame.
    func sendFrame() throws {
        if let frame = try source.nextFrame() { try publisher.send(video: frame) }
    }

    /// Runs the call for `milliseconds` of simulated time in 5 ms steps, a frame at once and then
    /// every 33.3 ms: the node, `subscriber`, the `relay` between them if any (both ways), and the
    /// publisher's feedback; `afterStep` after each step.
    func run(milliseconds: Int64, subscriber: Subscriber, relay: NetworkImpairmentRelay? = nil,
             afterStep: () -> Void = {}) throws {
        let end = clock.now + milliseconds * 1000
        var nextFrame = clock.now
        while clock.now < end {
            if clock.now >= nextFrame {
                try sendFrame()
                nextFrame += 33_333
            }
            clock.advance(milliseconds: 5)
            try node.poll(timeoutMilliseconds: 0)
            node.service()
            _ = try relay?.service()
            try subscriber.step(timeoutMilliseconds: 0)
            _ = try relay?.service()
            try node.poll(timeoutMilliseconds: 0)
            while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
            afterStep()
        }
    }
}
