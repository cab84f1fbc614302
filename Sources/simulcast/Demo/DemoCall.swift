import CommandLineSupport
import Foundation
import MediaCodecs
import EngineCore
import RTPWire
import Simulcast
import SRTP
import SessionCore

/// The call `simulcast demo` runs, in one process on loopback UDP with SRTP everywhere:
///
///     Publisher (SimulcastEncoder, 3 layers) ─SRTP─► ForwardingNode ─SRTP─► 4 × Subscriber
///                      ▲                                │   ▲                  │
///                      └──── SRTCP PLI ─────────────────┘   └──── SRTCP RR/NACK/PLI/REMB
///
/// Subscribers watch through viewports matching each layer; the last one has the top layer's
/// viewport and a downlink (a `ThrottledLink` token bucket) squeezed for a while, so its REMB
/// estimate falls for real and the forwarder steps it down and back up. dynaCast is on: the
/// node tells the publisher which layers anyone wants.
///
/// One thread drives everything: encode on the 30 fps schedule, then poll the node, the
/// subscribers and the publisher's feedback, blocking on the node's socket in between.
final class DemoCall {
    struct Options {
        var seconds: Double = 15
        var size = (width: 1280, height: 720)
        var input: String?
        var throttleKbps = 300
        var throttleFromSeconds = 3.0
        var throttleToSeconds = 7.0
        /// The layer selector's up-switch hold (SPEC §3 hysteresis: no faster oscillation), ms.
        var upSwitchHoldMilliseconds: Int64 = 2000
        /// How fast a subscriber's estimate grows without loss, per second (1.0 = doubles each
        /// second; without bandwidth probing this is what brings a recovered link back up).
        var estimateGrowthPerSecond = 1.0
        var saveDirectory: String?
        var dynaCast = true
    }

    /// One subscriber and everything measured about it.
    final class Viewer {
        let id: String
        let viewport: VideoSize
        let viewportLayer: Int
        let link: ThrottledLink?
        let socket: UDPSocket
        let subscriber: Subscriber
        /// `--save`: what this viewer received, streamed to disk as it arrives.
        var ivf: IVFFileWriter?
        /// The first failure writing `ivf` (the capture stops there); reported by `saveCaptures`.
        var ivfError: IVFError?
        var ivfTimestamp: UInt64 = 0
        var lastRTPTimestamp: UInt32?
        var framesDecoded = 0
        var decodedSizes: [String: Int] = [:]
        var layerMicroseconds: [String: Int64] = [:]
        var switches: [DemoSwitch] = []
        /// Per-second window for the live table.
        var windowFrames = 0
        var windowBytesStart: Int64 = 0

        init(id: String, viewport: VideoSize, viewportLayer: Int, link: ThrottledLink?, socket: UDPSocket,
             subscriber: Subscriber) {
            self.id = id
            self.viewport = viewport
            self.viewportLayer = viewportLayer
            self.link = link
            self.socket = socket
            self.subscriber = subscriber
        }

        /// Appends an assembled frame to the IVF capture (90 kHz timebase, unwrapped RTP time).
        func capture(_ frame: VP8AssembledFrame) {
            guard ivf != nil else { return }
            if let last = lastRTPTimestamp {
                ivfTimestamp += UInt64(max(0, Int64(Int32(bitPattern: frame.timestamp &- last))))
            }
            lastRTPTimestamp = frame.timestamp
            do {
                try ivf?.append(frame: frame.data, timestamp: ivfTimestamp)
            } catch {
                ivfError = error
                ivf = nil
            }
        }
    }

    let options: Options
    let plan: LayerPlan
    let publisher: Publisher
    let node: ForwardingNode
    /// The node's socket (its truncated-datagram count goes in the report).
    let nodeSocket: UDPSocket
    let viewers: [Viewer]
    private let source: () throws -> VideoFrame?
    private(set) var publisherEvents: [DemoPublisherEvent] = []
    private var startMicroseconds: Int64 = 0

    static let firstSSRC: UInt32 = 0x5100_0000

