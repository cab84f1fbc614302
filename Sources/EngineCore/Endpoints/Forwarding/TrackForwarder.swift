import RTPWire
import Simulcast
import SessionCore

/// Why the forwarder refused an incoming packet.
public enum ForwarderError: Error, Equatable, Sendable {
    /// The packet is not valid RTP carrying a VP8 payload descriptor (RFC 3550, RFC 7741).
    case malformed(WireError)
    /// The SSRC is none of the track's layers.
    case unknownSSRC(UInt32)
    /// No subscriber with that id.
    case unknownSubscriber(String)
}

/// One subscriber's view of a forwarded track (docs/receiving.md stats).
public struct ForwardedTrackStats: Sendable, Equatable {
    /// The layer being forwarded; nil until the first key frame (or while disabled).
    public var current: LayerTarget?
    /// The layer the selector wants now (bandwidth-limited preference).
    public var target: LayerTarget?
    /// What the preference alone asks for, before bandwidth limits.
    public var preferredSpatialLayer: Int?
    public var preferredTemporalLayer: Int?
    public var packetsForwarded = 0
    public var bytesForwarded = 0
    public var packetsLeftOut = 0
}

/// The in-process SFU core for ONE published simulcast VP8 track (docs/receiving.md): per subscriber a
/// `LayerSelector` (preference + bandwidth → target layer), a `LayerSwitchController` (switch
/// spatially only at key frames, temporally at Y frames) and a `StreamRewriter` (one contiguous
/// sequence/timestamp/PictureID/TL0PICIDX stream per subscriber). Plain RTP in, plain RTP out
/// through `emit` (protection and sockets belong to the caller); key-frame requests for the
/// publisher come back as SSRCs, at most one per SSRC per throttle interval for the whole track.
///
/// Not thread-safe: drive it from one task. Time is a parameter (milliseconds, any monotonic clock).
public final class TrackForwarder {
    /// Media SSRC of each published layer, lightest first.
    public let layerSSRCs: [UInt32]
    private let plan: LayerPlan
    /// By id, and the same subscribers sorted by id (the order packets are emitted in), kept
    /// sorted as they come and go so forwarding never sorts or allocates per packet.
    private var subscribers: [String: Subscriber] = [:]
    private var ordered: [Subscriber] = []
    private var trackThrottle: KeyFrameRequestThrottle
    private let selectorConfiguration: LayerSelector.Configuration
    private var buffer: [UInt8] = []

    /// The latest layer switches, in order: (subscriber, event); the oldest are forgotten past
    /// `switchEventCapacity`. Read, drain or clear as you like.
    public var switchEvents: EventRing<(subscriber: String, event: LayerSwitchEvent)>
    /// How many switch events are kept.
    public static let switchEventCapacity = 256

    /// One subscriber's state. A class, so that forwarding mutates it in place: a struct read out
    /// of the dictionary and written back would share, then copy, the rewriter's rings (its
    /// 1024-entry NACK map) on every packet.
    private final class Subscriber {
        let id: String
        let outputSSRC: UInt32
        var selector: LayerSelector
        var controller: LayerSwitchController
        var rewriter = StreamRewriter()
        var stats = ForwardedTrackStats()
        /// Closed: nothing is forwarded (paused video, or not consumed); packets are left out.
        var gateOpen = true

        init(id: String, outputSSRC: UInt32, selector: LayerSelector, controller: LayerSwitchController) {
            self.id = id
            self.outputSSRC = outputSSRC
            self.selector = selector
            self.controller = controller
        }
    }

