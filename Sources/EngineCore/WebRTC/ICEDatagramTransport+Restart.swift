import RTPWire
import SessionCore

extension ICEDatagramTransport {
    /// Applies a restart's offer/answer (RFC 8445 §9): our new credentials and candidates, the
    /// peer's new credentials and candidates. Every pair is checked again with them while media
    /// stays on the selected pair until one is nominated anew (`ICEAgent.restart`).
    public func restart(local credentials: ICECredentials, candidates: [ICECandidate], remote: RemoteTransportDescription) {
        agent.restart(local: credentials, remote: remote.ice)
        for candidate in remote.candidates where candidate.transport.lowercased() == "udp" {
            guard let address = NetworkEndpoint.ipAddress(candidate.address) else { continue }
            addRemoteCandidate(NetworkEndpoint(ip: address, port: candidate.port), priority: candidate.priority)
        }
        // Candidates the restart's gathering trickled meanwhile (`regather`) stay named.
        signalledCandidates = (candidates + signalledCandidates.local.filter { !candidates.contains($0) && $0.kind != .host }, remote.candidates)
    }
}
