internal import EngineCore

/// The Janus room's side of the room model: the presence's events applied to the roster and
/// told as the public events; subscribing by participant id; unpublishing; modes.
extension JanusRoomRuntime: RoomModelBackend {
    /// Starts the presence (every mode has one): the room's events from now on.
    func startRoomModel(name: String?, mode: RoomMode) {
        guard let participantId, model.presence == nil else { return }
        model.mode = mode
        model.name = name
        let presence = JanusRoomPresence(url: url, room: room, display: model.display(of: participantId))
        model.presence = presence
        let roomId = id
        presence.start(worker: signalling, deliver: { runtime, outcome in
            (runtime.rooms[roomId] as? JanusRoomRuntime)?.apply(outcome, runtime: runtime)
        }, answered: { runtime, answer in
            (runtime.rooms[roomId] as? JanusRoomRuntime)?.applyRenegotiationAnswer(answer)
        }, trickled: { runtime, candidate in
            (runtime.rooms[roomId] as? JanusRoomRuntime)?.session?.transport.ice.addTrickled(candidate)
        })
    }

    /// Once `session` publishes, it is our one participant in the Janus room: the presence reads
    /// the room's events from its handle and leaves, and a camera session unpublished before
    /// (the room's events came through it meanwhile) leaves too.
    func followRoomEvents(of session: JanusVideoRoomPublisher) {
        if let id = session.janus.session, let handle = session.janus.handle {
            model.presence?.follow(session: id, handle: handle, worker: signalling)
        }
        for parked in model.parked {
            let handOff = LoopHandOff(parked)
            signalling.run { handOff.value.leave() }
        }
        model.parked.removeAll()
    }

    func stopRoomModel() {
        model.presence?.stop(worker: signalling)
        model.presence = nil
        for session in model.parked {
            let handOff = LoopHandOff(session)
            signalling.run { handOff.value.leave() }
        }
        model.parked.removeAll()
    }

    /// On the loop: one of the presence's events.
    private func apply(_ outcome: Result<JanusVideoRoomEvent, EngineError>, runtime: EngineRuntime) {
        guard !isClosed else { return }
        switch outcome {
        case let .failure(error): events?.yield(.failure(error))
        case let .success(.error(code, reason)):
            events?.yield(.failure(.systemFailure("Janus room \(room) refused our presence (\(code.map(String.init) ?? "-")): \(reason)")))
        case let .success(event):
            for change in model.roster.apply(event) {
                if let told = JanusRoomModel.event(of: change, ourId: participantId) { events?.yield(told) }
                receive(change, runtime: runtime)
            }
        }
    }

    /// What a change means for what we receive: the streams of who left or unpublished end
    /// (their tracks' streams finish); with `autoConsume` everyone there on joining, everyone who
    /// arrives later and every track published later is consumed.
    private func receive(_ change: JanusRoomRoster.Change, runtime: EngineRuntime) {
        switch change {
        case let .participantLeft(id, _):
            receiving.drop(publisherId: id)
            speakers.removeParticipant(id)
        case let .trackUnpublished(id, track):
            receiving.drop(publisherId: id, kinds: [JanusRoomModel.track(track).kind])
        case .roomJoined:
            roomJoinedApplied = true
            autoConsume(model.roster.participants, runtime: runtime)
        case let .participantJoined(participant) where roomJoinedApplied: autoConsume([participant], runtime: runtime)
        case let .trackPublished(id, _): autoConsume(model.roster.participant(id: id).map { [$0] } ?? [], runtime: runtime)
        case .participantJoined, .trackMuted, .roomClosed: break
        }
    }

    /// The Janus feed to subscribe to for `publisherId`: a participant of the roster by its id,
    /// else a feed id given as a number; a name nobody has is `.unknownParticipant`, and before
    /// the room is joined `.beforeRoomJoined`.
    func feed(of publisherId: String) throws(EngineError) -> Int {
        guard publisherId != participantId else { throw .notAllowed("a participant cannot subscribe to itself") }
        if let participant = model.roster.participant(id: publisherId) { return participant.feed }
        if let feed = Int(publisherId) { return feed }
        guard model.roster.ourFeed != nil else { throw .beforeRoomJoined("subscribing to \(publisherId)") }
        throw .unknownParticipant(publisherId)
    }

    /// Whose E2EE key opens what `publisherId` sends (SFrame, a key per sender as in hosted
    /// rooms): the participant id of a feed the roster knows (a subscription made by Janus feed
    /// id), else `publisherId` itself.
    func keyOwner(of publisherId: String) -> String {
        guard let feed = Int(publisherId), let participant = model.roster.participant(feed: feed) else { return publisherId }
        return participant.id
    }

    func remoteParticipants(seenBy participantId: String) throws(EngineError) -> [RemoteParticipant] {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        return model.roster.participants.filter { $0.id != participantId }.map(JanusRoomModel.remote)
    }

    func unpublish(_ participantId: String, trackId: String, kind: PublishedTrackKind, runtime: EngineRuntime) throws(EngineError) {
        switch kind {
        case .camera: try unpublishCamera(participantId, trackId: trackId)
        case .microphone: try unpublishMicrophone(participantId, trackId: trackId)
        case .screenShare: try unpublishScreenShare(participantId, trackId: trackId)
        }
    }

    func mediaActivity(of participantId: String) throws(EngineError) -> MediaActivity {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        var descriptors: [Int32] = []
        _ = appendReadinessDescriptors(to: &descriptors)
        return MediaActivity(mediaSockets: descriptors.count, mediaDatagramsReceived: datagramsReceivedSoFar)
    }
}
