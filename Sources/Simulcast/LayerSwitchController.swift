/// What the forwarder needs to know about one incoming video RTP packet of a simulcast track
/// to decide whether to forward it (fields of the VP8 payload descriptor, RFC 7741 §4.2).
public struct VideoPacketLayerInfo: Sendable, Hashable {
    /// Spatial layer index in the published set (0 = lightest), e.g. resolved from the SSRC or RID.
    public var spatialIndex: Int
    /// TID: the packet's temporal layer.
    public var temporalId: UInt8
    /// Y bit: the frame depends only on TL0 frames, so a receiver may start decoding this
    /// temporal layer here.
    public var layerSync: Bool
    /// The frame is a key frame (VP8 P bit clear on the frame's first partition).
    public var keyFrame: Bool
    /// S bit with PID 0: the packet starts a frame.
    public var isFirstPacketOfFrame: Bool
    /// Arrival time in milliseconds on the caller's monotonic clock.
    public var arrivalMilliseconds: Int64

    public init(spatialIndex: Int, temporalId: UInt8, layerSync: Bool, keyFrame: Bool,
                isFirstPacketOfFrame: Bool, arrivalMilliseconds: Int64) {
        self.spatialIndex = spatialIndex
        self.temporalId = temporalId
        self.layerSync = layerSync
        self.keyFrame = keyFrame
        self.isFirstPacketOfFrame = isFirstPacketOfFrame
        self.arrivalMilliseconds = arrivalMilliseconds
    }
}

/// A change of the layer actually forwarded to a subscriber (docs/receiving.md "Every switch emits an
/// event").
public struct LayerSwitchEvent: Sendable, Hashable {
    /// The layer forwarded before; nil when nothing was forwarded.
    public var from: LayerTarget?
    /// The layer forwarded from now on; nil when video was disabled.
    public var to: LayerTarget?
    /// The reason of the target change that this switch carries out.
    public var reason: LayerChangeReason
    /// Milliseconds from the target change to this switch; for a spatial switch that is the
    /// arrival of the first forwarded key frame of the new layer.
    public var latencyMilliseconds: Int64

    public init(from: LayerTarget?, to: LayerTarget?, reason: LayerChangeReason, latencyMilliseconds: Int64) {
        self.from = from
        self.to = to
        self.reason = reason
        self.latencyMilliseconds = latencyMilliseconds
    }
}

/// What to do after a target change or an incoming packet.
public struct ForwardingDecision: Sendable, Hashable {
    /// Forward the packet to the subscriber (always false for a target change).
    public var shouldForward: Bool
    /// This packet is the first of a new spatial layer (tell `StreamRewriter`).
    public var startsNewSource: Bool
    /// Send a key-frame request (PLI) for this SSRC; already rate-limited.
    public var keyFrameRequestSSRC: UInt32?
    /// The forwarded layer changed.
    public var event: LayerSwitchEvent?

    public init(shouldForward: Bool = false, startsNewSource: Bool = false,
                keyFrameRequestSSRC: UInt32? = nil, event: LayerSwitchEvent? = nil) {
        self.shouldForward = shouldForward
        self.startsNewSource = startsNewSource
        self.keyFrameRequestSSRC = keyFrameRequestSSRC
        self.event = event
    }
}

/// Turns a subscriber's target layer (`LayerSelector`) into per-packet forwarding decisions
/// that never hand the decoder a frame it cannot decode (docs/receiving.md):
///
/// - Spatial switch (and the first start) only at a key frame of the target spatial layer.
///   Until it arrives the old layer keeps flowing, and a key-frame request for the target
///   layer's SSRC is emitted, at most once per `KeyFrameRequestThrottle` interval, repeated
///   while the switch is pending (so a lost key frame or request is retried).
/// - Temporal up-switch only at a frame carrying the Y bit (RFC 7741 §4.2: decodable from TL0
///   alone) whose TID is one above the forwarded temporal layer (one layer per Y frame), or at a
///   key frame (straight to the target). A TL0 frame alone is not a sync point: under docs/layer-plan.md's L1T3 pattern TL1
///   frames also reference GOLDEN, which only TL1 frames refresh.
/// - Temporal down-switch at the next frame boundary of the forwarded layer.
/// - While a spatial switch is pending the old layer is never thickened, and it is thinned
///   (temporal down) only when the switch goes down, so a bandwidth-down does not cost more
///   while it waits and an up-switch does not drop the frame rate while it waits.
/// - Decisions are per frame: the first packet of a frame decides for the rest of it, and a
///   packet whose TID is above the forwarded temporal layer is never forwarded.
///
/// The throttle is per controller (one subscriber × track); a forwarder serving many
/// subscribers of one track can pass the returned SSRCs through one more track-level
/// `KeyFrameRequestThrottle` so the publisher sees at most one request per interval.
///
/// `LayerSwitchEvent.latencyMilliseconds` counts from the moment the forwarded layer started
/// to differ from the target (a later target change while a switch is pending keeps that start).
public struct LayerSwitchController: Sendable {
    /// Media SSRC of each spatial layer, by spatial index; where key-frame requests go.
    public let layerSSRCs: [UInt32]
    /// The layer being forwarded; nil before the first key frame or while disabled.
    public private(set) var current: LayerTarget?
    /// The layer wanted (from `LayerSelector`); nil when video is disabled.
    public private(set) var target: LayerTarget?

