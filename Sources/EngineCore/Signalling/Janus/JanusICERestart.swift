import Dispatch
import RTPWire
import SessionCore

/// ICE restart (RFC 8445 §9) of the Janus peer connections, signalled from the signalling worker
/// (blocking), applied to the transport back on its loop (`ICEDatagramTransport.restart`).
/// Janus 1.1.2: a publisher offers anew through `configure` with the JSEP offer whose
/// ice-ufrag/ice-pwd changed, and Janus answers with its own new credentials; a subscriber asks
/// with `configure` + `restart: true`, and Janus sends a new offer, answered with `start`.
extension JanusVideoRoomPublisher {
    /// Offers the published session again with `credentials` and `candidates` (what the
    /// interfaces give now) and returns Janus's transport from its answer, with any candidates it
    /// trickled meanwhile, within `seconds`.
    ///
    /// Another reader may long-poll the session's events (the room's presence): Janus hands each
    /// event to the first long poll waiting, so the answer may reach that reader, which passes it
    /// on (`relayedAnswer`, asked between short polls of our own); and a long poll sent from an
    /// address that is gone still waits at Janus, swallowing the next event, so a plain
    /// `configure` (its `configured` event harmless) goes first.
    public func restartICE(credentials: ICECredentials, candidates: [ICECandidate], seconds: Double = 5,
                           relayedAnswer: () -> String? = { nil }) throws(JanusSessionFailure) -> RemoteTransportDescription {
        var offer = self.offer
        offer.ice = credentials
        offer.candidates = candidates
        var trickled: [ICECandidate] = []
        var answerSDP: String?
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        do throws(JanusHTTPClient.Failure) {
            try janus.message(JanusVideoRoomRequest.restartPublisherICE.body)
            try janus.message(JanusVideoRoomRequest.restartPublisherICE.body, jsep: ["type": "offer", "sdp": offer.sessionDescription.text])
            while answerSDP == nil {
                if let relayed = relayedAnswer() {
                    answerSDP = relayed
                    break
                }
                guard DispatchTime.now().uptimeNanoseconds < deadline else {
                    throw .noExpectedEvent(awaited: "JSEP answer (ICE restart)", seconds: seconds, eventsSeen: 0)
                }
                let event: [String: Any]
                do throws(JanusHTTPClient.Failure) {
                    event = try janus.nextEvent(seconds: 0.25)
                } catch {
                    guard case .timedOut = error else { throw error }
                    continue
                }
                if let sdp = (event["jsep"] as? [String: Any])?["sdp"] as? String { answerSDP = sdp }
                if let candidate = JanusHTTPClient.trickledCandidate(event) { trickled.append(candidate) }
            }
        } catch {
            throw .signalling(error)
        }
        do {
            var remote = RemoteTransportDescription(try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answerSDP ?? "")))
            remote.candidates += trickled
            // A later renegotiation (a screen share added or taken out) offers these credentials.
            self.offer = offer
            return remote
        } catch {
            throw .sdp(error)
        }
    }
}

extension JanusMultistreamSubscription {
    /// Asks Janus to restart ICE on the subscription, answers its new offer with `credentials`
    /// and `candidates`, and returns Janus's transport from the offer.
    public func restartICE(credentials: ICECredentials, candidates: [ICECandidate]) throws(JanusSessionFailure) -> RemoteTransportDescription {
        guard isConnected, let previous = local else { throw .configuration("the Janus subscription is not connected") }
        let offer: (sdp: String, streams: [JanusSubscribedStream])?
        var trickled: [ICECandidate] = []
        do throws(JanusHTTPClient.Failure) {
            try janus.message(JanusVideoRoomRequest.restartSubscriptionICE.body)
            offer = try waitForOffer(after: "configure", trickled: &trickled, orConfigured: true)
        } catch {
            throw .signalling(error)
        }
        guard let offer else { throw .signalling(.unexpectedReply(request: "configure", expected: "JSEP offer (ICE restart)")) }
        local = (credentials, previous.fingerprint, candidates)
        var remote = try answer(offer.sdp, collecting: &trickled).remote
        remote.candidates += trickled
        return remote
    }
}
