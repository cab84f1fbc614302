import SessionCore

/// Why candidate gathering found nothing to offer.
public enum CandidateGatheringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The ICE server configuration is unusable.
    case server(ICEServerError)
    /// A server's host name did not resolve to an IPv4 address.
    case unresolved(host: String)
    /// No interface address to gather on (none up, or none of the restriction).
    case noInterfaces(String)
    /// The transport policy is `relay` and no TURN allocation succeeded.
    case noRelayCandidate(reasons: [String])
    case network(NetworkError)

    public var description: String {
        switch self {
        case let .server(error): return error.description
        case let .unresolved(host): return "ICE server \(host) did not resolve to an IPv4 address"
        case let .noInterfaces(what): return "no address to gather ICE candidates on: \(what)"
        case let .noRelayCandidate(reasons):
            return "the ICE transport policy is relay and no TURN allocation succeeded"
                + (reasons.isEmpty ? " (no TURN server configured)" : ": " + reasons.joined(separator: "; "))
        case let .network(error): return error.description
        }
    }
}
