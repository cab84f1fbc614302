import RTPWire
import SessionCore

/// One local candidate a `CandidateGatherer` found, with what carries its traffic: the UDP socket
/// of its base (RFC 8445 §5.1.1: a host candidate is its own base; a server-reflexive one's base
/// is the host socket it was learnt through) and, for a relayed candidate, the TURN allocation
/// (RFC 8656) on that socket whose relayed address peers send to.
public struct GatheredCandidate {
    /// As signalled in SDP or trickled (`a=candidate:`, RFC 8839 §5.1).
    public var candidate: ICECandidate
    /// The base's socket.
    public let socket: UDPSocket
    /// The STUN or TURN server the candidate was learnt from (nil: host).
    public var server: NetworkEndpoint?
    /// The allocation behind a relayed candidate; its owner keeps it refreshed (`TURNClient.poll`).
    public let relay: TURNClient?
    /// The connection to the TURN server for an allocation over TCP (RFC 8656 §3.1; nil: over `socket`).
    public var relayLink: TCPFramedConnection? = nil
}
