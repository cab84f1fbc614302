/// Which transport carries datagrams: UDP, or TCP with RFC 4571 framing. It is part of a peer's
/// identity (`NetworkEndpoint.transport`): a UDP source and a TCP connection from the same address
/// and port are two different peers, so a connection opened from a UDP peer's port number takes
/// nothing meant for that peer. It also names the way a `FallbackTransport` carries datagrams now.
public enum TransportPath: String, Sendable, Hashable {
    case udp
    case tcp
}
