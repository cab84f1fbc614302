import Testing
import MediaCodecs
import RTPWire
import Simulcast
import SRTP
@testable import EngineCore

/// A node→subscriber path that loses and reorders (seeded): each datagram (media or
/// retransmission) is dropped with `loss`, or held back and sent after the next one with
/// `reorder`. The first datagram always arrives (a receiver cannot NACK what precedes the first
/// packet it ever saw).
final class ImpairedLink: ForwardingLink {
    private var random: SplitMix64
    let loss: Double
    let reorder: Double
    private var held: [UInt8]?
    private(set) var offered = 0
    private(set) var dropped = 0
    private(set) var reordered = 0

    init(seed: UInt64, loss: Double, reorder: Double) {
        random = SplitMix64(seed: seed)
        self.loss = loss
        self.reorder = reorder
    }

    func transmit(_ datagram: ArraySlice<UInt8>, nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void) {
        offered += 1
        if offered > 1, random.chance(loss) {
            dropped += 1
            return
        }
        if held == nil, offered > 1, random.chance(reorder) {
            held = Array(datagram)
            reordered += 1
            return
        }
        deliver(datagram)
        flush(nowMilliseconds: nowMilliseconds, deliver: deliver)
    }

    func flush(nowMilliseconds: Int64, deliver: (ArraySlice<UInt8>) -> Void) {
        if let packet = held {
            held = nil
            deliver(packet[...])
        }
    }
}

/// A publisher transport that loses RTP on the way to the node (seeded), retransmissions
/// included; RTCP passes.
final class LossyTransport: DatagramTransport {
    let inner: any DatagramTransport
    private var random: SplitMix64
    let loss: Double
    private(set) var sent = 0
    private(set) var dropped = 0

    var localEndpoint: NetworkEndpoint { inner.localEndpoint }

    init(_ inner: any DatagramTransport, seed: UInt64, loss: Double) {
        self.inner = inner
        random = SplitMix64(seed: seed)
        self.loss = loss
    }

    func send(_ datagram: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        let isRTCP = datagram.count >= 2 && (192...223).contains(datagram[1])
        if !isRTCP {
            sent += 1
            // Each layer's first packets always arrive (nothing before them to NACK).
            if sent > 6, random.chance(loss) {
                dropped += 1
                return
            }
        }
        try inner.send(datagram, to: destination)
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        try inner.receive(into: buffer, timeoutMilliseconds: timeoutMilliseconds)
    }
}

