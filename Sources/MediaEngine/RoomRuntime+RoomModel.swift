internal import EngineCore

/// The hosted room's side of the room model (SPEC §8, docs/room-model.md): told from the room's
/// own state, as it changes.
extension RoomRuntime: RoomModelBackend {
    /// `participant` as the others see it: id, name and its published tracks.
    func remote(_ participant: ParticipantRuntime) -> RemoteParticipant {
        var tracks: [PublishedTrack] = []
        if participant.camera != nil { tracks.append(PublishedTrack(kind: .camera)) }
        if participant.screenShare != nil { tracks.append(PublishedTrack(kind: .screenShare)) }
        if let microphone = participant.camera?.microphone { tracks.append(PublishedTrack(kind: .microphone, muted: microphone.isMuted)) }
        return RemoteParticipant(id: participant.id, displayName: participant.displayName, tracks: tracks)
    }

    func remoteParticipants(seenBy participantId: String) throws(EngineError) -> [RemoteParticipant] {
        _ = try participant(participantId)
        return order.compactMap { id in id == participantId ? nil : participants[id].map(remote) }
    }

    /// The newcomer hears of everyone already there (with their tracks), then that it is in;
    /// everyone else hears of the newcomer.
    func announceArrival(of newcomer: ParticipantRuntime) {
        for id in order where id != newcomer.id {
            guard let other = participants[id] else { continue }
            newcomer.events.yield(.participantJoined(remote(other)))
        }
        newcomer.events.yield(.roomJoined)
        announce(.participantJoined(remote(newcomer)), by: newcomer.id)
    }

    /// Everyone else stops receiving the one leaving and hears its tracks go, then that it left.
    func announceDeparture(of leaving: ParticipantRuntime) {
        endSubscriptions(to: leaving.id, kind: .camera)
        endSubscriptions(to: RoomNode.screenShareKey(of: leaving.id), kind: .screenShare)
        for track in remote(leaving).tracks { announce(.trackUnpublished(participantId: leaving.id, track: track), by: leaving.id) }
        announce(.participantLeft(participantId: leaving.id), by: leaving.id)
    }

    /// Tells every participant but `participantId` the event.
    func announce(_ event: ParticipantEvent, by participantId: String) {
        for id in order where id != participantId { participants[id]?.events.yield(event) }
    }

    /// Every other participant's subscription to the video under publisher `key` ends: its frame
    /// stream finishes, the node stops forwarding to it, and it hears `.streamDisabled`.
    private func endSubscriptions(to key: String, kind: PublishedTrackKind) {
        let owner = RoomNode.screenShareOwner(key) ?? key
        for id in order where id != owner {
            guard let subscriber = participants[id], let subscription = subscriber.subscriptions.removeValue(forKey: key) else { continue }
            room.node(for: key)?.removeSubscriber(id)
            subscriber.quality.detach(subscription.subscriber)
            subscription.close()
            subscriber.events.yield(.streamDisabled(participantId: owner, kind: kind))
        }
    }

    func unpublish(_ participantId: String, trackId: String, kind: PublishedTrackKind, runtime: EngineRuntime) throws(EngineError) {
        let participant = try participant(participantId)
        switch kind {
        case .camera:
            guard let camera = participant.camera, camera.trackId == trackId else {
                throw .notPublished(participant: participantId, track: "camera \(trackId)")
            }
            guard camera.microphone == nil else {
                throw .notAllowed("in a hosted room the microphone rides the camera's node: unpublish the microphone first")
            }
            endSubscriptions(to: participantId, kind: .camera)
            camera.close()
            participant.camera = nil
        case .screenShare:
            guard let screenShare = participant.screenShare, screenShare.trackId == trackId else {
                throw .notPublished(participant: participantId, track: "screen share \(trackId)")
            }
            endSubscriptions(to: RoomNode.screenShareKey(of: participantId), kind: .screenShare)
            screenShare.close()
            participant.screenShare = nil
        case .microphone:
            guard let camera = participant.camera, let microphone = camera.microphone, microphone.trackId == trackId else {
                throw .notPublished(participant: participantId, track: "microphone \(trackId)")
            }
            microphone.close()
            camera.microphone = nil
            speakers.removeParticipant(participantId, audioSSRC: camera.audioSSRC)
            room.setMuted(false, participant: participantId)
        }
        announce(.trackUnpublished(participantId: participantId, track: PublishedTrack(kind: kind)), by: participantId)
    }

    func mediaActivity(of participantId: String) throws(EngineError) -> MediaActivity {
        let participant = try participant(participantId)
        let received = participant.subscriptions.values.reduce(Int64(0)) { $0 + $1.subscriber.statistics.datagramsReceived }
        return MediaActivity(mediaSockets: participant.publishedVideos.count + participant.subscriptions.values.filter { $0.path != nil }.count,
                             mediaDatagramsReceived: participant.downlink.delivered + Int(received))
    }
}
