import RTPWire
import SessionCore

extension ICEDatagramTransport {
    /// The host candidates to signal for an ICE restart (RFC 8445 §9: gathering again, on the
    /// interfaces there are now): for a socket bound to every interface (0.0.0.0, or `::` for both families) one per usable
    /// interface address (`CandidateGatherer`), for one bound to an address that address, each on
    /// the socket's port; then the relayed candidates kept (their allocations live on). Nil when
    /// the socket is no UDP socket (ICE-TCP), no interface address is left, or the address the
    /// socket is bound to is gone.
    public func regatheredCandidates() -> [ICECandidate]? {
        guard let socket = socket as? UDPSocket else { return nil }
        let bound = socket.localEndpoint
        if !bound.isUnspecified {
            // A socket bound to an address that is gone cannot carry a restart (a new socket would).
            let present = (try? NetworkInterfaces.all())?.contains { $0.ip.address == bound.ip } ?? true
            guard present else { return nil }
        }
        let gatherer = CandidateGatherer(configuration: .init(iceServers: []), seed: UInt64.random(in: 0...UInt64.max))
        guard let hosts = try? gatherer.gather(on: socket).map(\.candidate), !hosts.isEmpty else { return nil }
        return hosts + signalledCandidates.local.filter { $0.kind == .relayed }
    }

    /// Applies a restart's offer/answer (RFC 8445 §9): our new credentials and candidates, the
    /// peer's new credentials and candidates. Every pair is checked again with them while media
    /// stays on the selected pair until one is nominated anew (`ICEAgent.restart`).
    public func restart(local credentials: ICECredentials, candidates: [ICECandidate], remote: RemoteTransportDescription) {
        agent.restart(local: credentials, remote: remote.ice)
        for candidate in remote.candidates where candidate.transport.lowercased() == "udp" {
            guard let address = NetworkEndpoint.ipAddress(candidate.address) else { continue }
            addRemoteCandidate(NetworkEndpoint(ip: address, port: candidate.port), priority: candidate.priority)
        }
        signalledCandidates = (candidates, remote.candidates)
    }
}
