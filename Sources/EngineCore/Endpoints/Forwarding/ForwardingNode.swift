import RTPWire
import SRTP
import Simulcast
import SessionCore

/// The in-process SFU around a `TrackForwarder` (ARCHITECTURE "forward"): one transport that
/// receives the publisher's SRTP and the subscribers' SRTCP (told apart by source address).
///
///     publisher SRTP ─► unprotect ─► layer history ─► TrackForwarder ─► per-subscriber SRTP ─► link ─► transport
///     subscriber SRTCP ─► NACK: resend the protected packet we sent (or rebuild it from the layer history)
///                       ─► PLI/FIR: key-frame request upstream for the layer it gets
///                       ─► REMB: TrackForwarder.updateBandwidth
///     forwarder key-frame requests ─► (S)RTCP PLI to the publisher
///     once a second per subscriber ─► SR (so its RRs carry LSR/DLSR: `stats(for:)` has an RTT)
///     gaps in what the publisher sent ─► (S)RTCP generic NACK to the publisher (`NACKGenerator`
///                                        per layer); its retransmission is forwarded like any
///                                        late packet, filling the gap the subscribers saw
///
/// Retransmissions resend the very protected bytes first sent to that subscriber: libsrtp will
/// not protect one sequence index twice, and the same plaintext under the same index would give
/// the same ciphertext anyway (as `RTPStreamSender` does). Only a packet that was never sent to
/// the subscriber (its protected copy gone) is rebuilt from the publisher-side plain history.
///
/// `onWantedLayersChanged` tells the publisher side which spatial layers anyone needs (dynaCast):
/// the layers every subscriber forwards or switches to, plus each one's preferred layer, so a
/// subscriber recovering bandwidth finds its layer running.
///
/// It is an assembly of stages (`Stages/`): per subscriber (`ForwardedDownstream`) a
/// `NACKResponder`, a `ReportScheduler` for its SRs, a `ReportBlockTracker` (RTT) and a
/// `REMBLimit`; toward the publisher a `NACKRequester` per layer and a `KeyFrameRequestGate`,
/// their RTCP built by `ReportCompound`. The files: receiving (`ForwardingNodeReceiving`),
/// subscriber RTCP (`ForwardingNodeSubscriberRTCP`), sending (`ForwardingNodeSending`), feedback
/// to the publisher (`ForwardingNodeUpstreamFeedback`), statistics (`ForwardingNodeStatistics`).
///
/// Time comes from the injected clock (microseconds). Not `Sendable`: drive it from one thread
/// (`poll` + `service` in a loop). Nothing here traps on received bytes.
public final class ForwardingNode {
    public let configuration: ForwardingNodeConfiguration
    /// The one address the publisher and the subscribers talk to.
    public let transport: any DatagramTransport
    /// The forwarding policy (selectors, switch controllers, rewriters).
    public let forwarder: TrackForwarder
    /// Called when the set of wanted spatial layers changes.
    public var onWantedLayersChanged: ((Set<Int>) -> Void)?
    /// Publisher-side counters.
    public internal(set) var counters = ForwardingNodeCounters()
    /// The publisher's RTCP address (configured, or the address its media is pinned to).
    public var publisherEndpoint: NetworkEndpoint? { configuration.publisherRTCPEndpoint ?? publisherSource.peer }
    /// Where the publisher's media is taken from: pinned by its first valid packet, moved only by
    /// a run of valid packets from one new address (`PeerAddressLatch`); packets from anywhere
    /// else are dropped and counted in `counters.foreignSourcePackets`.
    public internal(set) var publisherSource = PeerAddressLatch<NetworkEndpoint>()

    let clock: MediaClock
    /// Unprotects the publisher's media and RTCP, protects the feedback we send it.
    let publisherSecurity: SRTPSecurity
    var layerHistories: [PacketHistory]
    /// Stages toward the publisher: NACK generation per layer, key-frame request throttling.
    var upstreamNACK: [NACKRequester]
    var upstreamKeyFrameGate: KeyFrameRequestGate
    /// When each of the publisher's packets arrived, for transport-wide feedback (if sent).
    var transportFeedback: TransportFeedbackStage
    var downstreams: [String: ForwardedDownstream] = [:]
    /// The same subscribers sorted by id, kept sorted as they come and go: audio forwarding and
    /// `service` walk them in a stable order without sorting (allocating) each time.
    var orderedDownstreams: [ForwardedDownstream] = []
    var bySource: [NetworkEndpoint: String] = [:]
    var lastWanted: Set<Int>?
    /// Layers the publisher ended with an RTCP BYE (until their next packet).
    var endedLayers: Set<Int> = []
    var receiveBuffer = [UInt8](repeating: 0, count: 2048)
    /// The compound our feedback to the publisher goes in (RFC 3550 §6.1: an empty RR first),
    /// reused: each feedback packet is written into its second place.
    var publisherFeedbackCompound: RTCPCompoundPacket
    var rebuildBuffer: [UInt8] = []
    /// A packet for one subscriber with that subscriber's transport-wide number written in, and
    /// the node's probe packets (downlink estimation only).
    var numberedBuffer: [UInt8] = []
    var probeBuffer: [UInt8] = []
    /// The payload type of the publisher's video (what the node's probe packets carry).
    var videoPayloadType: UInt8?
    /// Bits per second each spatial layer needs at its top temporal layer, with the selector's
    /// up-switch headroom: what a subscriber preferring it wants its downlink to carry.
    let layerNeeds: [Int]