    init(options: Options) throws {
        self.options = options
        plan = try LayerPlan(width: options.size.width, height: options.size.height)
        let top = plan.top
        if let path = options.input {
            var video = try VideoSource(y4mPath: path, width: top.width, height: top.height)
            source = {
                // Loop the file for as long as the call lasts.
                if let frame = try video.nextFrame() { return frame }
                video = try VideoSource(y4mPath: path, width: top.width, height: top.height)
                return try video.nextFrame()
            }
        } else {
            let video = try VideoSource(testSceneWidth: top.width, height: top.height)
            source = { try video.nextFrame() }
        }

        if let directory = options.saveDirectory {
            try OutputFiles.createDirectory(directory)
        }

        // Keys: one per direction and hop (SDES-style, RFC 4568 §6.1), fresh for every call.
        var random = SystemRandomNumberGenerator()
        func freshKeys() throws -> SRTPKeyingMaterial {
            try SRTPKeyingMaterial(keyAndSalt: (0..<SRTPSuite.default.keyingMaterialLength).map { _ in
                UInt8.random(in: 0...255, using: &random)
            })
        }
        let publisherKeys = try freshKeys(), feedbackKeys = try freshKeys()

        nodeSocket = try UDPSocket(bindingTo: .loopback(port: 0))
        try nodeSocket.setReceiveBufferSize(4 << 20)
        let video = VideoTrackConfiguration(plan: plan, firstSSRC: Self.firstSSRC)
        node = try ForwardingNode(
            configuration: ForwardingNodeConfiguration(
                plan: plan, layerSSRCs: video.ssrcs, publisherKeys: publisherKeys, feedbackKeys: feedbackKeys,
                selector: LayerSelector.Configuration(upSwitchHoldMilliseconds: options.upSwitchHoldMilliseconds),
                subscriberLossControl: .init(initialBitsPerSecond: .max, increasePerSecond: options.estimateGrowthPerSecond)),
            transport: nodeSocket)
        let publisherSocket = try UDPSocket(bindingTo: .loopback(port: 0))
        try publisherSocket.setReceiveBufferSize(1 << 20)
        let transport = try UDPTransport(socket: publisherSocket, destination: node.localEndpoint)
        publisher = try Publisher(
            configuration: PublisherConfiguration(video: video, security: .srtp(local: publisherKeys, remote: feedbackKeys),
                                                  cname: "demo-publisher"),
            transport: transport, clock: .system, using: &random)
        try publisher.setDynaCast(enabled: options.dynaCast)

        // Viewers: one per layer's size, plus the throttled one with the top layer's viewport.
        var viewers: [Viewer] = []
        let names = ["small", "medium", "large"]
        var specs: [(String, VideoSize, Bool)] = plan.layers.map { layer in
            (layer.index < names.count ? names[layer.index] : "layer\(layer.index)",
             VideoSize(width: layer.width, height: layer.height), false)
        }
        specs.append(("throttled", VideoSize(width: top.width, height: top.height), true))
        var keyPairs: [(down: SRTPKeyingMaterial, up: SRTPKeyingMaterial)] = []
        for (index, (id, viewport, throttled)) in specs.enumerated() {
            let downKeys = try freshKeys(), upKeys = try freshKeys()
            keyPairs.append((downKeys, upKeys))
            let socket = try UDPSocket(bindingTo: .loopback(port: 0))
            try socket.setReceiveBufferSize(4 << 20)
            let localSSRC = 0x7E00_0000 + UInt32(index)
            let estimator = BandwidthEstimator.Configuration(
                // As if the transport's probing had already found the link (no probing here).
                initialBitsPerSecond: 5_000_000, maximumBitsPerSecond: 8_000_000,
                increasePerSecond: options.estimateGrowthPerSecond)
            let configuration = SubscriberConfiguration(
                localSSRC: localSSRC, cname: "demo-\(id)", security: .srtp(receiveKeys: downKeys, sendKeys: upKeys),
                senderRTCPEndpoint: node.localEndpoint,
                video: VideoReceiver.Configuration(localSSRC: localSSRC, bandwidth: estimator))
            let subscriber = try Subscriber(configuration: configuration, transport: socket)
            let layer = LayerSelector.preferredSpatialLayer(for: .viewPort(viewport), layers: plan.layers.map {
                VideoSize(width: $0.width, height: $0.height)
            }, publishedAtSD540: false) ?? 0
            let link = throttled ? ThrottledLink() : nil
            let viewer = Viewer(id: id, viewport: viewport, viewportLayer: layer, link: link, socket: socket,
                                subscriber: subscriber)
            if let directory = options.saveDirectory {
                viewer.ivf = try IVFFileWriter(path: Self.capturePath(directory: directory, viewer: id),
                                               width: top.width, height: top.height,
                                               timebaseNumerator: 1, timebaseDenominator: 90_000)
            }
            subscriber.onVideoFrame = { [unowned viewer] frame in
                viewer.framesDecoded += 1
                viewer.windowFrames += 1
                viewer.decodedSizes["\(frame.width)x\(frame.height)", default: 0] += 1
            }
            subscriber.video.onAssembledFrame = { [unowned viewer] frame in viewer.capture(frame) }
            viewers.append(viewer)
        }
        self.viewers = viewers
        for (index, viewer) in viewers.enumerated() {
            try node.addSubscriber(
                ForwardedSubscriberConfiguration(id: viewer.id, outputSSRC: 0x0D00_0000 + UInt32(index),
                                                 destination: viewer.socket.localEndpoint, sendKeys: keyPairs[index].down,
                                                 receiveKeys: keyPairs[index].up,
                                                 preference: .viewPort(viewer.viewport)),
                link: viewer.link)
        }
        // Every subscriber is known before dynaCast starts listening, so the publisher does not
        // pause and resume layers while they are added one by one.
        node.onWantedLayersChanged = { [unowned self] wanted in
            do {
                let update = try self.publisher.updateWantedLayers(wanted)
                if !update.paused.isEmpty || !update.resumed.isEmpty {
                    self.publisherEvents.append(DemoPublisherEvent(
                        atMilliseconds: self.elapsedMilliseconds, wanted: wanted.sorted(), sending: update.sending,
                        paused: update.paused, resumed: update.resumed))
                }
            } catch {
                writeToStandardError("demo: dynaCast update failed: \(error)\n")
            }
        }
        try publisher.updateWantedLayers(node.wantedSpatialLayers)
    }

