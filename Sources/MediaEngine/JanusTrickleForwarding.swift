internal import EngineCore
internal import RTPWire

/// Trickle ICE (RFC 8838) of a Janus peer connection once the loop runs its transport: each
/// server-reflexive or relayed candidate the transport's gathering finds (`ICEDatagramTransport`,
/// readiness driven on the loop), and then end-of-candidates, goes to Janus as its `trickle`
/// request from the signalling worker, after whatever signalling was queued before it (an ICE
/// restart's offer or answer goes before its own candidates). A request that fails reaches the
/// participant as a `.failure` event. The loop never waits on Janus.
extension SignallingWorker {
    func forwardTrickle(of ice: ICEDatagramTransport, events: AsyncStream<ParticipantEvent>.Continuation?,
                        send: @escaping (ICECandidate?) throws(JanusHTTPClient.Failure) -> Void) {
        let sender = LoopHandOff(send)
        ice.onTrickle = { [weak self] candidate in
            self?.run {
                do throws(JanusHTTPClient.Failure) {
                    try sender.value(candidate)
                } catch {
                    events?.yield(.failure(.systemFailure("Janus trickle of \(candidate.map { "candidate \($0)" } ?? "end-of-candidates"): \(error)")))
                }
            }
        }
    }
}
