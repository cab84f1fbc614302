import RTPWire

/// A local and a remote transport address ICE checks together (RFC 8445 §6.1.2), with its
/// check state and priority.
public struct ICECandidatePair: Sendable, Hashable {
    /// Check states (RFC 8445 §6.1.2.6).
    public enum State: Sendable, Hashable {
        case waiting
        case inProgress
        case succeeded
        case failed
    }

    public let local: STUNAddress
    public let remote: STUNAddress
    /// RFC 8445 §6.1.2.3: 2^32·min(G,D) + 2·max(G,D) + (G > D ? 1 : 0), G the controlling side's.
    public internal(set) var priority: UInt64
    public internal(set) var state: State = .waiting
    /// The controlling agent nominated it (USE-CANDIDATE in a check that succeeded).
    public internal(set) var nominated = false
    /// Our address as the peer saw it in the last successful check (XOR-MAPPED-ADDRESS): the valid
    /// pair's local candidate (RFC 8445 §7.2.5.3.2), e.g. the server-reflexive address behind a NAT.
    public internal(set) var mappedAddress: STUNAddress?

    init(local: STUNAddress, remote: STUNAddress, priority: UInt64) {
        self.local = local
        self.remote = remote
        self.priority = priority
    }

    static func priority(controlling: UInt32, controlled: UInt32) -> UInt64 {
        let (g, d) = (UInt64(controlling), UInt64(controlled))
        return (1 << 32) * min(g, d) + 2 * max(g, d) + (g > d ? 1 : 0)
    }

    /// A candidate's priority (RFC 8445 §5.1.2.1): 2^24·type preference + 2^8·local
    /// preference + (256 − component); type preferences 126 host, 110 peer-reflexive.
    static func candidatePriority(typePreference: UInt32, localPreference: UInt32 = 65_535, component: UInt32 = 1) -> UInt32 {
        (1 << 24) * typePreference + (1 << 8) * localPreference + (256 - component)
    }
}
