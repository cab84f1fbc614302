/// A spatial + temporal layer pair of one published video track: what a subscriber should get
/// (target) or is getting (current). Spatial 0 = lightest published layer (docs/layer-plan.md); temporal
/// is the highest forwarded temporal id (TID of RFC 7741 §4.2), 0 = base layer only.
public struct LayerTarget: Sendable, Hashable, CustomStringConvertible {
    /// Spatial layer index, 0 = lightest.
    public var spatial: Int
    /// Highest temporal id included, 0 = base layer only.
    public var temporal: Int

    public init(spatial: Int, temporal: Int) {
        self.spatial = spatial
        self.temporal = temporal
    }

    /// `S<spatial>T<temporal>`, e.g. `S2T1`.
    public var description: String { "S\(spatial)T\(temporal)" }
}

/// Why a subscriber's layer changed (docs/receiving.md "Every switch emits an event").
public enum LayerChangeReason: Sendable, Hashable {
    /// The estimated bandwidth could no longer carry the previous layer.
    case bandwidthDown
    /// The estimated bandwidth has carried a higher layer long enough to move up.
    case bandwidthUp
    /// The subscriber changed its preference (quality, viewport, incoming-video setting).
    case client
    /// Extension to docs/receiving.md's list: the publisher stopped or resumed sending layers (its quality
    /// cap, docs/sending-caps.md), so the layers available to choose from changed.
    case publisher
}

/// A change of a `LayerSelector`'s target.
public struct LayerTargetChange: Sendable, Hashable {
    /// The previous target; nil when no video was wanted.
    public var from: LayerTarget?
    /// The new target; nil when no video is wanted (disabled).
    public var to: LayerTarget?
    /// Why the target changed.
    public var reason: LayerChangeReason

    public init(from: LayerTarget?, to: LayerTarget?, reason: LayerChangeReason) {
        self.from = from
        self.to = to
        self.reason = reason
    }
}

/// `to - from` in milliseconds, saturating instead of trapping on absurd inputs.
func elapsedMilliseconds(from start: Int64, to end: Int64) -> Int64 {
    let (difference, overflow) = end.subtractingReportingOverflow(start)
    if overflow { return end < start ? Int64.min : Int64.max }
    return difference
}
