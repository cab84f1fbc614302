internal import CVPX

/// The temporal pattern of one spatial layer: L1T3 for cameras (docs/layer-plan.md), temporal ids repeating
/// 0, 2, 1, 2; L1T2 for screen shares (issue 17), ids repeating 0, 1.
///
/// Buffers: TL0 references and updates LAST; TL1 references LAST (and GOLDEN from the second
/// cycle after a key frame on) and updates only GOLDEN; TL2 references only LAST and updates
/// nothing. TL1 and TL2 never update the entropy context (`VP8_EFLAG_NO_UPD_ENTROPY`), so a
/// decoder that drops them stays in sync. ALTREF is never used.
///
/// Layer sync (RFC 7741 Y bit) is set on the first TL2 after each TL0 (it references only
/// LAST, a TL0 frame) and on the TL1 frames that do not reference GOLDEN: the first after a key
/// frame, and then one every `layerSyncPeriodCycles` cycles (about a second at 30 fps), so a
/// forwarder that dropped to TL0 can climb back to 15 and 30 fps without asking for a key frame.
/// Key frames report TL0 and sync; the pattern restarts after them.
///
/// L1T2 (screens) uses the same TL0 and TL1 frames without TL2: a base of every other changing
/// frame at 40 % of the bits (libwebrtc's screenshare "conference mode" idea: a constrained viewer
/// keeps TL0 alone and stays current), TL1 on top referencing the base and updating only GOLDEN.
/// A screen's refinement and keep-alive frames are TL0 frames outside the cycle
/// (`baseLayerFrame`), so once the screen stands still the base alone carries the sharp picture.
struct TemporalPattern {
    /// Temporal layers: 3 (L1T3, cameras) or 2 (L1T2, screens).
    let layerCount: Int
    /// Position in the cycle of the next frame. L1T3: 0 → TL0, 1 → TL2, 2 → TL1, 3 → TL2.
    /// L1T2: 0 → TL0, 1 → TL1.
    private(set) var position = 0
    /// Completed 4-frame cycles since the last key frame.
    private(set) var cyclesSinceKey = 0
    /// Every this many cycles the TL1 frame skips GOLDEN and is a layer-sync frame.
    static let layerSyncPeriodCycles = 8

    /// A pattern of `layerCount` temporal layers: 2 (L1T2) or, for any other value, 3 (L1T3).
    init(layerCount: Int = 3) {
        self.layerCount = layerCount == 2 ? 2 : 3
    }

    /// Frames in one cycle: `ts_periodicity` (4 for L1T3, 2 for L1T2).
    var periodicity: Int { layerCount == 2 ? 2 : 4 }

    /// `ts_layer_id` over one cycle.
    var layerIds: [UInt32] { layerCount == 2 ? [0, 1] : [0, 2, 1, 2] }

    /// `ts_rate_decimator` per layer (frame-rate divisor of each cumulative layer).
    var rateDecimators: [UInt32] { layerCount == 2 ? [2, 1] : [4, 2, 1] }

    /// Cumulative share of the layer's bitrate up to each temporal layer, percent:
    /// 40 / 60 / 100 for L1T3 (docs/layer-plan.md), 40 / 100 for L1T2 (the base, half the frames, gets
    /// a little less than half the bits: the low-rate base of conference-mode screenshare).
    var cumulativeBitratePercents: [Int] { layerCount == 2 ? [40, 100] : [40, 60, 100] }

    /// The per-frame decision: libvpx frame flags for `VP8E_SET_FRAME_FLAGS`, the temporal
    /// layer id for `VP8E_SET_TEMPORAL_LAYER_ID`, and the Y bit.
    struct Frame: Equatable {
        var flags: Int32
        var temporalId: UInt8
        var layerSync: Bool
    }

    private static let noArf = Int32(VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_ARF)
    private static let noRefGolden = Int32(VP8_EFLAG_NO_REF_GF)
    private static let noUpdateGolden = Int32(VP8_EFLAG_NO_UPD_GF)
    private static let noUpdateLast = Int32(VP8_EFLAG_NO_UPD_LAST)
    private static let noUpdateEntropy = Int32(VP8_EFLAG_NO_UPD_ENTROPY)
    /// `VPX_EFLAG_FORCE_KF`.
    static let forceKeyFrameFlags = Int32(VPX_EFLAG_FORCE_KF)

    /// Flags, temporal id and sync bit of the frame at the current position.
    var next: Frame {
        switch (layerCount, position) {
        case (_, 0):
            return Frame(flags: Self.noArf | Self.noRefGolden | Self.noUpdateGolden,
                         temporalId: 0, layerSync: false)
        case (2, _), (_, 2):
            let syncCycle = cyclesSinceKey % Self.layerSyncPeriodCycles == 0
            return Frame(flags: Self.noArf | Self.noUpdateLast | Self.noUpdateEntropy
                            | (syncCycle ? Self.noRefGolden : 0),
                         temporalId: 1, layerSync: syncCycle)
        default:
            return Frame(flags: Self.noArf | Self.noRefGolden | Self.noUpdateLast | Self.noUpdateGolden
                            | Self.noUpdateEntropy,
                         temporalId: 2, layerSync: position == 1)
        }
    }

    /// A TL0 frame outside the cycle (the cycle does not move): what a screen's refinement and
    /// keep-alive frames are, so their sharpening lands in LAST, which every temporal layer
    /// (and a viewer on the base layer alone) predicts from.
    var baseLayerFrame: Frame {
        Frame(flags: Self.noArf | Self.noRefGolden | Self.noUpdateGolden, temporalId: 0, layerSync: false)
    }

    /// Moves to the next position after a delta frame was encoded.
    mutating func advance() {
        position = (position + 1) % periodicity
        if position == 0 { cyclesSinceKey += 1 }
    }

    /// A key frame was produced: it counts as position 0, the next frame is position 1.
    mutating func keyFrameEncoded() {
        position = 1 % periodicity
        cyclesSinceKey = 0
    }
}