/// The whole forwarding path with real components and a hand-driven clock: Publisher (2-layer
/// SimulcastEncoder, SRTP) → UDP → ForwardingNode → 5 % loss + reordering → UDP → Subscribers,
/// with NACKs answered by the node and PLIs relayed to the publisher. With upstream loss too, the
/// node NACKs the publisher and forwards the retransmissions into the subscribers' gaps.
@Suite(.serialized) struct ForwardingNodeLossTests {
    @Test(arguments: [0.0, 0.03])
    func nackRecoversLossOnTheNodeToSubscriberPathAndEverySubscriberKeepsDecoding(upstreamLoss: Double) throws {
        let plan = try LayerPlan(width: 640, height: 360)
        let clock = ManualClock()
        let publisherKeys = try TestKeys.material(0x21), feedbackKeys = try TestKeys.material(0x31)
        let nodeSocket = try UDPSocket(bindingTo: .loopback(port: 0))
        try nodeSocket.setReceiveBufferSize(1 << 20)
        let node = try ForwardingNode(
            configuration: ForwardingNodeConfiguration(plan: plan, layerSSRCs: [1000, 1001], publisherKeys: publisherKeys,
                                                       feedbackKeys: feedbackKeys),
            transport: nodeSocket, clock: clock.mediaClock)
        let video = VideoTrackConfiguration(plan: plan, ssrcs: [1000, 1001], payloadBudget: 400)
        var random = SplitMix64(seed: 7)
        let transport = LossyTransport(try UDPSocket(), seed: 0xB0B, loss: upstreamLoss)
        let publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .srtp(local: publisherKeys, remote: feedbackKeys)),
            transport: transport, routing: try PublisherRouting(destination: node.localEndpoint), clock: clock.mediaClock, using: &random)
        let source = try VideoSource(testSceneWidth: 640, height: 360)

        struct Viewer {
            var id: String
            var subscriber: Subscriber
            var link: ImpairedLink
        }
        var viewers: [Viewer] = []
        var decodedCounts: [String: Int] = [:]
        for (index, (id, size)) in [("thumb", VideoSize(width: 320, height: 180)),
                                    ("stage", VideoSize(width: 640, height: 360))].enumerated() {
            let down = try TestKeys.material(0x50 + UInt8(index)), up = try TestKeys.material(0x60 + UInt8(index))
            let socket = try UDPSocket()
            try socket.setReceiveBufferSize(1 << 20)
            let localSSRC = 0xAB00 + UInt32(index)
            let subscriber = try Subscriber(
                configuration: SubscriberConfiguration(
                    localSSRC: localSSRC, security: .srtp(receiveKeys: down, sendKeys: up),
                    senderRTCPEndpoint: node.localEndpoint,
                    video: VideoReceiver.Configuration(localSSRC: localSSRC,
                                                       bandwidth: .init(initialBitsPerSecond: 5_000_000))),
                transport: socket, clock: clock.mediaClock)
            subscriber.onVideoFrame = { _ in decodedCounts[id, default: 0] += 1 }
            let link = ImpairedLink(seed: 0x105E + UInt64(index), loss: 0.05, reorder: 0.05)
            try node.addSubscriber(ForwardedSubscriberConfiguration(
                id: id, outputSSRC: 0xD0 + UInt32(index), destination: socket.localEndpoint, sendKeys: down,
                receiveKeys: up, preference: .viewPort(size)), link: link)
            viewers.append(Viewer(id: id, subscriber: subscriber, link: link))
        }

        func pump() throws {
            try node.poll(timeoutMilliseconds: 0)
            node.service()
            for viewer in viewers { try viewer.subscriber.step(timeoutMilliseconds: 0) }
            try node.poll(timeoutMilliseconds: 0)
            while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
        }
        let frames = 90
        let base = clock.now
        for index in 0..<frames {
            let frameStart = base + Int64(index) * 33_333
            clock.now = frameStart
            guard let picture = try source.nextFrame() else { break }
            try publisher.send(video: picture)
            for step in 0..<3 {
                clock.now = frameStart + Int64(step) * 11_111
                try pump()
            }
        }
        for step in 1...40 {
            clock.now = base + Int64(frames) * 33_333 + Int64(step) * 11_111
            try pump()
        }

        for viewer in viewers {
            let video = viewer.subscriber.statistics.video
            let counters = try #require(node.counters(for: viewer.id))
            let forwarded = try node.forwarder.stats(for: viewer.id)
            print("\(viewer.id): layer \(forwarded.current.map(\.description) ?? "-"), decoded \(decodedCounts[viewer.id] ?? 0)/\(frames), link dropped \(viewer.link.dropped) of \(viewer.link.offered) (reordered \(viewer.link.reordered)), NACKed \(counters.nacked), resent \(counters.retransmitted) (+\(counters.rebuilt) rebuilt, \(counters.missing) missing), recovered \(video.packetsRecovered), given up \(video.packetsGivenUp), PLIs \(video.keyFrameRequests), errors \(video.decoderErrors), longest freeze \(video.longestFreezeMilliseconds) ms")
            #expect(viewer.link.dropped > 0)
            #expect(counters.retransmitted > 0)
            #expect(video.packetsRecovered > 0)
            #expect(video.decoderErrors == 0)
            #expect(video.longestFreezeMilliseconds <= 1000)
            #expect((decodedCounts[viewer.id] ?? 0) >= frames * 8 / 10)
            #expect(viewer.subscriber.statistics.srtpFailures == 0)
            // docs/receiving.md stats from the node: its SRs give the RRs LSR/DLSR, hence a round trip.
            let stats = try node.stats(for: viewer.id)
            #expect(stats.roundTripMilliseconds != nil)
            #expect(stats.jitterMilliseconds != nil && stats.packetsLost != nil)
            #expect(stats.frameWidth == plan.layers[stats.currentSpatialLayer ?? 0].width)
            #expect(stats.bitsPerSecond > 0)
        }
        let retransmitted = publisher.statistics.map(\.retransmissions).reduce(0, +)
        print("upstream loss \(upstreamLoss): dropped \(transport.dropped) of \(transport.sent), node NACKs \(node.counters.upstreamNACKsSent) for \(node.counters.upstreamPacketsRequested) packets, publisher resent \(retransmitted)")
        if upstreamLoss > 0 {
            #expect(transport.dropped > 0)
            #expect(node.counters.upstreamNACKsSent > 0)
            #expect(retransmitted > 0)
        } else {
            #expect(node.counters.upstreamNACKsSent == 0)
        }
        #expect(node.counters.srtpFailures == 0)
        #expect(node.counters.malformed == 0)
        #expect(try node.forwarder.stats(for: "thumb").current?.spatial == 0)
    }
}
