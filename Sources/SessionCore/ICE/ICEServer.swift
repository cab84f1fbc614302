/// A STUN or TURN server as WebRTC apps configure one (`RTCIceServer` in the W3C API): its
/// URLs (`ICEServerURL`) and, for TURN, the long-term credentials (RFC 8489 §9.2) the server
/// checks on every request.
public struct ICEServer: Sendable, Hashable {
    public var urls: [String]
    public var username: String?
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }

    /// The parsed URLs. Throws on a malformed URL, a TURN URL without credentials, or a TLS
    /// scheme (`stuns:`, `turns:`), which this engine does not speak yet.
    public func parsedURLs() throws(ICEServerError) -> [ICEServerURL] {
        var parsed: [ICEServerURL] = []
        for text in urls.prefix(Self.maximumURLs) {
            let url = try ICEServerURL(parsing: text)
            if url.scheme.isSecure { throw .unsupported(url: url.description, reason: "TLS (stuns:/turns:) is not supported yet") }
            if url.scheme.isTURN, username?.isEmpty != false || credential?.isEmpty != false {
                throw .missingCredentials(url: url.description)
            }
            parsed.append(url)
        }
        return parsed
    }

    /// URLs read per server; the rest are ignored (a configuration is not a place for thousands).
    public static let maximumURLs = 16
}

/// Which candidates ICE may use (W3C `RTCIceTransportPolicy`): all of them, or relayed ones only
/// (RFC 8445 §5.1.1: an app that must not reveal its addresses to the peer).
public enum ICETransportPolicy: String, Sendable, Hashable {
    case all
    case relay
}
