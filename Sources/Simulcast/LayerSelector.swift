/// Chooses, for one subscriber and one published video track, the target spatial and temporal
/// layer (docs/receiving.md): the subscriber's preference bounded by its estimated bandwidth.
///
/// Preference → preferred spatial layer (`preferredSpatialLayer(for:layers:publishedAtSD540:)`).
///
/// Bandwidth: the selector walks a ladder of (spatial, temporal) rungs below the preferred
/// layer, needing the spatial layer's target bitrate times the cumulative temporal share
/// (docs/layer-plan.md: TL0 = 40 %, TL0+1 = 60 %, all = 100 %). The ladder, highest first, is
/// `(P,2) (P,1) (P-1,2) (P-1,1) … (0,2) (0,1) (0,0)`: a layer is first thinned to 15 fps
/// before dropping to the next smaller size, and 7.5 fps is used only on the smallest layer.
/// With docs/layer-plan.md's bitrates this ladder is strictly decreasing (2500, 1500, 500, 300, 150, 90, 60
/// kbps on 1280x720), while a 7.5 fps top layer (1000 kbps) would cost more than the full
/// medium layer and look worse. When even the last rung does not fit it is still delivered;
/// pausing video entirely is adaptive subscriptions' job (docs/adaptive-subscriptions.md).
///
/// Hysteresis: the selector moves down as soon as an estimate is below what the current rung
/// needs, to the highest rung that fits. It moves up only to a rung that every estimate for at
/// least `Configuration.upSwitchHoldMilliseconds` has covered with `upSwitchHeadroom` to spare.
/// So a higher rung is re-entered at most once per hold time, and an estimate jittering by less
/// than the headroom around any boundary causes at most one switch.
///
/// Before the first estimate the bandwidth is taken as unlimited (the preferred layer).
///
/// Pure: time is a parameter (milliseconds on any monotonic clock).
public struct LayerSelector: Sendable {
    /// Tuning of the bandwidth rules.
    public struct Configuration: Sendable, Equatable {
        /// How long every estimate must support a higher rung before moving up.
        public var upSwitchHoldMilliseconds: Int64
        /// Factor by which estimates must exceed a higher rung's need to count as supporting it.
        public var upSwitchHeadroom: Double
        /// Cumulative share of a spatial layer's target bitrate needed by temporal layers
        /// 0...n-1 (docs/layer-plan.md L1T3: 40 % / 60 % / 100 %). Its count is the temporal layer count.
        public var temporalBitrateShares: [Double]

        public init(upSwitchHoldMilliseconds: Int64 = 3_000, upSwitchHeadroom: Double = 1.1,
                    temporalBitrateShares: [Double] = [0.4, 0.6, 1.0]) {
            // A headroom below 1 would let an estimate that triggers an up-switch also trigger
            // the next down-switch, so it is clamped to 1 (and the hold to ≥ 0).
            self.upSwitchHoldMilliseconds = max(0, upSwitchHoldMilliseconds)
            self.upSwitchHeadroom = upSwitchHeadroom.isFinite ? max(1, upSwitchHeadroom) : 1
            // Shares are clamped to 0...1 (non-finite → 1) so a need can never overflow an Int.
            let shares = temporalBitrateShares.map { $0.isFinite ? min(max($0, 0), 1) : 1 }
            self.temporalBitrateShares = shares.isEmpty ? [1.0] : shares
        }
    }

    /// Published layer sizes, lightest first (`LayerPlan.layers`).
    public let layerSizes: [VideoSize]
    /// Each spatial layer's target bitrate in bits per second.
    public let layerTargetBitsPerSecond: [Int]
    /// Whether the track was published at the 960x540 preset (docs/receiving.md: ask one layer lower).
    public let publishedAtSD540: Bool
    /// The bandwidth-rule tuning.
    public let configuration: Configuration

    /// The current effective preference (default: `.quality(.high)`).
    public private(set) var preference: EffectivePreference = .quality(.high)
    /// The highest spatial layer the publisher currently sends (its cap); nil = all.
    public private(set) var highestAvailableSpatialLayer: Int?
    /// The last bandwidth estimate, in bits per second; nil until the first one.
    public private(set) var estimatedBitsPerSecond: Int?
    /// The layer the subscriber should receive now; nil when video is disabled.
    public private(set) var target: LayerTarget?

    private var ladder: [LayerTarget] = []
    private var currentRung = 0
    /// Per ladder rung above `currentRung`: since when every estimate has supported it.
    private var supportedSince: [Int64?] = []

