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
    public private(set) var counters = ForwardingNodeCounters()
    /// The publisher's RTCP address (configured, or the address its media is pinned to).
    public var publisherEndpoint: NetworkEndpoint? { configuration.publisherRTCPEndpoint ?? publisherSource.peer }
    /// Where the publisher's media is taken from: pinned by its first valid packet, moved only by
    /// a run of valid packets from one new address (`PeerAddressLatch`); packets from anywhere
    /// else are dropped and counted in `counters.foreignSourcePackets`.
    public private(set) var publisherSource = PeerAddressLatch<NetworkEndpoint>()

    private final class Downstream {
        /// Its destination moves when it falls back to TCP (`moveSubscriber`).
        var configuration: ForwardedSubscriberConfiguration
        /// Protects what we send it, unprotects its SRTCP.
        let security: SRTPSecurity
        /// What we sent it, as sent, for its NACKs (bounded by its retransmission budget).
        var retransmissions: RetransmissionStore
        var link: (any ForwardingLink)?
        var counters = ForwardedSubscriberCounters()
        /// For sender reports (RFC 3550 §6.4.1) and the bitrate.
        var lastRTPTimestamp: UInt32 = 0
        var lastSenderReportMilliseconds: Int64?
        var roundTripMicroseconds: Int64?
        var rateWindowStartMilliseconds: Int64?
        var rateWindowStartBytes = 0
        var bitsPerSecond = 0
        /// Whether the publisher's audio goes to this subscriber (on-demand consumption).
        var audioOpen = true
        /// Loss of what we sent, from its receiver reports, and the ceiling it sets on the
        /// estimate (draft-ietf-rmcat-gcc-02 §6); nil until the first measured interval.
        var delivery = ReportedDeliveryMeter()
        var lossCeiling: LossBasedRateControl
        var lossCeilingMeasured = false
        /// Send-side estimation of its downlink, when the node runs it.
        var downlink: SubscriberDownlink?

        init(_ configuration: ForwardedSubscriberConfiguration, historyCapacity: Int,
             lossControl: LossBasedRateControl.Configuration, budget: RetransmissionBudget.Configuration) throws(SRTPError) {
            self.configuration = configuration
            lossCeiling = LossBasedRateControl(configuration: lossControl)
            security = try SRTPSecurity(sendKeys: configuration.sendKeys, receiveKeys: configuration.receiveKeys)
            retransmissions = RetransmissionStore(capacity: historyCapacity, maximumPacketSize: security.maximumProtectedSize,
                                                  budget: budget)
        }
    }

    private let clock: MediaClock
    /// Unprotects the publisher's media and RTCP, protects the feedback we send it.
    private let publisherSecurity: SRTPSecurity
    private var layerHistories: [PacketHistory]
    private var upstreamUnwrappers: [SequenceNumberUnwrapper]
    private var upstreamNACK: [NACKGenerator]
    private var nackScratch: [Int64] = []
    /// When each of the publisher's packets arrived, for transport-wide feedback (if sent).
    private var transportFeedback: TransportFeedbackRecorder?
    private var nackedScratch: [UInt16] = []
    private var downstreams: [String: Downstream] = [:]
    /// The same subscribers sorted by id, kept sorted as they come and go: audio forwarding and
    /// `service` walk them in a stable order without sorting (allocating) each time.
    private var orderedDownstreams: [Downstream] = []
    private var bySource: [NetworkEndpoint: String] = [:]
    private var upstreamThrottle: KeyFrameRequestThrottle
    private var lastWanted: Set<Int>?
    /// Layers the publisher ended with an RTCP BYE (until their next packet).
    private var endedLayers: Set<Int> = []
    private var receiveBuffer = [UInt8](repeating: 0, count: 2048)
    private var rebuildBuffer: [UInt8] = []
    /// A packet for one subscriber with that subscriber's transport-wide number written in, and
    /// the node's probe packets (downlink estimation only).
    private var numberedBuffer: [UInt8] = []
    private var probeBuffer: [UInt8] = []
    /// The payload type of the publisher's video (what the node's probe packets carry).
    private var videoPayloadType: UInt8?
    /// Bits per second each spatial layer needs at its top temporal layer, with the selector's
    /// up-switch headroom: what a subscriber preferring it wants its downlink to carry.
    private let layerNeeds: [Int]

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
        upstreamUnwrappers = configuration.layerSSRCs.map { _ in SequenceNumberUnwrapper() }
        upstreamNACK = configuration.layerSSRCs.map { _ in NACKGenerator(configuration: configuration.upstreamNACK) }
        if configuration.sendsTransportFeedback { transportFeedback = TransportFeedbackRecorder() }
        upstreamThrottle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: configuration.keyFrameRequestIntervalMilliseconds)
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

    private var nowMilliseconds: Int64 { clock.monotonicMicroseconds() / 1000 }

    // MARK: - Subscribers

    /// Adds a subscriber; `link` (nil: straight to the transport) shapes what it receives.
    public func addSubscriber(_ subscriber: ForwardedSubscriberConfiguration,
                              link: (any ForwardingLink)? = nil) throws {
        let downstream = try Downstream(subscriber, historyCapacity: configuration.historyCapacity,
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

    /// Counters for one subscriber.
    public func counters(for id: String) -> ForwardedSubscriberCounters? {
        guard let downstream = downstreams[id] else { return nil }
        var counters = downstream.counters
        if let congestion = downstream.downlink?.congestion {
            counters.transportFeedbackResultsDropped = congestion.unknownPackets + congestion.malformedFeedback
                + congestion.estimator.implausibleResults
        }
        return counters
    }

    /// docs/receiving.md stats of the track for one subscriber.
    public func stats(for id: String) throws(ForwarderError) -> ForwardedSubscriberStats {
        guard let downstream = downstreams[id] else { throw .unknownSubscriber(id) }
        let forwarded = try forwarder.stats(for: id)
        var stats = ForwardedSubscriberStats(
            currentSpatialLayer: forwarded.current?.spatial, currentTemporalLayer: forwarded.current?.temporal,
            preferredSpatialLayer: forwarded.preferredSpatialLayer, preferredTemporalLayer: forwarded.preferredTemporalLayer,
            target: forwarded.target, bitsPerSecond: downstream.bitsPerSecond)
        if let spatial = forwarded.current?.spatial, configuration.plan.layers.indices.contains(spatial) {
            stats.frameWidth = configuration.plan.layers[spatial].width
            stats.frameHeight = configuration.plan.layers[spatial].height
        }
        if let block = downstream.counters.lastReportBlock {
            stats.packetsLost = Int(block.cumulativeLost)
            stats.fractionLost = block.fractionLost
            stats.jitterMilliseconds = Double(block.jitter) / 90
        }
        stats.roundTripMilliseconds = downstream.roundTripMicroseconds.map { Double($0) / 1000 }
        stats.estimatedBitsPerSecond = Self.estimate(of: downstream)
        return stats
    }

    /// The bandwidth estimate for one subscriber's feed: with downlink estimation, the node's own
    /// (GCC on its transport-wide feedback) once feedback acknowledged packets, capped by its
    /// REMB if lower; otherwise its latest REMB, capped by the ceiling the loss in its receiver
    /// reports sets (so a link that delivers nothing still lowers it); nil before either is
    /// known or for an unknown subscriber.
    public func estimatedBitsPerSecond(for id: String) -> Int? {
        downstreams[id].flatMap(Self.estimate(of:))
    }

    private static func estimate(of downstream: Downstream) -> Int? {
        if let measured = downstream.downlink?.estimatedBitsPerSecond {
            return Int(clamping: min(measured, downstream.counters.lastREMBBitsPerSecond ?? .max))
        }
        let ceiling = downstream.lossCeilingMeasured ? downstream.lossCeiling.bitsPerSecond : nil
        switch (downstream.counters.lastREMBBitsPerSecond, ceiling) {
        case let (remb?, ceiling?): return Int(clamping: min(remb, ceiling))
        case let (remb?, nil): return Int(clamping: remb)
        case let (nil, ceiling?): return Int(clamping: ceiling)
        case (nil, nil): return nil
        }
    }

    /// Hands the feed's current estimate to its layer selector.
    private func updateSelectorBandwidth(for id: String, _ downstream: Downstream, now: Int64) {
        guard let estimate = Self.estimate(of: downstream),
              let requests = try? forwarder.updateBandwidth(estimate, for: id, nowMilliseconds: now) else { return }
        requestKeyFrames(requests)
    }

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
            measureBitrate(downstream, now: now)
            sendSenderReportIfDue(downstream, now: now)
            if downstream.downlink != nil { probeDownlink(downstream, now: now) }
        }
        if let report = transportFeedback?.feedback(senderSSRC: configuration.localSSRC, mediaSSRC: configuration.layerSSRCs[0],
                                                     nowMicroseconds: clock.monotonicMicroseconds()),
           sendToPublisher(.transportWideFeedback(report)) {
            counters.transportFeedbacksSent += 1
        }
        // A publisher on TCP loses nothing in transit: no NACKs to it (key-frame requests still go).
        let publisherOnStream = publisherEndpoint.map { transport.isReliableStream(to: $0) } ?? false
        for layer in upstreamNACK.indices where !publisherOnStream {
            nackScratch.removeAll(keepingCapacity: true)
            upstreamNACK[layer].requestInto(&nackScratch, nowMilliseconds: now, roundTripMilliseconds: nil)
            guard !nackScratch.isEmpty else { continue }
            let lost = nackScratch.map { UInt16(truncatingIfNeeded: $0) }
            sendToPublisher(.genericNACK(GenericNACK(senderSSRC: configuration.localSSRC,
                                                     mediaSSRC: configuration.layerSSRCs[layer], lostSequenceNumbers: lost)))
            counters.upstreamNACKsSent += 1
            counters.upstreamPacketsRequested += lost.count
        }
    }

    // MARK: - Receiving

    private func handleReceiveBuffer(length: Int, from source: NetworkEndpoint) {
        let kind: RTPOrRTCP
        do {
            kind = try RTPOrRTCP.classify(receiveBuffer[0..<length])
        } catch {
            counters.malformed += 1
            return
        }
        if let id = bySource[source], let downstream = downstreams[id] {
            guard kind == .rtcp else {
                downstream.counters.rtcpErrors += 1
                return
            }
            guard let plain = try? downstream.security.unprotect(&receiveBuffer, length: length, kind: .rtcp) else {
                downstream.counters.rtcpErrors += 1
                return
            }
            handleSubscriberRTCP(length: plain, from: id, downstream)
            return
        }
        guard let plain = try? publisherSecurity.unprotect(&receiveBuffer, length: length, kind: kind) else {
            counters.srtpFailures += 1
            return
        }
        switch kind {
        case .rtcp:
            // Sender reports: nothing to act on in this node (no SR relay), just counted; only the
            // pinned publisher's (RTCP never moves the pin).
            guard publisherSource.peer == source || configuration.publisherRTCPEndpoint == source else {
                counters.foreignSourcePackets += 1
                return
            }
            counters.publisherRTCP += 1
            handlePublisherRTCP(length: plain)
        case .rtp:
            // One view of the packet serves every step below (no re-parse per step or subscriber);
            // its extension block is checked once here, as it is relayed to every subscriber.
            guard let view = try? RTPPacketView(receiveBuffer[0..<plain]), (try? view.validateExtensions()) != nil else {
                counters.malformed += 1
                return
            }
            // Only a packet of one of the track's SSRCs may pin or move the publisher's address;
            // padding on another SSRC from the pinned address is the publisher probing.
            guard isPublishedSSRC(view.ssrc) else {
                if publisherSource.peer == source, recordTransportSequence(view, paddingOnly: true) {
                    counters.paddingPackets += 1
                } else {
                    counters.malformed += 1
                }
                return
            }
            guard publisherSource.admit(source) else {
                counters.foreignSourcePackets += 1
                return
            }
            if transportFeedback != nil { _ = recordTransportSequence(view, paddingOnly: false) }
            handlePublisherRTP(view)
        }
    }

    /// Notes the arrival of the publisher's packet `view` for transport-wide feedback (when the
    /// node sends it). With `paddingOnly`, only a packet that carries nothing but padding counts;
    /// returns whether it was one (always true without it).
    private func recordTransportSequence(_ view: RTPPacketView, paddingOnly: Bool) -> Bool {
        if paddingOnly, !(view.payload.isEmpty && view.paddingLength > 0) { return false }
        if transportFeedback != nil,
           let sequence = try? view.extensionValue(TransportSequenceNumber.self, map: configuration.extensionMap) {
            transportFeedback?.record(transportSequenceNumber: sequence.value, arrivalMicroseconds: clock.monotonicMicroseconds())
        }
        return true
    }

    /// The publisher's RTCP: a BYE for layer SSRCs (RFC 3550 §6.6) says it stopped sending those
    /// layers (its webcam cap went down): subscribers move to the highest layer still sent at
    /// once, without waiting for the stream to time out. The layer counts again from its next
    /// packet.
    private func handlePublisherRTCP(length: Int) {
        guard let compound = try? RTCPCompoundPacket(parsing: receiveBuffer[0..<length]) else {
            counters.malformed += 1
            return
        }
        var ended = endedLayers
        for case let .goodbye(bye) in compound.packets {
            for ssrc in bye.ssrcs {
                if let layer = configuration.layerSSRCs.firstIndex(of: ssrc) { ended.insert(layer) }
            }
        }
        if ended != endedLayers { setEndedLayers(ended) }
    }

    /// Layers the publisher said goodbye to, and the highest-available layer that follows.
    private func setEndedLayers(_ ended: Set<Int>) {
        endedLayers = ended
        // nil: every layer; with every layer ended, the lowest stays the target for their return.
        let highest = ended.isEmpty ? nil : (configuration.layerSSRCs.indices.last { !ended.contains($0) } ?? 0)
        requestKeyFrames(forwarder.setHighestAvailableSpatialLayer(highest, nowMilliseconds: nowMilliseconds))
        checkWantedLayers()
    }

    private func isPublishedSSRC(_ ssrc: UInt32) -> Bool {
        layerIndex(of: ssrc, in: configuration.layerSSRCs) != nil || configuration.audioSSRC == ssrc
    }

    private func handlePublisherRTP(_ view: RTPPacketView) {
        let length = view.bytes.count
        let ssrc = view.ssrc
        let sequenceNumber = view.sequenceNumber
        let numberAt = configuration.downlinkEstimation == nil ? nil
            : TransportSequenceNumber.valueOffset(in: view, map: configuration.extensionMap)
        if let audioSSRC = configuration.audioSSRC, ssrc == audioSSRC {
            forwardAudio(length: length, numberAt: numberAt)
            return
        }
        guard let layer = layerIndex(of: ssrc, in: configuration.layerSSRCs) else {
            counters.malformed += 1
            return
        }
        videoPayloadType = view.payloadType
        if endedLayers.contains(layer) { setEndedLayers(endedLayers.subtracting([layer])) }
        let now = nowMilliseconds
        let extended = upstreamUnwrappers[layer].unwrap(sequenceNumber)
        upstreamNACK[layer].packetReceived(extended, nowMilliseconds: now)
        // Only a completed switch changes what is forwarded, so only then can the wanted set
        // change on this path (no per-packet set building otherwise).
        let switchesBefore = forwarder.switchEvents.totalAppended
        do {
            let requests = try forwarder.forward(view, nowMilliseconds: now) { id, packet in
                guard let downstream = downstreams[id] else { return }
                sendMedia(packet, to: downstream, numberAt: numberAt, now: now)
            }
            layerHistories[layer].store(receiveBuffer[0..<length], sequenceNumber: sequenceNumber)
            counters.mediaPackets += 1
            requestKeyFrames(requests)
        } catch {
            counters.malformed += 1
        }
        if forwarder.switchEvents.totalAppended != switchesBefore { checkWantedLayers() }
    }

    /// The publisher's audio as it is (its RFC 6464 level included; with downlink estimation,
    /// the subscriber's own transport-wide number at `numberAt`) to every subscriber that takes
    /// it, re-protected per subscriber. Not kept for NACKs (Opus has in-band FEC).
    private func forwardAudio(length: Int, numberAt: Int?) {
        counters.audioPackets += 1
        let now = nowMilliseconds
        for index in orderedDownstreams.indices {  // not for-in: see TrackForwarder.forward
            let downstream = orderedDownstreams[index]
            guard downstream.audioOpen else { continue }
            guard let (protected, number) = protect(receiveBuffer[0..<length], for: downstream, numberAt: numberAt) else {
                counters.sendFailures += 1
                continue
            }
            downstream.counters.audioPacketsSent += 1
            downstream.counters.audioBytesSent += protected
            transmit(downstream.security.output[0..<protected], to: downstream, now: now)
            if let number { downstream.downlink?.sent(number, bytes: protected, nowMicroseconds: clock.monotonicMicroseconds()) }
        }
    }

    private func handleSubscriberRTCP(length: Int, from id: String, _ downstream: Downstream) {
        let compound: RTCPCompoundPacket
        do {
            compound = try RTCPCompoundPacket(parsing: receiveBuffer[0..<length])
        } catch {
            downstream.counters.rtcpErrors += 1
            return
        }
        let now = nowMilliseconds
        let ourSSRC = downstream.configuration.outputSSRC
        for packet in compound.packets {
            switch packet {
            case let .genericNACK(nack) where nack.mediaSSRC == ourSSRC:
                // Over TCP nothing is lost in transit; resending would only queue behind the stream.
                guard !transport.isReliableStream(to: downstream.configuration.destination) else {
                    downstream.counters.nacksIgnoredOverStream += 1
                    continue
                }
                nack.uniqueLostSequenceNumbers(into: &nackedScratch)
                for sequence in nackedScratch { retransmit(sequence, to: id, downstream, now: now) }
            case let .pictureLossIndication(pli) where pli.mediaSSRC == ourSSRC:
                downstream.counters.keyFrameRequestsReceived += 1
                keyFrameRequestFromSubscriber(id)
            case let .fullIntraRequest(fir) where fir.entries.contains(where: { $0.ssrc == ourSSRC }):
                downstream.counters.keyFrameRequestsReceived += 1
                keyFrameRequestFromSubscriber(id)
            case let .transportWideFeedback(feedback) where downstream.downlink != nil:
                downstream.counters.transportFeedbacksReceived += 1
                let roundTrip = downstream.roundTripMicroseconds.map { Double($0) / 1000 } ?? 100
                downstream.downlink?.handle(feedback, roundTripMilliseconds: roundTrip, nowMilliseconds: now)
                updateSelectorBandwidth(for: id, downstream, now: now)
            case let .receiverEstimatedMaxBitrate(remb):
                downstream.counters.rembsReceived += 1
                downstream.counters.lastREMBBitsPerSecond = remb.bitrate
                updateSelectorBandwidth(for: id, downstream, now: now)
            case let .receiverReport(report):
                if let block = report.reportBlocks.first(where: { $0.ssrc == ourSSRC }) {
                    downstream.counters.lastReportBlock = ReportBlockSummary(
                        fractionLost: Double(block.fractionLost) / 256, cumulativeLost: block.cumulativeLost,
                        jitter: block.interarrivalJitter)
                    if let interval = downstream.delivery.measure(
                        block, packetsSent: Int64(downstream.counters.packetsSent),
                        bytesSent: Int64(downstream.counters.bytesSent), nowMilliseconds: now) {
                        downstream.lossCeiling.update(lossFraction: interval.lossFraction,
                                                      deliveredBitsPerSecond: interval.deliveredBitsPerSecond,
                                                      nowMilliseconds: now)
                        downstream.lossCeilingMeasured = true
                        updateSelectorBandwidth(for: id, downstream, now: now)
                    }
                    let arrival = NTPTime.compact(clock.ntpTimestamp())
                    if let rtt = ReceiveStatistics.roundTripMicroseconds(reportBlock: block, arrivalCompactNTP: arrival) {
                        downstream.roundTripMicroseconds = rtt
                    }
                }
            default:
                continue
            }
        }
        checkWantedLayers()
    }

    /// A subscriber cannot decode: ask the publisher for a key frame on the layer it is given
    /// (or switching to; the switch itself waits for that key frame anyway).
    private func keyFrameRequestFromSubscriber(_ id: String) {
        // A subscriber whose video is stopped gets no key frame anyway (reopening requests one).
        guard forwarder.isForwarding(to: id) == true, let stats = try? forwarder.stats(for: id) else { return }
        var layers: [Int] = []
        if let current = stats.current?.spatial { layers.append(current) }
        if let target = stats.target?.spatial, target != stats.current?.spatial { layers.append(target) }
        requestKeyFrames(layers.compactMap { configuration.layerSSRCs.indices.contains($0) ? configuration.layerSSRCs[$0] : nil })
    }

    // MARK: - Sending

    private func sendMedia(_ packet: ArraySlice<UInt8>, to downstream: Downstream, numberAt: Int?, now: Int64) {
        guard let fields = try? RTPFixedFields(reading: packet) else { return }
        let sequenceNumber = fields.sequenceNumber
        guard let (length, number) = protect(packet, for: downstream, numberAt: numberAt) else {
            counters.sendFailures += 1
            return
        }
        downstream.retransmissions.mediaSent(downstream.security.output[0..<length], sequenceNumber: sequenceNumber,
                                             nowMilliseconds: now)
        downstream.lastRTPTimestamp = fields.timestamp
        downstream.counters.packetsSent += 1
        downstream.counters.payloadOctets += packet.count - RTPHeader.fixedLength
        downstream.counters.bytesSent += length
        transmit(downstream.security.output[0..<length], to: downstream, now: now)
        if let number { downstream.downlink?.sent(number, bytes: length, nowMicroseconds: clock.monotonicMicroseconds()) }
    }

    /// Protects `packet` for `downstream` into its security stage's output; when the node
    /// estimates its downlink and the packet carries a transport-wide number at `numberAt`, a
    /// copy numbered for this subscriber is protected instead. Returns the protected length and
    /// the number written (nil: none), or nil when protection failed.
    private func protect(_ packet: ArraySlice<UInt8>, for downstream: Downstream,
                         numberAt offset: Int?) -> (length: Int, number: UInt16?)? {
        guard let offset, downstream.downlink != nil else {
            guard let length = try? downstream.security.protect(packet, kind: .rtp) else { return nil }
            return (length, nil)
        }
        numberedBuffer.removeAll(keepingCapacity: true)
        numberedBuffer.append(contentsOf: packet)
        guard let number = downstream.downlink?.takeTransportSequenceNumber(),
              (try? TransportSequenceNumber.rewrite(number, in: &numberedBuffer, at: offset)) != nil,
              let length = try? downstream.security.protect(numberedBuffer[...], kind: .rtp) else { return nil }
        return (length, number)
    }

    private func transmit(_ datagram: ArraySlice<UInt8>, to downstream: Downstream, now: Int64) {
        let destination = downstream.configuration.destination
        if let link = downstream.link {
            link.transmit(datagram, nowMilliseconds: now) { send($0, to: destination) }
        } else {
            send(datagram, to: destination)
        }
    }

    private func send(_ datagram: ArraySlice<UInt8>, to destination: NetworkEndpoint) {
        let attempt = datagram.withUnsafeBytes { bytes in
            Result { () throws(NetworkError) in try transport.send(bytes, to: destination) }
        }
        if case .failure = attempt { counters.sendFailures += 1 }
    }

    private func retransmit(_ sequenceNumber: UInt16, to id: String, _ downstream: Downstream, now: Int64) {
        downstream.counters.nacked += 1
        let roundTrip = downstream.roundTripMicroseconds.map { $0 / 1000 }
        // The bytes we sent, as they were (the common case).
        switch downstream.retransmissions.answer(sequenceNumber: sequenceNumber, roundTripMilliseconds: roundTrip,
                                                 nowMilliseconds: now, resend: { transmit($0, to: downstream, now: now) }) {
        case .resent:
            downstream.counters.retransmitted += 1
            return
        case .refused:
            downstream.counters.retransmissionsRefused += 1
            return
        case .missing:
            break
        }
        // Never sent to this subscriber (or its copy is gone): rebuild it from the layer history
        // with the same rewrite the forwarder applied.
        guard let origin = try? forwarder.retransmissionSource(for: id, sequenceNumber: sequenceNumber),
              let layer = configuration.layerSSRCs.firstIndex(of: origin.sourceId),
              copyFromLayerHistory(layer, sequenceNumber: origin.originalSequenceNumber),
              rewrite(&rebuildBuffer, origin: origin, outputSSRC: downstream.configuration.outputSSRC)
        else {
            downstream.counters.missing += 1
            return
        }
        guard downstream.retransmissions.admit(sequenceNumber: sequenceNumber, bytes: rebuildBuffer.count + SRTPSession.maximumOverhead,
                                               roundTripMilliseconds: roundTrip, nowMilliseconds: now) == .resend else {
            downstream.counters.retransmissionsRefused += 1
            return
        }
        let numberAt = downstream.downlink == nil ? nil
            : TransportSequenceNumber.valueOffset(in: rebuildBuffer[...], map: configuration.extensionMap)
        guard let (length, number) = protect(rebuildBuffer[...], for: downstream, numberAt: numberAt) else {
            downstream.counters.missing += 1
            return
        }
        downstream.retransmissions.keepRepair(downstream.security.output[0..<length], sequenceNumber: sequenceNumber)
        downstream.counters.rebuilt += 1
        transmit(downstream.security.output[0..<length], to: downstream, now: now)
        if let number { downstream.downlink?.sent(number, bytes: length, nowMicroseconds: clock.monotonicMicroseconds()) }
    }

    /// Probes `downstream`'s link while its estimate is below what it wants (its preferred
    /// layer's need; nothing before the publisher's video is known): the padding the due
    /// probe cluster asks for, on `downlinkProbeSSRC`, numbered like its media.
    private func probeDownlink(_ downstream: Downstream, now: Int64) {
        guard let payloadType = videoPayloadType,
              let preferred = try? forwarder.stats(for: downstream.configuration.id).preferredSpatialLayer,
              layerNeeds.indices.contains(preferred),
              let (cluster, bytes) = downstream.downlink?.paddingDue(wanted: UInt64(layerNeeds[preferred]), nowMilliseconds: now)
        else { return }
        var due = bytes
        while due > 0 {
            guard let number = try? downstream.downlink?.writeProbe(
                      into: &probeBuffer, ssrc: configuration.downlinkProbeSSRC, payloadType: payloadType,
                      timestamp: downstream.lastRTPTimestamp, map: configuration.extensionMap),
                  let length = try? downstream.security.protect(probeBuffer[...], kind: .rtp) else {
                counters.sendFailures += 1
                return
            }
            transmit(downstream.security.output[0..<length], to: downstream, now: now)
            downstream.downlink?.sent(number, bytes: length, nowMicroseconds: clock.monotonicMicroseconds(), probeCluster: cluster)
            downstream.counters.probePacketsSent += 1
            downstream.counters.probeBytesSent += length
            due -= length
        }
    }

    /// Copies a stored plain packet of `layer` into `rebuildBuffer`; false if it is gone.
    private func copyFromLayerHistory(_ layer: Int, sequenceNumber: UInt16) -> Bool {
        let found: Bool? = layerHistories[layer].withPacket(sequenceNumber: sequenceNumber) { stored in
            rebuildBuffer.removeAll(keepingCapacity: true)
            rebuildBuffer.append(contentsOf: stored)
            return true
        }
        return found == true
    }

    /// The forwarder's header rewrite (sequence, timestamp, SSRC, PictureID, TL0PICIDX).
    private func rewrite(_ packet: inout [UInt8], origin: RewrittenPacketOrigin, outputSSRC: UInt32) -> Bool {
        do {
            let parsed = try RTPPacket(parsing: packet[...])
            let (descriptor, _) = try VP8PayloadDescriptor.parse(parsed.payload)
            let descriptorOffset = parsed.payload.startIndex
            try RTPHeader.rewrite(in: &packet, sequenceNumber: origin.header.sequenceNumber,
                                  timestamp: origin.header.timestamp, ssrc: outputSSRC)
            try VP8PayloadDescriptor.rewrite(
                in: &packet, at: descriptorOffset,
                pictureID: descriptor.pictureID == nil ? nil : origin.header.pictureId,
                tl0PicIdx: descriptor.tl0PicIdx == nil ? nil : origin.header.tl0PicIdx)
            return true
        } catch {
            return false
        }
    }

    /// Bits per second sent to `downstream`, over windows of at least a second.
    private func measureBitrate(_ downstream: Downstream, now: Int64) {
        guard let start = downstream.rateWindowStartMilliseconds else {
            downstream.rateWindowStartMilliseconds = now
            downstream.rateWindowStartBytes = downstream.counters.bytesSent
            return
        }
        let elapsed = now - start
        guard elapsed >= 1000 || elapsed < 0 else { return }
        let bytes = downstream.counters.bytesSent - downstream.rateWindowStartBytes
        downstream.bitsPerSecond = elapsed > 0 ? Int(Int64(bytes) * 8000 / elapsed) : 0
        downstream.rateWindowStartMilliseconds = now
        downstream.rateWindowStartBytes = downstream.counters.bytesSent
    }

    /// A sender report for the subscriber's stream once a second (RFC 3550 §6.4.1), so its
    /// receiver reports carry LSR/DLSR and we get a round-trip time. The NTP time is our
    /// monotonic clock: only differences of it matter here.
    private func sendSenderReportIfDue(_ downstream: Downstream, now: Int64) {
        guard downstream.counters.packetsSent > 0 else { return }
        if let last = downstream.lastSenderReportMilliseconds, now - last < 1000, now >= last { return }
        downstream.lastSenderReportMilliseconds = now
        let report = SenderReport(
            ssrc: downstream.configuration.outputSSRC, ntpTimestamp: clock.ntpTimestamp(),
            rtpTimestamp: downstream.lastRTPTimestamp, packetCount: UInt32(truncatingIfNeeded: downstream.counters.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: downstream.counters.payloadOctets))
        do {
            let length = try downstream.security.protect(RTCPCompoundPacket(packets: [.senderReport(report)]))
            transmit(downstream.security.output[0..<length], to: downstream, now: now)
        } catch {
            counters.sendFailures += 1
        }
    }

    /// Sends a PLI for each layer SSRC (rate-limited per SSRC).
    private func requestKeyFrames(_ ssrcs: [UInt32]) {
        guard !ssrcs.isEmpty else { return }
        let now = nowMilliseconds
        for ssrc in ssrcs where upstreamThrottle.shouldPass(ssrc: ssrc, nowMilliseconds: now) {
            if sendToPublisher(.pictureLossIndication(PictureLossIndication(senderSSRC: configuration.localSSRC,
                                                                            mediaSSRC: ssrc))) {
                counters.keyFrameRequestsSent += 1
            }
        }
    }

    /// Sends one (S)RTCP compound to the publisher: an empty RR (RFC 3550 §6.1: a compound
    /// starts with a report) and `feedback`. False when there is nowhere to send it or it failed.
    @discardableResult
    private func sendToPublisher(_ feedback: RTCPPacket) -> Bool {
        guard let destination = publisherEndpoint else { return false }
        let compound = RTCPCompoundPacket(packets: [.receiverReport(ReceiverReport(ssrc: configuration.localSSRC)), feedback])
        do {
            let length = try publisherSecurity.protect(compound)
            send(publisherSecurity.output[0..<length], to: destination)
            return true
        } catch {
            counters.sendFailures += 1
            return false
        }
    }

    private func checkWantedLayers() {
        let wanted = wantedSpatialLayers
        guard wanted != lastWanted else { return }
        lastWanted = wanted
        onWantedLayersChanged?(wanted)
    }
}
