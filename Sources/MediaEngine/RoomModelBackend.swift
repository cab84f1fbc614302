/// What the room model (SPEC §8, docs/room-model.md) asks of a room, hosted (`RoomRuntime`) or
/// joined through an SFU (`JanusRoomRuntime`): the other participants as one participant sees
/// them, unpublishing a track without leaving, and what media a participant's connections carry
/// (how a mode is checked on the real path). Loop-confined.
protocol RoomModelBackend: RoomBackend {
    /// Everyone in the room but `participantId`, in the order they were reported.
    func remoteParticipants(seenBy participantId: String) throws(EngineError) -> [RemoteParticipant]
    /// Stops publishing `participantId`'s track `trackId` of `kind`; the others are told `.trackUnpublished`.
    func unpublish(_ participantId: String, trackId: String, kind: PublishedTrackKind,
                   runtime: EngineRuntime) throws(EngineError)
    /// The media sockets `participantId` holds and the media datagrams they received so far.
    func mediaActivity(of participantId: String) throws(EngineError) -> MediaActivity
}

/// A participant's media sockets and the media datagrams that reached it (package-visible:
/// how the tests see that a `SIGNALLING_ONLY` participant opens and receives nothing).
package struct MediaActivity: Sendable, Hashable {
    /// Media sockets open (publishing and receiving connections; signalling is not media).
    package var mediaSockets: Int
    /// Media datagrams received: what the room forwarded to the participant and what its
    /// receiving connections read.
    package var mediaDatagramsReceived: Int
}
