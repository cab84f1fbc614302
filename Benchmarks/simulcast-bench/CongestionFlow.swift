import EngineCore
import RTPWire
import MediaCodecs
import SessionCore
import Simulcast

/// One media flow of a congestion case: a publisher with send-side estimation (GCC, probing,
/// the estimate split across its layers) sending a real VP8 simulcast camera through the
/// bottleneck to a forwarding node that answers with transport-wide feedback (on a way back of
/// its own when the flow has a round-trip time of its own).
final class CongestionFlow {
    let publisher: Publisher
    let node: ForwardingNode
    let nodePort: SimulatedNetwork.Port
    private let source: VideoSource
    private var nextFrameMicroseconds: Int64
    private(set) var lastSentBytes: UInt64 = 0

    init(index: Int, width: Int, height: Int, network: SimulatedNetwork, returnDelayMilliseconds: Int64? = nil) throws {
        let plan = try LayerPlan(width: width, height: height)
        var random = SplitMix64(seed: UInt64(41 + index))
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: 0x4000_0000 + UInt32(index) * 0x100)
        nodePort = network.makePort()
        var configuration = ForwardingNodeConfiguration(plan: plan, layerSSRCs: video.ssrcs, publisherKeys: nil, feedbackKeys: nil)
        configuration.sendsTransportFeedback = true
        node = try ForwardingNode(configuration: configuration, transport: nodePort, clock: network.clock)
        let publisherPort = network.makePort()
        if let returnDelayMilliseconds {
            network.pathsByDestination[publisherPort.localEndpoint] = NetworkImpairment(
                configuration: .init(oneWayDelayMicroseconds: returnDelayMilliseconds * 1000))
        }
        publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .insecure, cname: "flow\(index)",
                                                  sendSideEstimation: .init(initialBitsPerSecond: 300_000)),
            transport: publisherPort, routing: PublisherRouting(destination: nodePort.localEndpoint),
            clock: network.clock, using: &random)
        source = try VideoSource(testSceneWidth: plan.top.width, height: plan.top.height, seed: UInt64(7 + index))
        nextFrameMicroseconds = network.nowMicroseconds
    }

    /// Encodes and sends the frame that is due (30 fps; while `sending` is false, paused: frames
    /// are skipped), then lets the node and publisher handle what arrived.
    func step(nowMicroseconds now: Int64, sending: Bool = true) throws {
        if now >= nextFrameMicroseconds {
            if sending, let frame = try source.nextFrame() { try publisher.send(video: frame) }
            nextFrameMicroseconds += 33_333
        }
        _ = try node.poll(timeoutMilliseconds: 0)
        node.service()
        while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
    }

    /// Bytes the publisher has put on the wire (media, retransmissions, probes).
    var sentBytes: UInt64 {
        publisher.videoSenders.reduce(0) { $0 + $1.wireBytes } + (publisher.probeSender?.wireBytes ?? 0)
    }
}
