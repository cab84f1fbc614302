import RTPWire
import SessionCore

extension ICEDatagramTransport {
    /// The selected pair as candidates (RFC 8445 §7.2.5.3.2: the valid pair's local candidate is
    /// the one whose address the peer saw, XOR-MAPPED-ADDRESS): locally a relayed candidate when the
    /// pair runs through a TURN relay, else the signalled host or server-reflexive candidate with the
    /// mapped address, else a peer-reflexive one with it; remotely the signalled candidate with the
    /// pair's address, else a peer-reflexive one (learnt from a check, §7.3.1.3). Nil until a pair is
    /// selected.
    public var selectedCandidates: (local: ICECandidate, remote: ICECandidate)? {
        guard let pair = agent.selectedPair else { return nil }
        let remote = Self.endpoint(pair.remote)
        let local: ICECandidate
        if let relay = selectedRelayTransport {
            local = named(relay.localEndpoint, among: signalledCandidates.local, kind: .relayed)
        } else if let mapped = pair.mappedAddress.map(Self.endpoint) {
            local = named(mapped, among: signalledCandidates.local, kind: nil)
        } else {
            local = signalledCandidates.local.first { $0.kind == .host }
                ?? Self.peerReflexive(socket.localEndpoint)
        }
        return (local, named(remote, among: signalledCandidates.remote, kind: nil))
    }

    /// The signalled candidate at `endpoint` (of `kind` when given), else a peer-reflexive one there.
    private func named(_ endpoint: NetworkEndpoint, among candidates: [ICECandidate], kind: ICECandidate.Kind?) -> ICECandidate {
        return candidates.first { candidate in
            NetworkEndpoint.ipAddress(candidate.address) == endpoint.ip && candidate.port == endpoint.port && (kind == nil || candidate.kind == kind)
                && candidate.transport.lowercased() == "udp"
        } ?? Self.peerReflexive(endpoint)
    }

    private static func peerReflexive(_ endpoint: NetworkEndpoint) -> ICECandidate {
        ICECandidate(foundation: "prflx", priority: ICEAgent.hostPriority, address: endpoint.addressText,
                     port: endpoint.port, kind: .peerReflexive)
    }
}
