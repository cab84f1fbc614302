import MediaCodecs
import Simulcast
import SessionCore

/// Fits a publisher's video to the bitrate the far end allows: with send-side estimation each
/// layer gets its share of the estimate (`SimulcastRateAllocator`: bitrates set, layers that get
/// nothing paused for bandwidth); with REMB alone (`REMBPolicy.limitLayers`) top layers pause
/// and resume as whole layers (`REMBLayerAllocator`); with `.ignore` nothing changes.
struct PublisherVideoAllocation {
    private var rembAllocator: REMBLayerAllocator?
    /// With send-side estimation: the estimate split across the layers.
    private var rateAllocator: SimulcastRateAllocator?
    /// Layers paused / resumed for bandwidth.
    private(set) var layerPauses = 0
    private(set) var layerResumes = 0

    init(configuration: PublisherConfiguration) {
        guard let video = configuration.video, case let .limitLayers(headroom, hold, expiry) = configuration.rembPolicy else { return }
        rembAllocator = REMBLayerAllocator(layerKbps: video.plan.layers.map(\.bitrates.targetKbps),
                                           resumeHeadroom: headroom, resumeHoldMilliseconds: hold,
                                           expiryMilliseconds: expiry)
        if configuration.sendSideEstimation != nil {
            rateAllocator = SimulcastRateAllocator(layers: video.plan.layers.map(\.bitrates))
        }
    }

    /// Layers the allocation lets run (nil: no allocation runs).
    var activeLayerCount: Int? { rateAllocator?.runningLayerCount ?? rembAllocator?.activeLayerCount }

    /// What the camera would send with every layer it may (not paused for nobody watching),
    /// with the allocator's resume headroom: what probing climbs to.
    func wantedBitsPerSecond(_ encoder: SimulcastEncoder) -> UInt64 {
        var kbps = 0
        for index in encoder.plan.layers.indices where !encoder.isPaused(layer: index, reason: .unwatched) {
            kbps += encoder.plan.layers[index].bitrates.targetKbps
        }
        return UInt64(Double(kbps) * 1_000 * (rembAllocator?.resumeHeadroom ?? 1.15))
    }

    /// A REMB limit lapses when REMBs stop coming (the send-side estimate never does): resumes
    /// the layers it paused once it expired.
    mutating func expireREMBLimit(_ encoder: SimulcastEncoder, nowMilliseconds: Int64) throws(PublisherError) {
        guard rateAllocator == nil, var allocator = rembAllocator,
              encoder.plan.layers.indices.contains(where: { encoder.isPaused(layer: $0, reason: .bandwidth) }) else { return }
        let active = allocator.expire(nowMilliseconds: nowMilliseconds)
        rembAllocator = allocator
        _ = try applyLayerCount(active, encoder: encoder)
    }

    /// Fits the video to `bitsPerSecond`; returns the layers paused and resumed.
    mutating func limit(_ encoder: SimulcastEncoder, to bitsPerSecond: UInt64,
                        nowMilliseconds: Int64) throws(PublisherError) -> (paused: Int, resumed: Int) {
        if rateAllocator != nil { return try allocate(encoder, bitsPerSecond, nowMilliseconds: nowMilliseconds) }
        guard var allocator = rembAllocator else { return (0, 0) }
        let active = allocator.update(bitrate: bitsPerSecond, nowMilliseconds: nowMilliseconds)
        rembAllocator = allocator
        return try applyLayerCount(active, encoder: encoder)
    }

    /// Splits `bitsPerSecond` across the layers that may run (watched, within the cap): each
    /// running layer's encoder bitrate follows its share (set when it moved more than 5 %), a
    /// layer with no share is paused for bandwidth, one that gets a share again resumes (with a
    /// key frame).
    private mutating func allocate(_ encoder: SimulcastEncoder, _ bitsPerSecond: UInt64,
                                   nowMilliseconds: Int64) throws(PublisherError) -> (paused: Int, resumed: Int) {
        guard var allocator = rateAllocator else { return (0, 0) }
        let allowed = encoder.plan.layers.indices.map {
            !encoder.isPaused(layer: $0, reason: .unwatched) && !encoder.isCapped(layer: $0)
        }
        let shares = allocator.allocate(bitsPerSecond: bitsPerSecond, allowed: allowed, nowMilliseconds: nowMilliseconds)
        rateAllocator = allocator
        var changes = (paused: 0, resumed: 0)
        for index in shares.indices where allowed[index] {
            let pausedForBandwidth = encoder.isPaused(layer: index, reason: .bandwidth)
            guard shares[index] > 0 else {
                if !pausedForBandwidth { try setPausedForBandwidth(true, layer: index, encoder, &changes) }
                continue
            }
            do {
                let current = try encoder.targetBitrateKbps(forLayer: index)
                if abs(shares[index] - current) * 20 > current { try encoder.setBitrate(kbps: shares[index], forLayer: index) }
            } catch {
                throw .encoder(error)
            }
            if pausedForBandwidth { try setPausedForBandwidth(false, layer: index, encoder, &changes) }
        }
        return changes
    }

    /// Pauses layers from `active` up for bandwidth and resumes the ones below it that REMB paused
    /// (the encoder starts a layer with a key frame once nothing else pauses it).
    private mutating func applyLayerCount(_ active: Int, encoder: SimulcastEncoder) throws(PublisherError) -> (paused: Int, resumed: Int) {
        var changes = (paused: 0, resumed: 0)
        for index in encoder.plan.layers.indices {
            let pausedForBandwidth = encoder.isPaused(layer: index, reason: .bandwidth)
            if (index >= active) != pausedForBandwidth {
                try setPausedForBandwidth(index >= active, layer: index, encoder, &changes)
            }
        }
        return changes
    }

    /// Pauses or resumes `layer` for bandwidth, counted in `changes` and in the totals.
    private mutating func setPausedForBandwidth(_ pause: Bool, layer: Int, _ encoder: SimulcastEncoder,
                                                _ changes: inout (paused: Int, resumed: Int)) throws(PublisherError) {
        do {
            try encoder.setPaused(pause, layer: layer, reason: .bandwidth)
        } catch {
            throw .encoder(error)
        }
        if pause {
            layerPauses += 1
            changes.paused += 1
        } else {
            layerResumes += 1
            changes.resumed += 1
        }
    }
}
