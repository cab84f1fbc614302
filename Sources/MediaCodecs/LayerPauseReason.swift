/// Why a simulcast layer is paused (SPEC §1: target bitrate 0, no re-initialisation), apart from
/// the quality cap (`SimulcastEncoder.apply(cap:)`). Each reason is held separately, so one
/// mechanism resuming a layer cannot override another that still wants it paused.
public enum LayerPauseReason: Hashable, Sendable {
    /// Nobody watches the layer (dynaCast, SPEC §2).
    case unwatched
    /// The receiver's bandwidth estimate (REMB) cannot carry the layer.
    case bandwidth
}
