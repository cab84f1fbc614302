/// Why the engine refused a call. Every case reads as a sentence (`description`).
public enum EngineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine (or the room, participant or track) was closed; nothing more can be done with it.
    case closed(String)
    /// No participant with this id is in the room.
    case unknownParticipant(String)
    /// A participant with this id already joined.
    case duplicateParticipant(String)
    /// The participant has nothing published of that kind.
    case notPublished(participant: String, track: String)
    /// The track was already published.
    case alreadyPublished(String)
    /// A frame the engine cannot take (size, format, planes).
    case invalidFrame(String)
    /// Settings that cannot work together.
    case invalidConfiguration(String)
    /// A call that is not allowed in the current state (e.g. a quality cap with the camera off).
    case notAllowed(String)
    /// The operating system or a codec library failed (sockets, libvpx, libsrtp).
    case systemFailure(String)
    /// The calling task was cancelled while the engine waited for it (e.g. `play(from:)`).
    case cancelled(String)
    /// The participant's `RoomMode` forbids the action (SPEC §8: publishing in `RECV_ONLY`,
    /// publishing or subscribing in `SIGNALLING_ONLY`).
    case notAllowedInMode(RoomMode, action: String)
    /// The action needs the room joined (`.roomJoined`), and it is not yet (SPEC §8).
    case beforeRoomJoined(String)
    /// A Janus room cannot do this (the capability is named; docs/joining-a-room.md lists them).
    case unsupportedInJanusRoom(JanusRoomLimitation)
    /// The room is reconnecting (SPEC §8's "room reconnecting"; `.reconnecting` was reported and
    /// `.reconnected` not yet): the action is refused, try again once reconnected.
    case reconnecting(String)
    /// The room's path to the server stayed dead past the limit (`RoomReconnectWatch`, 30 s; or
    /// ICE consent expired, RFC 7675 §5.1): the room ended.
    case connectionLost(String)

    public var description: String {
        switch self {
        case let .closed(what): return "\(what) is closed"
        case let .unknownParticipant(id): return "no participant '\(id)' in the room"
        case let .duplicateParticipant(id): return "a participant '\(id)' already joined the room"
        case let .notPublished(participant, track): return "participant '\(participant)' publishes no \(track) track"
        case let .alreadyPublished(track): return "the \(track) track is already published"
        case let .invalidFrame(why): return "invalid frame: \(why)"
        case let .invalidConfiguration(why): return "invalid configuration: \(why)"
        case let .notAllowed(why): return "not allowed: \(why)"
        case let .systemFailure(why): return "system failure: \(why)"
        case let .cancelled(what): return "\(what) was cancelled"
        case let .notAllowedInMode(mode, action): return "\(action) is not allowed in mode \(mode)"
        case let .beforeRoomJoined(action): return "action performed before room joined: \(action)"
        case let .unsupportedInJanusRoom(limitation): return "not supported in a Janus room: \(limitation)"
        case let .reconnecting(action): return "room reconnecting: \(action)"
        case let .connectionLost(why): return "connection lost: \(why)"
        }
    }
}