    /// - Parameters:
    ///   - layers: the published layers, lightest first, with their bitrates (`LayerPlan.layers`).
    ///   - publishedAtSD540: the track was published at the 960x540 preset.
    public init(layers: [LayerSpec], publishedAtSD540: Bool = false, configuration: Configuration = .init()) {
        layerSizes = layers.map { VideoSize(width: $0.width, height: $0.height) }
        layerTargetBitsPerSecond = layers.map { Self.bitsPerSecond(kbps: $0.bitrates.targetKbps) }
        self.publishedAtSD540 = publishedAtSD540
        self.configuration = configuration
        rebuildLadder()
        target = ladder.first
    }

    /// A selector for layers of these sizes (lightest first) and target bitrates in kbps, e.g.
    /// measured ones. A layer without a bitrate gets docs/layer-plan.md's default for its size.
    public init(layerSizes: [VideoSize], targetKbps: [Int], publishedAtSD540: Bool = false,
                configuration: Configuration = .init()) {
        self.layerSizes = layerSizes
        layerTargetBitsPerSecond = layerSizes.indices.map { index in
            let kbps = targetKbps.indices.contains(index)
                ? targetKbps[index]
                : LayerBitrates.defaults(width: layerSizes[index].width, height: layerSizes[index].height).targetKbps
            return Self.bitsPerSecond(kbps: kbps)
        }
        self.publishedAtSD540 = publishedAtSD540
        self.configuration = configuration
        rebuildLadder()
        target = ladder.first
    }

    /// kbps → bps, clamped to 0...1 Tbps so later arithmetic cannot overflow.
    private static func bitsPerSecond(kbps: Int) -> Int { min(max(0, kbps), 1_000_000_000) * 1000 }

    /// A selector for a track published with `plan`; the 960x540 preset is recognised from the
    /// plan's encoder size (either orientation).
    public init(plan: LayerPlan, configuration: Configuration = .init()) {
        let sd = LayerPlan.sd540
        let isSD540 = (plan.encoderWidth == sd.width && plan.encoderHeight == sd.height)
            || (plan.encoderWidth == sd.height && plan.encoderHeight == sd.width)
        self.init(layers: plan.layers, publishedAtSD540: isSD540, configuration: configuration)
    }

    /// Number of temporal layers per spatial layer.
    public var temporalLayerCount: Int { configuration.temporalBitrateShares.count }

    /// The spatial layer the preference asks for, before bandwidth and the publisher's cap;
    /// nil when disabled. This is what dynaCast must keep sending (docs/sending-caps.md).
    public var preferredSpatialLayer: Int? {
        Self.preferredSpatialLayer(for: preference, layers: layerSizes, publishedAtSD540: publishedAtSD540)
    }

    /// The highest temporal layer (all frames): the preferred temporal layer whenever video is wanted.
    public var preferredTemporalLayer: Int? { preferredSpatialLayer == nil ? nil : temporalLayerCount - 1 }

    /// docs/receiving.md preference → spatial layer index, on `layers` (lightest first).
    /// - `.high`: the top layer; `.low`: layer 0; `.medium`: the largest layer whose width and
    ///   height are at most half the top layer's (layer 0 if none). On a track published at the
    ///   960x540 preset a quality asks for one layer lower, clamped at 0.
    /// - `.viewPort`: the smallest layer at least as wide and as tall as the view; the top if none.
    /// - `.disabled`: nil. Also nil when there are no layers.
    public static func preferredSpatialLayer(for preference: EffectivePreference, layers: [VideoSize],
                                             publishedAtSD540: Bool) -> Int? {
        guard let top = layers.last else { return nil }
        let topIndex = layers.count - 1
        switch preference {
        case .disabled:
            return nil
        case .viewPort(let view):
            return layers.firstIndex { $0.width >= view.width && $0.height >= view.height } ?? topIndex
        case .quality(let quality):
            let index: Int
            switch quality {
            case .high: index = topIndex
            case .low: index = 0
            case .medium:
                index = layers.lastIndex { $0.width <= top.width / 2 && $0.height <= top.height / 2 } ?? 0
            }
            return publishedAtSD540 ? max(0, index - 1) : index
        }
    }

    /// Bits per second a subscriber needs to receive `layer` (target bitrate × temporal share).
    public func requiredBitsPerSecond(_ layer: LayerTarget) -> Int {
        guard layerTargetBitsPerSecond.indices.contains(layer.spatial) else { return 0 }
        let shares = configuration.temporalBitrateShares
        let share = shares[min(max(0, layer.temporal), shares.count - 1)]
        return Int((Double(layerTargetBitsPerSecond[layer.spatial]) * share).rounded())
    }

