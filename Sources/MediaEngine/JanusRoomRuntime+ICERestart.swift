internal import EngineCore
internal import RTPWire
internal import SessionCore

/// ICE restart of a reconnecting room's peer connections (issue 29 item 3, RFC 8445 §9), asked
/// for by `RoomReconnectWatch` when a path stays dead: each connection gathers again on the
/// interfaces there are now (an address that changed is the new one) from the room's STUN and
/// TURN servers under its transport policy, its server-reflexive and fresh relayed candidates
/// trickling after the restart's offer or answer (`ICEDatagramTransport.regather`), takes new credentials, and renegotiates them with Janus on the signalling worker (publisher:
/// `configure` with a new offer; subscription: `configure` + `restart: true`, Janus offers);
/// back on the loop the transport checks every pair again with them and moves media to the pair
/// nominated anew. The room reports `.reconnected` once traffic flows again.
extension JanusRoomRuntime {
    func restartICE() {
        if let session = session {
            let presence = model.presence
            restart(session.transport.ice) { credentials, candidates throws(JanusSessionFailure) in
                presence?.discardJSEPAnswers()
                return try session.restartICE(credentials: credentials, candidates: candidates) { presence?.takeJSEPAnswer() }
            }
        }
        if let subscription = receiving.session, let transport = receiving.demultiplexer?.transport as? WebRTCTransport {
            restart(transport.ice) { credentials, candidates throws(JanusSessionFailure) in
                try subscription.restartICE(credentials: credentials, candidates: candidates)
            }
        }
    }

    /// Gathers again for `ice`, renegotiates with `signal` on the worker, applies the outcome on
    /// the loop. Without an interface address nothing is tried (the next restart is).
    private func restart(_ ice: ICEDatagramTransport,
                         signal: @escaping (ICECredentials, [ICECandidate]) throws(JanusSessionFailure) -> RemoteTransportDescription) {
        guard let candidates = ice.regather(iceServers: iceServers, transportPolicy: iceTransportPolicy) else { return }
        var random = SystemRandomNumberGenerator()
        let credentials = ICECredentials.random(using: &random)
        let work = LoopHandOff((ice, signal))
        let events = events
        signalling.run({ () -> LoopHandOff<Result<RemoteTransportDescription, JanusSessionFailure>> in
            LoopHandOff(Result { () throws(JanusSessionFailure) in try work.value.1(credentials, candidates) })
        }, then: { _, outcome in
            switch outcome.value {
            case let .success(remote): work.value.0.restart(local: credentials, candidates: candidates, remote: remote)
            case let .failure(failure): events?.yield(.failure(.systemFailure("ICE restart: \(failure)")))
            }
        }, ifStopped: { _ in })
    }
}