    /// - Parameters:
    ///   - plan: the track's published layers (sizes and bitrates for the selector).
    ///   - layerSSRCs: the publisher's SSRC per layer, lightest first.
    ///   - keyFrameRequestIntervalMilliseconds: the track-wide PLI rate limit per SSRC.
    ///   - selectorConfiguration: bandwidth hysteresis of every subscriber's `LayerSelector`.
    public init(plan: LayerPlan, layerSSRCs: [UInt32], keyFrameRequestIntervalMilliseconds: Int64 = 300,
                selectorConfiguration: LayerSelector.Configuration = .init()) {
        self.plan = plan
        self.selectorConfiguration = selectorConfiguration
        self.layerSSRCs = layerSSRCs
        switchEvents = EventRing(capacity: Self.switchEventCapacity)
        trackThrottle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: keyFrameRequestIntervalMilliseconds)
        buffer.reserveCapacity(1500)
    }

    /// Adds a subscriber that receives the track on `outputSSRC` with `preference`.
    /// Returns the key-frame requests its start needs.
    public func addSubscriber(_ id: String, outputSSRC: UInt32, preference: EffectivePreference = .quality(.high),
                              nowMilliseconds now: Int64) -> [UInt32] {
        let subscriber = Subscriber(id: id, outputSSRC: outputSSRC,
                                    selector: LayerSelector(plan: plan, configuration: selectorConfiguration),
                                    controller: LayerSwitchController(layerSSRCs: layerSSRCs))
        let start = subscriber.controller.setTarget(subscriber.selector.target, reason: .client, nowMilliseconds: now)
        let change = subscriber.selector.setPreference(preference, nowMilliseconds: now)
        removeSubscriber(id)
        subscribers[id] = subscriber
        ordered.insert(subscriber, at: ordered.firstIndex { $0.id > id } ?? ordered.endIndex)
        return throttled(start.keyFrameRequestSSRC.map { [$0] } ?? [], now: now) + apply(change, to: subscriber, now: now)
    }

    public func removeSubscriber(_ id: String) {
        guard subscribers.removeValue(forKey: id) != nil else { return }
        ordered.removeAll { $0.id == id }
    }

    /// Whether the track is forwarded to `id` at all (adaptive-subscription pause, on-demand
    /// consumption). Closing forwards nothing from the next packet on (the rewriter is told each
    /// packet is left out, so the stream stays contiguous). Opening restarts the subscriber's
    /// switch controller on its selector's target: nothing is forwarded until that layer's next
    /// key frame, which is requested (the returned SSRCs, rate-limited).
    public func setForwarding(_ open: Bool, for id: String, nowMilliseconds now: Int64) throws(ForwarderError) -> [UInt32] {
        guard let subscriber = subscribers[id] else { throw .unknownSubscriber(id) }
        guard subscriber.gateOpen != open else { return [] }
        subscriber.gateOpen = open
        var requests: [UInt32] = []
        // A fresh controller either way: closed, nothing is current (stats and dynaCast say so);
        // opened, it starts like a new subscriber, at the next key frame of its target.
        subscriber.controller = LayerSwitchController(layerSSRCs: layerSSRCs)
        if open {
            let start = subscriber.controller.setTarget(subscriber.selector.target, reason: .client, nowMilliseconds: now)
            if let ssrc = start.keyFrameRequestSSRC { requests.append(ssrc) }
        }
        return throttled(requests, now: now)
    }

    /// Whether the track is forwarded to `id` (see `setForwarding`); nil for an unknown subscriber.
    public func isForwarding(to id: String) -> Bool? { subscribers[id]?.gateOpen }

    /// setQuality / setViewPort / incoming-video rules, resolved for this track's publisher.
    public func setPreference(_ preference: EffectivePreference, for id: String,
                              nowMilliseconds now: Int64) throws(ForwarderError) -> [UInt32] {
        guard let subscriber = subscribers[id] else { throw .unknownSubscriber(id) }
        let change = subscriber.selector.setPreference(preference, nowMilliseconds: now)
        return apply(change, to: subscriber, now: now)
    }

    /// The subscriber's downlink estimate (e.g. from REMB).
    public func updateBandwidth(_ bitsPerSecond: Int, for id: String,
                                nowMilliseconds now: Int64) throws(ForwarderError) -> [UInt32] {
        guard let subscriber = subscribers[id] else { throw .unknownSubscriber(id) }
        let change = subscriber.selector.updateBandwidth(estimatedBitsPerSecond: bitsPerSecond, nowMilliseconds: now)
        return apply(change, to: subscriber, now: now)
    }

    /// The publisher's cap: it now sends only layers `0...index` (nil = all).
    public func setHighestAvailableSpatialLayer(_ index: Int?, nowMilliseconds now: Int64) -> [UInt32] {
        var requests: [UInt32] = []
        for subscriber in ordered {
            let change = subscriber.selector.setHighestAvailableSpatialLayer(index, nowMilliseconds: now)
            requests += apply(change, to: subscriber, now: now)
        }
        return requests
    }

    public func stats(for id: String) throws(ForwarderError) -> ForwardedTrackStats {
        guard let subscriber = subscribers[id] else { throw .unknownSubscriber(id) }
        var stats = subscriber.stats
        stats.current = subscriber.controller.current
        stats.target = subscriber.selector.target
        stats.preferredSpatialLayer = subscriber.selector.preferredSpatialLayer
        stats.preferredTemporalLayer = subscriber.selector.preferredTemporalLayer
        return stats
    }

    /// Spatial layers any subscriber currently forwards or is switching to (for dynaCast).
    public var wantedSpatialLayers: Set<Int> {
        var wanted: Set<Int> = []
        for subscriber in subscribers.values where subscriber.gateOpen {
            if let target = subscriber.controller.target { wanted.insert(target.spatial) }
            if let current = subscriber.controller.current { wanted.insert(current.spatial) }
        }
        return wanted
    }

    /// Forwards one plain RTP packet of the published track to every subscriber that should get
    /// it, rewritten for that subscriber, through `emit(subscriberId, packet)`.
    /// - Returns: SSRCs the publisher should send a key frame on (PLI), already rate-limited.
    public func forward(_ packet: ArraySlice<UInt8>, nowMilliseconds now: Int64,
                        emit: (String, ArraySlice<UInt8>) -> Void) throws(ForwarderError) -> [UInt32] {
        let view: RTPPacketView
        do {
            view = try RTPPacketView(packet)
        } catch {
            throw .malformed(error)
        }
        return try forward(view, nowMilliseconds: now, emit: emit)
    }

    /// `forward(_:nowMilliseconds:emit:)` for a packet the caller has already viewed: reads the
    /// fixed header and the VP8 descriptor once, whatever the number of subscribers.
    public func forward(_ view: RTPPacketView, nowMilliseconds now: Int64,
                        emit: (String, ArraySlice<UInt8>) -> Void) throws(ForwarderError) -> [UInt32] {
        let packet = view.bytes
        let descriptor: VP8PayloadDescriptor
        let dataRange: Range<Int>
        do {
            (descriptor, dataRange) = try view.vp8Descriptor()
        } catch {
            throw .malformed(error)
        }
        let ssrc = view.ssrc, sequenceNumber = view.sequenceNumber, timestamp = view.timestamp
        guard let spatial = layerIndex(of: ssrc, in: layerSSRCs) else {
            throw .unknownSSRC(ssrc)
        }
        let firstPacket = descriptor.isStartOfFrame
        let info = VideoPacketLayerInfo(
            spatialIndex: spatial, temporalId: descriptor.temporalID ?? 0, layerSync: descriptor.layerSync,
            keyFrame: firstPacket && VP8PayloadHeader.isKeyFrame(packet[dataRange]) == true,
            isFirstPacketOfFrame: firstPacket, arrivalMilliseconds: now)
        let pictureID = descriptor.pictureID?.value ?? 0
        let descriptorOffset = view.payloadOffset
        var requests: [UInt32] = []
        // Indices, not `for subscriber in ordered`: the same in release builds; in debug builds
        // the unspecialized array iterator allocates per element (see `layerIndex(of:in:)`).
        for index in ordered.indices {
            let subscriber = ordered[index]
            guard subscriber.gateOpen else {
                if subscriber.rewriter.packetLeftOut(sourceId: ssrc, sequenceNumber: sequenceNumber,
                                                     pictureId: pictureID) {
                    subscriber.stats.packetsLeftOut += 1
                }
                continue
            }
            let decision = subscriber.controller.process(info)
            if let event = decision.event { switchEvents.append((subscriber.id, event)) }
            if let ssrc = decision.keyFrameRequestSSRC { requests.append(ssrc) }
            if decision.shouldForward {
                let source = SourcePacket(
                    sourceId: ssrc, sequenceNumber: sequenceNumber,
                    timestamp: timestamp, pictureId: pictureID, tl0PicIdx: descriptor.tl0PicIdx ?? 0,
                    temporalId: descriptor.temporalID ?? 0, isKeyFrame: info.keyFrame, isFirstPacketOfFrame: firstPacket,
                    startsNewSource: decision.startsNewSource, arrivalMilliseconds: now)
                if case let .forward(header) = subscriber.rewriter.rewrite(source) {
                    buffer.removeAll(keepingCapacity: true)
                    buffer.append(contentsOf: packet)
                    // Offsets and fields were validated by the parse above, so these cannot throw.
                    try? RTPHeader.rewrite(in: &buffer, sequenceNumber: header.sequenceNumber,
                                           timestamp: header.timestamp, ssrc: subscriber.outputSSRC)
                    try? VP8PayloadDescriptor.rewrite(
                        in: &buffer, at: descriptorOffset,
                        pictureID: descriptor.pictureID == nil ? nil : header.pictureId,
                        tl0PicIdx: descriptor.tl0PicIdx == nil ? nil : header.tl0PicIdx)
                    subscriber.stats.packetsForwarded += 1
                    subscriber.stats.bytesForwarded += buffer.count
                    emit(subscriber.id, buffer[...])
                }
            } else if subscriber.rewriter.packetLeftOut(sourceId: ssrc,
                                                        sequenceNumber: sequenceNumber,
                                                        pictureId: pictureID) {
                subscriber.stats.packetsLeftOut += 1
            }
        }
        return throttled(requests, now: now)
    }

    /// Where a subscriber's NACKed sequence number came from: the publisher's SSRC and original
    /// sequence number to fetch from its history, and the rewritten header to resend it with.
    public func retransmissionSource(for id: String, sequenceNumber: UInt16) throws(ForwarderError)
        -> RewrittenPacketOrigin?
    {
        guard let subscriber = subscribers[id] else { throw .unknownSubscriber(id) }
        return subscriber.rewriter.origin(ofSequenceNumber: sequenceNumber)
    }

    private func apply(_ change: LayerTargetChange?, to subscriber: Subscriber, now: Int64) -> [UInt32] {
        guard let change else { return [] }
        let decision = subscriber.controller.apply(change, nowMilliseconds: now)
        if let event = decision.event { switchEvents.append((subscriber.id, event)) }
        return throttled(decision.keyFrameRequestSSRC.map { [$0] } ?? [], now: now)
    }

    private func throttled(_ requests: [UInt32], now: Int64) -> [UInt32] {
        guard !requests.isEmpty else { return [] }  // the common case, per packet: no Set, no sort
        var passed: [UInt32] = []
        for ssrc in Set(requests).sorted() where trackThrottle.shouldPass(ssrc: ssrc, nowMilliseconds: now) {
            passed.append(ssrc)
        }
        return passed
    }
}
