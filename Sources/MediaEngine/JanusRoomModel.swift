internal import EngineCore

/// What a Janus room keeps for the room model (SPEC §8, docs/room-model.md): the roster built
/// from the presence's events, the presence itself, our mode and display name, and camera
/// sessions unpublished without leaving (kept alive until the room closes). Loop-confined.
struct JanusRoomModel {
    var roster = JanusRoomRoster()
    var presence: JanusRoomPresence?
    var mode = RoomMode.sendAndRecv
    var name: String?
    var parked: [JanusVideoRoomPublisher] = []

    /// Our `display` in Janus: name and participant id (`JanusDisplayName`).
    func display(of participantId: String) -> String {
        JanusDisplayName(participantId: participantId, name: name ?? participantId).display
    }

    /// A participant of the roster as the public API shows it (camera, screen share, microphone).
    static func remote(_ participant: JanusRoomRoster.Participant) -> RemoteParticipant {
        let tracks = participant.tracks.map(track).sorted { rank($0.kind) < rank($1.kind) }
        return RemoteParticipant(id: participant.id, displayName: participant.name, tracks: tracks)
    }

    static func track(_ track: JanusRoomRoster.Track) -> PublishedTrack {
        switch track.kind {
        case .camera: return PublishedTrack(kind: .camera, muted: track.muted)
        case .screenShare: return PublishedTrack(kind: .screenShare, muted: track.muted)
        case .microphone: return PublishedTrack(kind: .microphone, muted: track.muted)
        }
    }

    private static func rank(_ kind: PublishedTrackKind) -> Int {
        PublishedTrackKind.allCases.firstIndex(of: kind) ?? 0
    }

    /// The public events of one roster change (nil: ours, or nothing to tell).
    static func event(of change: JanusRoomRoster.Change, ourId: String?) -> ParticipantEvent? {
        switch change {
        case let .participantJoined(participant): return participant.id == ourId ? nil : .participantJoined(remote(participant))
        case .roomJoined: return .roomJoined
        case let .trackPublished(id, published): return id == ourId ? nil : .trackPublished(participantId: id, track: track(published))
        case let .trackUnpublished(id, gone): return id == ourId ? nil : .trackUnpublished(participantId: id, track: track(gone))
        case let .trackMuted(id, muted): return id == ourId ? nil : .trackMuteChanged(participantId: id, track: track(muted))
        case let .participantLeft(id, _): return id == ourId ? nil : .participantLeft(participantId: id)
        case .roomClosed: return .failure(.closed("the Janus room (destroyed)"))
        }
    }
}