    private var targetReason: LayerChangeReason = .client
    /// When the forwarded layer started to differ from the target.
    private var mismatchSince: Int64?
    /// The decision taken at the first packet of the current frame of the forwarded layer.
    private var forwardingFrame = false
    private var throttle: KeyFrameRequestThrottle

    public init(layerSSRCs: [UInt32], keyFrameRequestIntervalMilliseconds: Int64 = 300) {
        self.layerSSRCs = layerSSRCs
        throttle = KeyFrameRequestThrottle(minimumIntervalMilliseconds: keyFrameRequestIntervalMilliseconds)
    }

    /// Whether a spatial switch (or the first start) is waiting for a key frame.
    public var isSpatialSwitchPending: Bool {
        guard let target else { return false }
        return current?.spatial != target.spatial
    }

    /// Applies a `LayerSelector` change.
    public mutating func apply(_ change: LayerTargetChange, nowMilliseconds now: Int64) -> ForwardingDecision {
        setTarget(change.to, reason: change.reason, nowMilliseconds: now)
    }

    /// Sets the wanted layer. Disabling (nil) stops forwarding at once and emits the event;
    /// everything else takes effect at a suitable frame (see the type's rules).
    public mutating func setTarget(_ newTarget: LayerTarget?, reason: LayerChangeReason,
                                   nowMilliseconds now: Int64) -> ForwardingDecision {
        guard newTarget != target else { return ForwardingDecision() }
        target = newTarget
        targetReason = reason
        guard let newTarget else {
            let previous = current
            current = nil
            forwardingFrame = false
            let latency = mismatchSince.map { elapsedMilliseconds(from: $0, to: now) } ?? 0
            mismatchSince = nil
            let event = previous.map { LayerSwitchEvent(from: $0, to: nil, reason: reason, latencyMilliseconds: max(0, latency)) }
            return ForwardingDecision(event: event)
        }
        if current == newTarget {
            mismatchSince = nil
        } else if mismatchSince == nil {
            mismatchSince = now
        }
        return ForwardingDecision(keyFrameRequestSSRC: keyFrameRequestIfPending(now: now))
    }

    /// Decides about one incoming packet of the track.
    public mutating func process(_ packet: VideoPacketLayerInfo) -> ForwardingDecision {
        let now = packet.arrivalMilliseconds
        guard let target else { return ForwardingDecision() }
        let tid = Int(packet.temporalId)

        // Spatial switch or start: only at the first packet of a key frame of the target layer.
        if current?.spatial != target.spatial {
            if packet.spatialIndex == target.spatial, packet.keyFrame, packet.isFirstPacketOfFrame {
                let previous = current
                current = target
                forwardingFrame = true
                let event = LayerSwitchEvent(from: previous, to: target, reason: targetReason,
                                             latencyMilliseconds: latencySinceMismatch(now: now))
                mismatchSince = nil
                return ForwardingDecision(shouldForward: true, startsNewSource: true, event: event)
            }
        }

        let request = keyFrameRequestIfPending(now: now)
        guard var forwarded = current, packet.spatialIndex == forwarded.spatial else {
            return ForwardingDecision(keyFrameRequestSSRC: request)
        }
        guard packet.isFirstPacketOfFrame else {
            return ForwardingDecision(shouldForward: forwardingFrame && tid <= forwarded.temporal,
                                      keyFrameRequestSSRC: request)
        }

        // A frame boundary of the forwarded layer: temporal switches happen here.
        let spatialPending = forwarded.spatial != target.spatial
        // Thinning while a switch is pending only helps a move down (it saves bandwidth that is
        // short); waiting for a bigger layer's key frame at a lower frame rate would only look worse.
        if target.temporal < forwarded.temporal, !spatialPending || target.spatial < forwarded.spatial {
            forwarded.temporal = target.temporal
        } else if target.temporal > forwarded.temporal, !spatialPending {
            if packet.keyFrame {
                forwarded.temporal = target.temporal
            } else if packet.layerSync, tid - 1 == forwarded.temporal, tid <= target.temporal {
                // One layer per Y frame: a TL2 Y frame is decodable from TL0 alone, but the TL1
                // frames after it are not until a TL1 Y frame has been forwarded.
                forwarded.temporal = tid
            }
        }
        var event: LayerSwitchEvent?
        if let previous = current, forwarded != previous {
            current = forwarded
            event = LayerSwitchEvent(from: previous, to: forwarded, reason: targetReason,
                                     latencyMilliseconds: latencySinceMismatch(now: now))
            if forwarded == target { mismatchSince = nil }
        }
        forwardingFrame = tid <= forwarded.temporal
        return ForwardingDecision(shouldForward: forwardingFrame, keyFrameRequestSSRC: request, event: event)
    }

    private func latencySinceMismatch(now: Int64) -> Int64 {
        guard let since = mismatchSince else { return 0 }
        return max(0, elapsedMilliseconds(from: since, to: now))
    }

    private mutating func keyFrameRequestIfPending(now: Int64) -> UInt32? {
        guard isSpatialSwitchPending, let target, layerSSRCs.indices.contains(target.spatial) else { return nil }
        let ssrc = layerSSRCs[target.spatial]
        return throttle.shouldPass(ssrc: ssrc, nowMilliseconds: now) ? ssrc : nil
    }
}
