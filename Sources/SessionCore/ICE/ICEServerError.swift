/// Why an ICE server configuration cannot be used.
public enum ICEServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a `stun:`/`stuns:` (RFC 7064) or `turn:`/`turns:` (RFC 7065) URL.
    case malformedURL(String, reason: String)
    /// A TURN URL without a username and credential (RFC 8489 §9.2 long-term credentials).
    case missingCredentials(url: String)
    /// A scheme this engine cannot reach yet (the TLS schemes).
    case unsupported(url: String, reason: String)

    public var description: String {
        switch self {
        case let .malformedURL(url, reason): return "ICE server URL '\(url)' is malformed: \(reason)"
        case let .missingCredentials(url): return "TURN server \(url) needs a username and a credential"
        case let .unsupported(url, reason): return "ICE server \(url) cannot be used: \(reason)"
        }
    }
}
