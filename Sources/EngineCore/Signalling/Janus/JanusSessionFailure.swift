import RTPWire

/// Why a WebRTC session with Janus (publishing or subscribing) could not start.
public enum JanusSessionFailure: Error, CustomStringConvertible {
    case signalling(JanusHTTPClient.Failure)
    case sdp(SDPError)
    case transport(String)
    case configuration(String)

    public var description: String {
        switch self {
        case let .signalling(failure): return "Janus signalling: \(failure)"
        case let .sdp(error): return "Janus SDP: \(error)"
        case let .transport(reason): return "WebRTC transport: \(reason)"
        case let .configuration(reason): return "endpoint: \(reason)"
        }
    }
}

extension JanusHTTPClient {
    /// The `plugindata.data` object of a Janus event or reply.
    static func pluginData(_ event: [String: Any]) -> [String: Any]? {
        (event["plugindata"] as? [String: Any])?["data"] as? [String: Any]
    }

    /// The candidate of a Janus `trickle` event, if it is one.
    public static func trickledCandidate(_ event: [String: Any]) -> ICECandidate? {
        ((event["candidate"] as? [String: Any])?["candidate"] as? String).flatMap { try? ICECandidate(parsing: $0) }
    }
}
