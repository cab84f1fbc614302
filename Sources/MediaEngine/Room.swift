/// A room hosted by the engine. `Sendable`.
public final class Room: Sendable {
    public let id: String
    public let options: RoomOptions
    let loop: any EngineScheduler

    init(id: String, options: RoomOptions, loop: any EngineScheduler) {
        self.id = id
        self.options = options
        self.loop = loop
    }

    /// Joins as `participantId`: a participant that can publish and receive. With
    /// `autoConsume` it receives every published camera without asking (`.trackSubscribed`).
    ///
    /// With E2EE, `keyProvider` is this participant's own (as each client of a real room holds
    /// its keys): what it publishes is sealed, and what it receives opened, with the keys it has;
    /// nil: the room's `RoomOptions.e2ee` provider.
    ///
    /// `preferredProtocol` (docs/joining-a-room.md; nil: `.udpOverTCP`) is how this participant's media reaches
    /// the room: each of its connections (what it publishes, each video it receives) tries UDP
    /// and moves to TCP if UDP fails (`.protocolSwitched`), or uses only one of them.
    ///
    /// The room model (SPEC §8, docs/room-model.md): its `events` start with a
    /// `.participantJoined` for everyone already in the room (with their tracks), then
    /// `.roomJoined`; `displayName` (nil: the id) is the name the others see. `mode` (SPEC §8):
    /// `.recvOnly` publishes nothing, `.signallingOnly` opens no media socket and gets only the
    /// room's events.
    public func join(participantId: String, keyProvider: E2EEKeyProvider? = nil,
                     preferredProtocol: PreferredProtocol? = nil, mode: RoomMode = .sendAndRecv,
                     displayName: String? = nil) async throws(EngineError) -> LocalParticipant {
        let (events, continuation) = AsyncStream.makeStream(of: ParticipantEvent.self, bufferingPolicy: .bufferingNewest(256))
        let roomId = id
        try await loop.perform { runtime throws(EngineError) in
            // A `Room` is always one the engine hosts.
            guard let room = runtime.rooms[roomId] as? RoomRuntime else { throw .closed("room \(roomId)") }
            try room.join(participantId, events: continuation, keyProvider: keyProvider,
                          preferredProtocol: preferredProtocol ?? .udpOverTCP, mode: mode, displayName: displayName, runtime: runtime)
        }
        return LocalParticipant(id: participantId, roomId: id, options: options, events: events, loop: loop, mode: mode)
    }

    /// Closes the room: every participant leaves.
    public func close() async {
        let roomId = id
        _ = try? await loop.perform { runtime throws(EngineError) in runtime.closeRoom(roomId) }
    }
}