    /// Applies a new effective preference (`SubscriberPreference.effectivePreference`). The new
    /// target is the highest rung under the new preference that the last estimate carries (no
    /// hold: the subscriber asked). Re-asserting a preference that maps to the same layer changes
    /// nothing, so a viewport resize cannot bypass the up-switch hold.
    public mutating func setPreference(_ newPreference: EffectivePreference,
                                       nowMilliseconds: Int64) -> LayerTargetChange? {
        preference = newPreference
        return retarget(reason: .client)
    }

    /// The publisher now sends only layers `0...index` (its cap, docs/sending-caps.md); nil = every layer.
    public mutating func setHighestAvailableSpatialLayer(_ index: Int?,
                                                         nowMilliseconds: Int64) -> LayerTargetChange? {
        highestAvailableSpatialLayer = index.map { max(0, $0) }
        return retarget(reason: .publisher)
    }

    /// Feeds the subscriber's estimated downlink bandwidth (e.g. REMB or transport-cc based).
    public mutating func updateBandwidth(estimatedBitsPerSecond estimate: Int,
                                         nowMilliseconds now: Int64) -> LayerTargetChange? {
        estimatedBitsPerSecond = estimate
        guard target != nil, !ladder.isEmpty else { return nil }
        let needed = requiredBitsPerSecond(ladder[currentRung])
        if estimate < needed {
            // The highest rung below the current one that fits (the last rung if none does).
            let below = ladder.indices.dropFirst(currentRung + 1)
            let rung = below.first { requiredBitsPerSecond(ladder[$0]) <= estimate } ?? ladder.count - 1
            guard rung > currentRung else { return nil }
            for index in 0..<ladder.count { supportedSince[index] = nil }
            return move(to: rung, reason: .bandwidthDown)
        }
        var best: Int?
        for index in stride(from: currentRung - 1, through: 0, by: -1) {
            let supported = Double(estimate) >= Double(requiredBitsPerSecond(ladder[index])) * configuration.upSwitchHeadroom
            guard supported else { supportedSince[index] = nil; continue }
            let since = supportedSince[index] ?? now
            supportedSince[index] = since
            if elapsedMilliseconds(from: since, to: now) >= configuration.upSwitchHoldMilliseconds { best = index }
        }
        guard let rung = best else { return nil }
        for index in rung..<ladder.count { supportedSince[index] = nil }
        return move(to: rung, reason: .bandwidthUp)
    }

    // MARK: - Internals

    private var effectiveTopSpatialLayer: Int? {
        guard let preferred = preferredSpatialLayer else { return nil }
        guard let cap = highestAvailableSpatialLayer else { return preferred }
        return min(preferred, cap)
    }

    private mutating func rebuildLadder() {
        ladder = []
        if let top = effectiveTopSpatialLayer {
            let highestTemporal = temporalLayerCount - 1
            for spatial in stride(from: top, through: 0, by: -1) {
                let lowestTemporal = spatial == 0 ? 0 : min(1, highestTemporal)
                for temporal in stride(from: highestTemporal, through: lowestTemporal, by: -1) {
                    ladder.append(LayerTarget(spatial: spatial, temporal: temporal))
                }
            }
        }
        supportedSince = Array(repeating: nil, count: ladder.count)
    }

    /// The highest rung the estimate carries (the last rung if none does).
    private func firstFittingRung(estimate: Int) -> Int {
        ladder.firstIndex { requiredBitsPerSecond($0) <= estimate } ?? max(0, ladder.count - 1)
    }

    private mutating func retarget(reason: LayerChangeReason) -> LayerTargetChange? {
        // Invariant: `target == ladder[currentRung]`, or nil with an empty ladder.
        let old = target
        if effectiveTopSpatialLayer == ladder.first?.spatial { return nil }
        rebuildLadder()
        guard !ladder.isEmpty else {
            target = nil
            return old == nil ? nil : LayerTargetChange(from: old, to: nil, reason: reason)
        }
        currentRung = estimatedBitsPerSecond.map { firstFittingRung(estimate: $0) } ?? 0
        target = ladder[currentRung]
        return old == target ? nil : LayerTargetChange(from: old, to: target, reason: reason)
    }

    private mutating func move(to rung: Int, reason: LayerChangeReason) -> LayerTargetChange? {
        let old = target
        currentRung = rung
        target = ladder[rung]
        return old == target ? nil : LayerTargetChange(from: old, to: target, reason: reason)
    }
}
