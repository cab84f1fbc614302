/// What a WebRTC SFU answered when the engine published a camera into it (a Janus VideoRoom:
/// the `joined` and `configured` events of its publish, and the negotiated simulcast, RFC 8853).
public struct SFUPublication: Sendable, Hashable, CustomStringConvertible {
    /// The SFU's id for this publisher, the one subscribers name to receive it (Janus: the
    /// VideoRoom publisher id, a subscriber's `feed`).
    public var feedId: String
    /// The RIDs (RFC 8851) the SFU accepted, as negotiated in its answer.
    public var rids: [String]
    /// Whether the SFU accepted the Opus track too.
    public var audio: Bool
    /// From the first signalling request until ICE and DTLS-SRTP were up.
    public var connectMilliseconds: Int64
    /// The SFU's own description of the accepted streams, as JSON (Janus: the `streams` array of
    /// its `configured` event), for logs.
    public var streamsJSON: String

    public var description: String {
        "feed \(feedId), RIDs \(rids), \(audio ? "with" : "without") audio, connected in \(connectMilliseconds) ms"
    }
}
