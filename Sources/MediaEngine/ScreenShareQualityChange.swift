/// What `RemoteVideoTrack.setScreenShareQuality(_:)` did (docs/joining-a-room.md: it has an effect only when
/// the screen share has several layers).
public enum ScreenShareQualityChange: Sendable, Hashable {
    /// The screen share is now preferred at this layer (the forwarder moves there at its next key
    /// frame, docs/receiving.md); `layerIndex` counts from 0 = lightest.
    case preferred(VideoSize, layerIndex: Int)
    /// The screen share has one layer (published without `multiStream`, or too small for two):
    /// nothing changed.
    case singleLayer
}
