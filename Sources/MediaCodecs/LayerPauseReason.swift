/// Why a simulcast layer is paused (docs/layer-plan.md: target bitrate 0, no re-initialisation), apart from
/// the quality cap (`SimulcastEncoder.apply(cap:)`). Each reason is held separately, so one
/// mechanism resuming a layer cannot override another that still wants it paused.
public enum LayerPauseReason: Hashable, Sendable {
    /// Nobody watches the layer (dynaCast, docs/sending-caps.md).
    case unwatched
    /// The receiver's bandwidth estimate (REMB) cannot carry the layer.
    case bandwidth
}
