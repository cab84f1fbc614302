/// What a video track shows, which decides how it is planned and encoded.
///
/// - `camera`: natural pictures at a steady frame rate (docs/layer-plan.md: up to three layers, L1T3,
///   denoised, centre-cropped to the config's aspect).
/// - `screen`: a shared screen (docs/joining-a-room.md, issue 17): sharp text, large static areas, sudden full
///   changes. Planned by `LayerPlan(screenShareWidth:height:multiStream:)` and encoded with
///   libvpx's screen-content settings, two temporal layers and change-driven frames (see
///   `SimulcastEncoder`).
public enum VideoContent: String, Sendable, Hashable, Codable {
    case camera
    case screen
}
