/// What a participant sends and receives in a room (SPEC §8, the seeds' `mode`), chosen when it
/// joins (`Room.join(participantId:mode:)`, `MediaEngine.joinJanusRoom(url:room:participantId:localAddress:mode:)`).
public enum RoomMode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Publishes and receives audio and video (the default).
    case sendAndRecv = "SEND_AND_RECV"
    /// Receives (subscribing works) and publishes nothing: publishing throws `EngineError.notAllowedInMode`.
    case recvOnly = "RECV_ONLY"
    /// Only the room's events (participants, tracks): no media socket is opened and no media
    /// packet is sent or received; publishing and subscribing throw `EngineError.notAllowedInMode`.
    case signallingOnly = "SIGNALLING_ONLY"

    public var description: String { rawValue }

    /// Whether a participant in this mode may publish.
    var publishes: Bool { self == .sendAndRecv }
    /// Whether a participant in this mode may receive media.
    var receives: Bool { self != .signallingOnly }
}