    private var elapsedMilliseconds: Int64 {
        startMicroseconds == 0 ? 0 : (monotonicMicroseconds() - startMicroseconds) / 1000
    }

    /// Runs the call for `options.seconds`; `tick(elapsedSeconds)` is called about once a second.
    func run(tick: (Int) -> Void) throws {
        startMicroseconds = monotonicMicroseconds()
        let start = startMicroseconds
        let duration = microseconds(seconds: options.seconds)
        let throttleFrom = microseconds(seconds: options.throttleFromSeconds)
        let throttleTo = microseconds(seconds: options.throttleToSeconds)
        let frameInterval: Int64 = 1_000_000 / 30
        var nextFrame = start
        var nextTick = start + 1_000_000
        var seconds = 0
        var lastAccount = start
        var throttleState = 0  // 0 before, 1 during, 2 after
        let throttledViewer = viewers.first { $0.link != nil }
        for viewer in viewers { viewer.windowBytesStart = 0 }
        while true {
            let now = monotonicMicroseconds()
            let elapsed = now - start
            if elapsed >= duration { break }
            if let link = throttledViewer?.link {
                if throttleState == 0, elapsed >= throttleFrom, throttleTo > throttleFrom {
                    link.setRate(bitsPerSecond: options.throttleKbps * 1000, nowMilliseconds: now / 1000)
                    throttleState = 1
                } else if throttleState == 1, elapsed >= throttleTo {
                    link.setRate(bitsPerSecond: nil, nowMilliseconds: now / 1000)
                    throttleState = 2
                }
            }
            if now >= nextFrame {
                if let frame = try source() { try publisher.send(video: frame) }
                nextFrame += frameInterval
                // After a stall, do not burst to catch up: keep the cadence from now.
                if now - nextFrame > 200_000 { nextFrame = now + frameInterval }
            }
            try pump()
            account(now: monotonicMicroseconds(), since: &lastAccount)
            if now >= nextTick {
                seconds += 1
                tick(seconds)
                for viewer in viewers {
                    viewer.windowFrames = 0
                    viewer.windowBytesStart = viewer.subscriber.statistics.video.bytesReceived
                }
                nextTick += 1_000_000
            }
            let wait = max(0, min(5_000, nextFrame - monotonicMicroseconds())) / 1000
            try node.poll(timeoutMilliseconds: Int32(wait))
        }
        try pump()
        account(now: monotonicMicroseconds(), since: &lastAccount)
        try? publisher.sendGoodbye(reason: "demo finished")
    }

    /// Moves every datagram one hop: node in/out, subscribers in (and their RTCP out), node again
    /// for that RTCP, then the publisher's feedback.
    private func pump() throws {
        try node.poll(timeoutMilliseconds: 0)
        node.service()
        for viewer in viewers { try viewer.subscriber.step(timeoutMilliseconds: 0) }
        try node.poll(timeoutMilliseconds: 0)
        while try publisher.pollIncoming(timeoutMilliseconds: 0) != nil {}
        let now = elapsedMilliseconds
        for (id, event) in node.forwarder.switchEvents {
            viewers.first { $0.id == id }?.switches.append(DemoSwitch(atMilliseconds: now, event: event))
        }
        node.forwarder.switchEvents.removeAll()
    }

    /// Adds the time since the last call to each viewer's current layer.
    private func account(now: Int64, since last: inout Int64) {
        let delta = max(0, now - last)
        last = now
        for viewer in viewers {
            let key = (try? node.forwarder.stats(for: viewer.id).current).map(\.description) ?? "none"
            viewer.layerMicroseconds[key, default: 0] += delta
        }
    }

    /// Where `--save DIR` puts a viewer's capture.
    static func capturePath(directory: String, viewer id: String) -> String {
        (directory as NSString).appendingPathComponent("\(id).ivf")
    }

    /// Finishes each viewer's IVF capture (streamed into `options.saveDirectory` during the
    /// call, so it never grows in memory); returns the paths.
    func saveCaptures() throws -> [String: String] {
        var paths: [String: String] = [:]
        for viewer in viewers {
            if let error = viewer.ivfError { throw error }
            guard let ivf = viewer.ivf else { continue }
            try ivf.close()
            paths[viewer.id] = ivf.path
        }
        return paths
    }
}

/// A layer switch as the demo reports it.
struct DemoSwitch {
    var atMilliseconds: Int64
    var event: LayerSwitchEvent
}

/// A dynaCast change on the publisher.
struct DemoPublisherEvent {
    var atMilliseconds: Int64
    var wanted: [Int]
    var sending: [Int]
    var paused: [Int]
    var resumed: [Int]
}
