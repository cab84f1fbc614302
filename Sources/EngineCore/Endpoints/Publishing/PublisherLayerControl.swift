import MediaCodecs
import Simulcast

/// docs/sending-caps.md on the publisher: which of its layers it encodes.
///
/// - `setWebcamQuality` caps the layers (`.medium` stops the largest, `.low` keeps only the
///   smallest); it throws `.webcamQuality(.cameraOff)` while the camera is off and persists
///   across off/on (`WebcamQualityCap`).
/// - dynaCast (off by default): `updateWantedLayers` with the forwarder's wanted set pauses
///   layers nobody needs (target bitrate 0, no encoder re-initialisation) and resumes them, with
///   a key frame on that layer, when someone asks again (`DynaCastPolicy`). Never above the cap.
/// - A single-layer track is never paused or capped.
extension Publisher {
    /// The cap in force.
    public var webcamQuality: VideoQuality { webcamCap.quality }

    /// Whether the camera is on (frames given while off are not encoded).
    public var isCameraOn: Bool { webcamCap.isCameraOn }

    /// Whether dynaCast pauses unwatched layers.
    public var isDynaCastEnabled: Bool { dynaCastIsEnabled }

    /// Layers the encoder currently produces, lightest first.
    public var sendingLayers: [Int] { encoder?.activeLayerIndices ?? [] }

    /// `setWebcamQuality`: caps the layers sent. Throws `.webcamQuality(.cameraOff)` (keeping
    /// the old cap) while the camera is off, `.trackNotConfigured` without a camera track.
    ///
    /// The receiving side learns it in band: the layers the new cap stops get an RTCP BYE
    /// (RFC 3550 §6.6), which a `ForwardingNode` takes as "this layer is gone" and moves its
    /// subscribers down at once; the layers still sent start with a key frame, so that move
    /// happens on the next frame. A layer the cap lets through again counts from its first packet.
    public func setWebcamQuality(_ quality: VideoQuality) throws(PublisherError) {
        guard let encoder else { throw .trackNotConfigured("video") }
        let allowedBefore = Set(encoder.plan.activeLayerIndices(cap: webcamCap.quality))
        do {
            try webcamCap.setQuality(quality)
        } catch {
            throw .webcamQuality(error)
        }
        try applyLayerControl()
        let stopped = allowedBefore.subtracting(encoder.plan.activeLayerIndices(cap: quality)).sorted()
        guard !stopped.isEmpty else { return }
        try sendGoodbye(for: stopped.map { videoSenders[$0] }, reason: "webcam quality \(quality)")
        requestKeyFrame()
    }

    /// Turns the camera off (frames are skipped) or on again (the cap set earlier applies, and
    /// the first frame is a key frame).
    public func setCameraEnabled(_ enabled: Bool) throws(PublisherError) {
        guard encoder != nil else { throw .trackNotConfigured("video") }
        guard enabled != webcamCap.isCameraOn else { return }
        if enabled {
            webcamCap.cameraTurnedOn()
            try applyLayerControl()
            requestKeyFrame()
        } else {
            webcamCap.cameraTurnedOff()
        }
    }

    /// Turns dynaCast on or off (off: every layer under the cap is sent again).
    public func setDynaCast(enabled: Bool) throws(PublisherError) {
        dynaCastIsEnabled = enabled
        try applyLayerControl()
    }

    /// The spatial layers some subscriber needs (e.g. `ForwardingNode.wantedSpatialLayers`).
    /// With dynaCast on, the rest pause and paused wanted ones resume. Returns what changed.
    @discardableResult
    public func updateWantedLayers(_ wanted: Set<Int>) throws(PublisherError) -> DynaCastUpdate {
        wantedLayers = wanted
        return try applyLayerControl()
    }

    /// The low-level hook: encode exactly `layers`; the others are paused as unwatched (target
    /// bitrate 0, docs/layer-plan.md, configured bitrate kept); a layer that resumes starts with a key frame.
    /// The cap and a REMB limit still apply on top. Ignored on a single-layer track.
    public func setActiveLayers(_ layers: Set<Int>) throws(PublisherError) {
        guard let encoder, encoder.plan.layers.count > 1 else { return }
        do {
            for layer in encoder.plan.layers {
                try encoder.setPaused(!layers.contains(layer.index), layer: layer.index, reason: .unwatched)
            }
            try encoder.apply(cap: webcamCap.quality)
        } catch {
            throw .encoder(error)
        }
    }

    @discardableResult
    private func applyLayerControl() throws(PublisherError) -> DynaCastUpdate {
        guard let encoder, var policy = dynaCast else { return DynaCastUpdate(sending: [], resumed: [], paused: []) }
        let everyLayer = Set(encoder.plan.layers.indices)
        let update = policy.update(wantedLayers: wantedLayers ?? everyLayer, cap: webcamCap.quality,
                                   dynaCastEnabled: dynaCastIsEnabled)
        dynaCast = policy
        try setActiveLayers(Set(update.sending))
        return update
    }
}
