internal import RTPWire

/// The ICE candidate pair a peer connection's media runs on (RFC 8445 §7.2.5.3.2; W3C
/// `RTCIceCandidatePairStats` with its local and remote `RTCIceCandidateStats`): our end as the
/// peer sees it and the peer's end, each with its candidate type.
public struct SelectedCandidatePair: Sendable, Hashable, CustomStringConvertible {
    /// Candidate types (RFC 8445 §5.1.1; the SDP `typ` values).
    public enum CandidateType: String, Sendable, Hashable {
        case host
        /// Our address as a NAT maps it, learnt from a STUN server (`srflx`).
        case serverReflexive = "srflx"
        /// An address learnt from a connectivity check rather than signalled (`prflx`).
        case peerReflexive = "prflx"
        /// An address on a TURN server that relays for us (`relay`, RFC 8656).
        case relayed = "relay"
    }

    /// One end: its type and transport address (IPv4 dotted quad or RFC 5952 IPv6 text, and port).
    public struct Candidate: Sendable, Hashable, CustomStringConvertible {
        public var type: CandidateType
        public var address: String
        public var port: UInt16

        public var description: String { "\(type.rawValue) \(address.contains(":") ? "[\(address)]" : address):\(port)" }
    }

    public var local: Candidate
    public var remote: Candidate

    public var description: String { "\(local) -> \(remote)" }

    init(_ pair: (local: ICECandidate, remote: ICECandidate)) {
        local = Candidate(pair.local)
        remote = Candidate(pair.remote)
    }
}

extension SelectedCandidatePair.Candidate {
    init(_ candidate: ICECandidate) {
        let type: SelectedCandidatePair.CandidateType = switch candidate.kind {
        case .host: .host
        case .serverReflexive: .serverReflexive
        case .peerReflexive: .peerReflexive
        case .relayed: .relayed
        }
        self.init(type: type, address: candidate.address, port: candidate.port)
    }
}
