/// What the engine cannot do in a Janus VideoRoom (Janus 1.1 through its HTTP API), named in
/// `EngineError.unsupportedInJanusRoom` so an app can tell "this room cannot" from "not now"
/// (docs/joining-a-room.md, "What a Janus room cannot do").
public enum JanusRoomLimitation: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Choosing a received screen share's layer: Janus relays a screen share as published (one
    /// layer); `subscribe(toScreenShareOf:)` receives the publisher's video stream Janus lists
    /// with the description "screen".
    case screenShareQuality
    /// The microphone rides the camera's peer connection; adding it to a running one needs a
    /// renegotiation (a `configure` with a new JSEP offer), which the engine does only to add or
    /// take out a screen share.
    case microphoneAfterCamera
    /// Removing one m-line of a running publisher needs the same renegotiation: the camera's
    /// `unpublish` takes both.
    case unpublishingMicrophoneAlone

    public var description: String {
        switch self {
        case .screenShareQuality: return "choosing a screen share's layer (Janus relays a screen share as published, one layer)"
        case .microphoneAfterCamera:
            return "publishing the microphone after the camera (both ride one peer connection and the engine does not renegotiate it: publish the microphone first)"
        case .unpublishingMicrophoneAlone:
            return "unpublishing the microphone alone (it rides the camera's peer connection: unpublish the camera, both go)"
        }
    }
}