    /// - Parameters:
    ///   - transport: where the publisher sends media and subscribers send RTCP (default: a new
    ///     UDP socket on 127.0.0.1, any port).
    ///   - clock: monotonic microseconds.
    /// - Throws: `NetworkError` for the socket, `SRTPError` for keys libsrtp cannot use.
    public init(configuration: ForwardingNodeConfiguration, transport: (any DatagramTransport)? = nil,
                clock: MediaClock = .system) throws {
        self.configuration = configuration
        self.transport = try transport ?? UDPSocket(bindingTo: .loopback(port: 0))
        self.clock = clock
        forwarder = TrackForwarder(plan: configuration.plan, layerSSRCs: configuration.layerSSRCs,
                                   keyFrameRequestIntervalMilliseconds: configuration.keyFrameRequestIntervalMilliseconds,
                                   selectorConfiguration: configuration.selector)
        publisherSecurity = try SRTPSecurity(sendKeys: configuration.feedbackKeys, receiveKeys: configuration.publisherKeys)
        layerHistories = configuration.layerSSRCs.map { _ in
            PacketHistory(capacity: configuration.historyCapacity, maximumPacketSize: 1500)
        }
        upstreamNACK = configuration.layerSSRCs.map { _ in NACKRequester(configuration: configuration.upstreamNACK) }
        let emptyReport = RTCPPacket.receiverReport(ReceiverReport(ssrc: configuration.localSSRC))
        publisherFeedbackCompound = RTCPCompoundPacket(packets: [emptyReport, emptyReport])
        transportFeedback = TransportFeedbackStage(enabled: configuration.sendsTransportFeedback)
        upstreamKeyFrameGate = KeyFrameRequestGate(minimumIntervalMilliseconds: configuration.keyFrameRequestIntervalMilliseconds)
        rebuildBuffer.reserveCapacity(1500)
        numberedBuffer.reserveCapacity(2048)
        probeBuffer.reserveCapacity(512)
        let selector = LayerSelector(plan: configuration.plan, configuration: configuration.selector)
        layerNeeds = configuration.plan.layers.indices.map { spatial in
            let need = selector.requiredBitsPerSecond(LayerTarget(spatial: spatial, temporal: selector.temporalLayerCount - 1))
            return Int(Double(need) * configuration.selector.upSwitchHeadroom)
        }
    }

    /// Where the publisher should send its media.
    public var localEndpoint: NetworkEndpoint { transport.localEndpoint }

    var nowMilliseconds: Int64 { clock.monotonicMicroseconds() / 1000 }

    // MARK: - Subscribers

    /// Adds a subscriber; `link` (nil: straight to the transport) shapes what it receives.
    public func addSubscriber(_ subscriber: ForwardedSubscriberConfiguration,
                              link: (any ForwardingLink)? = nil) throws {
        let downstream = try ForwardedDownstream(subscriber, historyCapacity: configuration.historyCapacity,
                                                  lossControl: configuration.subscriberLossControl,
                                                  budget: configuration.retransmissionBudget)
        downstream.link = link
        if let estimation = configuration.downlinkEstimation {
            downstream.downlink = SubscriberDownlink(estimation: estimation, probing: configuration.downlinkProbing)
        }
        if let old = downstreams[subscriber.id] { bySource[old.configuration.destination] = nil }
        downstreams[subscriber.id] = downstream
        orderedDownstreams.removeAll { $0.configuration.id == subscriber.id }
        orderedDownstreams.insert(downstream, at: orderedDownstreams.firstIndex { $0.configuration.id > subscriber.id }
                                      ?? orderedDownstreams.endIndex)
        bySource[subscriber.destination] = subscriber.id
        let requests = forwarder.addSubscriber(subscriber.id, outputSSRC: subscriber.outputSSRC,
                                               preference: subscriber.preference, nowMilliseconds: nowMilliseconds)
        requestKeyFrames(requests)
        checkWantedLayers()
    }

    /// A subscriber now reaches the node from `destination` (e.g. its TCP connection after UDP
    /// failed, issue 18): what the node sends it goes there, its RTCP is taken from there, and
    /// its forwarding state (layer, sequence numbers, SRTP) carries on unchanged.
    public func moveSubscriber(_ id: String, to destination: NetworkEndpoint) throws(ForwarderError) {
        guard let downstream = downstreams[id] else { throw .unknownSubscriber(id) }
        bySource[downstream.configuration.destination] = nil
        downstream.configuration.destination = destination
        bySource[destination] = id
    }

