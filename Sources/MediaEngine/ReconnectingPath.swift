/// Which peer connection of a room fell silent first (`ParticipantEvent.reconnecting`).
public enum ReconnectingPath: String, Sendable, Hashable {
    /// The connection the camera and microphone are published on.
    case publishing
    /// The connection received streams arrive on.
    case receiving
}
