internal import CVPX

/// The L1T3 temporal pattern of one spatial layer (SPEC §1): temporal ids repeat 0, 2, 1, 2.
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
struct TemporalPattern {
    /// Position in the 4-frame cycle of the next frame: 0 → TL0, 1 → TL2, 2 → TL1, 3 → TL2.
    private(set) var position = 0
    /// Completed 4-frame cycles since the last key frame.
    private(set) var cyclesSinceKey = 0
    /// Every this many cycles the TL1 frame skips GOLDEN and is a layer-sync frame.
    static let layerSyncPeriodCycles = 8

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
        switch position {
        case 0:
            return Frame(flags: Self.noArf | Self.noRefGolden | Self.noUpdateGolden,
                         temporalId: 0, layerSync: false)
        case 2:
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

    /// Moves to the next position after a delta frame was encoded.
    mutating func advance() {
        position = (position + 1) % 4
        if position == 0 { cyclesSinceKey += 1 }
    }

    /// A key frame was produced: it counts as position 0, the next frame is position 1.
    mutating func keyFrameEncoded() {
        position = 1
        cyclesSinceKey = 0
    }
}
