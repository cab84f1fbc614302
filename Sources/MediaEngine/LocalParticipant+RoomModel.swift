/// The room model on the participant (SPEC §8, docs/room-model.md): who else is in the room,
/// and unpublishing a track without leaving.
extension LocalParticipant {
    /// Everyone else in the room, in the order the room reported them, with what each publishes
    /// (the seeds' `room.participants`): a snapshot of the room's state now, which the events
    /// `.participantJoined`, `.trackPublished`, … keep announcing as it changes. Empty before
    /// `.roomJoined` in a room joined through an SFU.
    public var participants: [RemoteParticipant] {
        get async throws(EngineError) {
            let (roomId, participantId) = (roomId, id)
            return try await loop.perform { runtime throws(EngineError) in
                try Self.roomModel(roomId, runtime).remoteParticipants(seenBy: participantId)
            }
        }
    }

    /// Stops publishing the camera or the screen share without leaving: its encoder stops, the
    /// others hear `.trackUnpublished` and their received video of it finishes. In a Janus room
    /// this is VideoRoom's `unpublish` (the camera and the microphone beside it go together). The
    /// track may be published again.
    public func unpublish(_ track: LocalVideoTrack) async throws(EngineError) {
        try await unpublish(trackId: track.id, kind: track.settings.content == .screen ? .screenShare : .camera)
        track.markUnpublished()
    }

    /// Stops publishing the microphone without leaving (the others hear `.trackUnpublished`). In
    /// a hosted room unpublish it before the camera it rides beside.
    public func unpublish(_ track: LocalAudioTrack) async throws(EngineError) {
        try await unpublish(trackId: track.id, kind: .microphone)
        track.markUnpublished()
    }

    private func unpublish(trackId: String, kind: PublishedTrackKind) async throws(EngineError) {
        let (roomId, participantId) = (roomId, id)
        try await loop.perform { runtime throws(EngineError) in
            try Self.roomModel(roomId, runtime).unpublish(participantId, trackId: trackId, kind: kind, runtime: runtime)
        }
    }

    /// This participant's media sockets and the media datagrams they received (package-visible:
    /// the tests' check that `SIGNALLING_ONLY` opens and receives nothing, read on the real path).
    package func mediaActivity() async throws(EngineError) -> MediaActivity {
        let (roomId, participantId) = (roomId, id)
        return try await loop.perform { runtime throws(EngineError) in
            try Self.roomModel(roomId, runtime).mediaActivity(of: participantId)
        }
    }

    private static func roomModel(_ roomId: String, _ runtime: EngineRuntime) throws(EngineError) -> any RoomModelBackend {
        guard let room = runtime.rooms[roomId] else { throw .closed("room \(roomId)") }
        guard let model = room as? any RoomModelBackend else { throw .notAllowed("a plain RTP output has no room of participants") }
        return model
    }
}
