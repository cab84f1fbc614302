internal import EngineCore
import MediaCodecs
internal import RTPWire

/// A Janus room's screen share (issue 28, `JanusScreenShare`): published before the camera it
/// rides the camera's first offer; published after, or unpublished alone, it is a renegotiation
/// of the running publisher (`JanusVideoRoomPublisher+ScreenShare`): the offer goes out from the
/// signalling worker, Janus's answer comes back through the presence's event reader
/// (`applyRenegotiationAnswer`). Loop-confined.
extension JanusRoomRuntime {
    /// Takes the screen share into the camera's coming peer connection, or adds it to the
    /// running one by a renegotiation sent from the worker (`JanusScreenShare`); it sends once
    /// Janus's answer came (`applyRenegotiationAnswer`).
    func publishScreenShare(_ participantId: String, trackId: String, settings: CameraSettings, feed: TrackFeed<VideoFrame>,
                            runtime: EngineRuntime) throws(EngineError) {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        guard screenShare == nil else { throw .alreadyPublished("screen share") }
        guard !cameraConnecting, screenShareStopping == nil else {
            throw .notAllowed("publishing a screen share while the camera's peer connection is being negotiated: try again once it is done")
        }
        var share = try JanusScreenShare(trackId: trackId, settings: settings, feed: feed)
        if let session {
            let offer = session.renegotiationOffer(screenShare: share.plan)
            share.awaitingAnswer = offer
            sendRenegotiation(offer, of: session)
        }
        screenShare = share
    }

    /// Sends a renegotiation offer from the worker; a failure to send it is an event.
    private func sendRenegotiation(_ offer: SimulcastOffer, of session: JanusVideoRoomPublisher) {
        let handOff = LoopHandOff(session)
        let (events, room) = (events, room)
        signalling.run {
            do throws(JanusHTTPClient.Failure) {
                try handOff.value.sendRenegotiation(offer)
            } catch {
                events?.yield(.failure(.systemFailure("renegotiating the screen share in Janus room \(room): \(error)")))
            }
        }
    }

    /// On the loop: Janus's answer to our renegotiation. The screen share added sends from the
    /// next pass (sealed like the camera); the one taken out is gone from the connection.
    func applyRenegotiationAnswer(_ answer: String) {
        guard let session else { return }
        do throws(JanusSessionFailure) {
            if let stopping = screenShareStopping {
                screenShareStopping = nil
                try session.applyRenegotiation(offer: stopping, answer: answer, screenShare: nil)
            } else if var share = screenShare, let offer = share.awaitingAnswer {
                guard let publisher = try session.applyRenegotiation(offer: offer, answer: answer, screenShare: share.plan) else { return }
                publisher.frameSealer = sealer
                share.awaitingAnswer = nil
                share.start(on: publisher)
                screenShare = share
            }
        } catch {
            let failure = EngineError.systemFailure("Janus room \(room) answered the screen share's renegotiation: \(error)")
            events?.yield(.failure(failure))
            screenShare?.feed.finishSource(.failure(failure))
            screenShare = nil
        }
    }

    /// The connected peer connection's screen share sends from the next pass (sealed like the
    /// camera, one SFrame counter); one Janus did not accept stops its source with the error.
    func startScreenShare(of session: JanusVideoRoomPublisher) {
        guard let screenShare else { return }
        guard let publisher = session.screenSharePublisher else {
            let failure = EngineError.systemFailure("Janus room \(room) did not accept the screen share's m-line")
            events?.yield(.failure(failure))
            screenShare.feed.finishSource(.failure(failure))
            self.screenShare = nil
            return
        }
        publisher.frameSealer = sealer
        self.screenShare?.start(on: publisher)
    }

    /// A screen share still waiting for the camera's peer connection is simply dropped; one that
    /// rides the running connection says goodbye (RTCP BYE) and is taken out of it by a
    /// renegotiation (its m-line stopped, port 0).
    func unpublishScreenShare(_ participantId: String, trackId: String) throws(EngineError) {
        guard participantId == self.participantId else { throw .unknownParticipant(participantId) }
        guard let screenShare, screenShare.trackId == trackId else {
            throw .notPublished(participant: participantId, track: "screen share \(trackId)")
        }
        guard !cameraConnecting else {
            throw .notAllowed("unpublishing a screen share while the camera's peer connection is being negotiated: try again once it is done")
        }
        screenShare.finishSource("unpublished")
        self.screenShare = nil
        guard let session, screenShare.publisher != nil || screenShare.awaitingAnswer != nil else { return }
        try? screenShare.publisher?.sendGoodbye(reason: "unpublished")
        let offer = session.renegotiationOffer(screenShare: nil)
        screenShareStopping = offer
        sendRenegotiation(offer, of: session)
    }
}