    /// Removes a subscriber.
    public func removeSubscriber(_ id: String) {
        if let old = downstreams.removeValue(forKey: id) {
            bySource[old.configuration.destination] = nil
            orderedDownstreams.removeAll { $0 === old }
        }
        forwarder.removeSubscriber(id)
        checkWantedLayers()
    }

    /// setQuality / setViewPort / incoming-video rules for one subscriber.
    public func setPreference(_ preference: EffectivePreference, for id: String) throws(ForwarderError) {
        requestKeyFrames(try forwarder.setPreference(preference, for: id, nowMilliseconds: nowMilliseconds))
        checkWantedLayers()
    }

    /// The publisher's cap changed: it sends only layers `0...index` (nil: all).
    public func setHighestAvailableSpatialLayer(_ index: Int?) {
        requestKeyFrames(forwarder.setHighestAvailableSpatialLayer(index, nowMilliseconds: nowMilliseconds))
        checkWantedLayers()
    }

    /// Starts or stops forwarding the video track to one subscriber only (adaptive-subscription
    /// pause, on-demand consumption). Starting again waits for a key frame, which is requested.
    public func setVideoForwarding(_ enabled: Bool, for id: String) throws(ForwarderError) {
        requestKeyFrames(try forwarder.setForwarding(enabled, for: id, nowMilliseconds: nowMilliseconds))
        checkWantedLayers()
    }

    /// Starts or stops forwarding the publisher's audio to one subscriber only.
    public func setAudioForwarding(_ enabled: Bool, for id: String) throws(ForwarderError) {
        guard let downstream = downstreams[id] else { throw .unknownSubscriber(id) }
        downstream.audioOpen = enabled
    }

    /// Whether video / audio is forwarded to `id` (nil: unknown subscriber).
    public func isForwardingVideo(to id: String) -> Bool? { forwarder.isForwarding(to: id) }
    public func isForwardingAudio(to id: String) -> Bool? { downstreams[id]?.audioOpen }

    /// Ids of the subscribers, sorted.
    public var subscriberIds: [String] { orderedDownstreams.map(\.configuration.id) }

    /// The subscriber's link (e.g. to change a throttle), nil if it has none.
    public func link(for id: String) -> (any ForwardingLink)? { downstreams[id]?.link }

    /// Spatial layers some subscriber forwards, switches to, or prefers.
    public var wantedSpatialLayers: Set<Int> {
        var wanted = forwarder.wantedSpatialLayers
        for id in downstreams.keys {
            if let preferred = try? forwarder.stats(for: id).preferredSpatialLayer { wanted.insert(preferred) }
        }
        return wanted
    }

    // MARK: - Driving

    /// Reads every datagram the transport has, waiting at most `timeoutMilliseconds` for the first
    /// (at most 1024 per call), and handles each. Returns how many were read.
    @discardableResult
    public func poll(timeoutMilliseconds: Int32) throws(NetworkError) -> Int {
        try UDPSocket.drain(timeoutMilliseconds: timeoutMilliseconds) { timeout throws(NetworkError) in
            guard let received = try transport.receive(into: &receiveBuffer, timeoutMilliseconds: timeout) else { return false }
            handleReceiveBuffer(length: received.count, from: received.from)
            return true
        }
    }

    /// Handles one datagram from `source` (the subscriber it came from, or else the publisher).
    public func handle(datagram: some Collection<UInt8>, from source: NetworkEndpoint) {
        guard datagram.count <= receiveBuffer.count else {
            counters.malformed += 1
            return
        }
        receiveBuffer.replaceSubrange(0..<datagram.count, with: datagram)  // same length: in place
        handleReceiveBuffer(length: datagram.count, from: source)
    }

    /// Timers: releases what the links hold back, and NACKs the publisher for what it lost.
    public func service() {
        let now = nowMilliseconds
        for downstream in orderedDownstreams {
            downstream.link?.flush(nowMilliseconds: now) { send($0, to: downstream.configuration.destination) }
            downstream.measureBitrate(now: now)
            sendSenderReportIfDue(downstream, now: now)
            if downstream.downlink != nil { probeDownlink(downstream, now: now) }
        }
        if let report = transportFeedback.feedback(senderSSRC: configuration.localSSRC, mediaSSRC: configuration.layerSSRCs[0],
                                                    nowMicroseconds: clock.monotonicMicroseconds()),
           sendToPublisher(report) {
            counters.transportFeedbacksSent += 1
        }
        requestUpstreamRetransmissions(now: now)
    }

    func checkWantedLayers() {
        let wanted = wantedSpatialLayers
        guard wanted != lastWanted else { return }
        lastWanted = wanted
        onWantedLayersChanged?(wanted)
    }
}
