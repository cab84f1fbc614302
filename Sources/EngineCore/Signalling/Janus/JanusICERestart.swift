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
    /// trickled meanwhile.
    public func restartICE(credentials: ICECredentials, candidates: [ICECandidate]) throws(JanusSessionFailure) -> RemoteTransportDescription {
        var offer = self.offer
        offer.ice = credentials
        offer.candidates = candidates
        var trickled: [ICECandidate] = []
        var answerSDP: String?
        do throws(JanusHTTPClient.Failure) {
            try janus.message(JanusVideoRoomRequest.restartPublisherICE.body, jsep: ["type": "offer", "sdp": offer.sessionDescription.text])
            _ = try janus.waitForEvent("JSEP answer", after: "configure") { event in
                if let sdp = (event["jsep"] as? [String: Any])?["sdp"] as? String { answerSDP = sdp }
                if let candidate = JanusHTTPClient.trickledCandidate(event) { trickled.append(candidate) }
                return answerSDP != nil
            }
        } catch {
            throw .signalling(error)
        }
        do {
            var remote = RemoteTransportDescription(try NegotiatedSession(offer: offer, answer: SessionDescription(parsing: answerSDP ?? "")))
            remote.candidates += trickled
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
            offer = try waitForOffer(after: "configure", trickled: &trickled)
        } catch {
            throw .signalling(error)
        }
        guard let offer else { throw .signalling(.unexpectedReply(request: "configure", expected: "JSEP offer (ICE restart)")) }
        local = (credentials, previous.fingerprint, candidates)
        var remote = try answer(offer.sdp).remote
        remote.candidates += trickled
        return remote
    }
}
