/// What `RemoteVideoTrack.setScreenShareQuality(_:)` did (SPEC §7: it has an effect only when
/// the screen share has several layers).
public enum ScreenShareQualityChange: Sendable, Hashable {
    /// The screen share is now preferred at this layer (the forwarder moves there at its next key
    /// frame, SPEC §3); `layerIndex` counts from 0 = lightest.
    case preferred(VideoSize, layerIndex: Int)
    /// The screen share has one layer (published without `multiStream`, or too small for two):
    /// nothing changed.
    case singleLayer
}
