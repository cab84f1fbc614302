/// Which layers a publisher sends after dynaCast and its quality cap, and what changed.
public struct DynaCastUpdate: Sendable, Equatable {
    /// Layers to send now, ascending.
    public var sending: [Int]
    /// Layers that were paused and are sent again: they need a key frame (docs/sending-caps.md).
    public var resumed: [Int]
    /// Layers that were sent and are now paused (target bitrate 0, docs/layer-plan.md).
    public var paused: [Int]

    public init(sending: [Int], resumed: [Int], paused: [Int]) {
        self.sending = sending
        self.resumed = resumed
        self.paused = paused
    }

    /// Whether the encoder must produce a key frame (a request forces one on every layer).
    public var needsKeyFrame: Bool { !resumed.isEmpty }
}

/// Publisher-side layer pausing (docs/sending-caps.md dynaCast) combined with the webcam quality cap.
///
/// - The cap bounds everything: layers above `LayerPlan.activeLayerIndices(cap:)` are never sent.
/// - dynaCast off (the default): every layer under the cap is sent.
/// - dynaCast on: layers above the highest layer any subscriber wants are paused; that layer
///   and every lighter one keep flowing, because a subscriber's `LayerSelector` falls back to
///   lighter layers when its bandwidth drops and must find them running (a paused fallback would
///   cost a resume and key-frame round trip exactly when the network is struggling). A wanted
///   layer above the cap is served by the highest layer under it (tell the selectors with
///   `setHighestAvailableSpatialLayer`). No wanted layer at all means nothing is sent.
/// - A single-layer track is never affected: its one layer is always sent.
/// - A layer that starts being sent again is reported as resumed, so a key frame is requested.
///
/// The wanted set is the union of the subscribers' `LayerSelector.preferredSpatialLayer`s
/// (preference, not bandwidth-limited target, so a subscriber recovering bandwidth finds its
/// layer still flowing).
public struct DynaCastPolicy: Sendable, Equatable {
    /// Number of published layers.
    public let layerCount: Int
    private let plan: LayerPlan
    /// Layers currently sent, ascending. Initially every layer under the initial cap.
    public private(set) var sending: [Int]

    public init(plan: LayerPlan, initialCap: VideoQuality = .high) {
        self.plan = plan
        layerCount = plan.layers.count
        sending = plan.activeLayerIndices(cap: initialCap)
    }

    /// The layers to send for this cap, dynaCast setting and set of wanted layers (pure).
    public static func layersToSend(plan: LayerPlan, cap: VideoQuality, dynaCastEnabled: Bool,
                                    wantedLayers: Set<Int>) -> [Int] {
        let allowed = plan.activeLayerIndices(cap: cap)
        guard plan.layers.count > 1, dynaCastEnabled, let highestAllowed = allowed.last else { return allowed }
        guard let highestWanted = wantedLayers.filter({ $0 >= 0 }).max() else { return [] }
        let highestSent = min(highestWanted, highestAllowed)
        return allowed.filter { $0 <= highestSent }
    }

    /// Recomputes the sent layers and reports which resumed and which paused.
    public mutating func update(wantedLayers: Set<Int>, cap: VideoQuality, dynaCastEnabled: Bool) -> DynaCastUpdate {
        let next = Self.layersToSend(plan: plan, cap: cap, dynaCastEnabled: dynaCastEnabled, wantedLayers: wantedLayers)
        let update = DynaCastUpdate(sending: next,
                                    resumed: next.filter { !sending.contains($0) },
                                    paused: sending.filter { !next.contains($0) })
        sending = next
        return update
    }
}
