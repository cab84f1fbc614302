internal import EngineCore
internal import RTPWire

/// The socket of a hosted room's forwarding node as the runtime uses it: datagrams from and to
/// every participant's connection, and the credentials each connection proves itself with on
/// TCP (`STUNBindingCheck`, RFC 8489 §14.3). `UDPAndTCPTransport` in production (UDP and a TCP
/// listener on loopback); a `SimulatedNetwork.Port` on virtual time (UDP only: nothing to prove).
/// What the loop polls for it is `appendReadinessDescriptors(of:to:)`'s, as for every transport.
protocol RoomNodeSocket: DatagramTransport {
    /// A connection will come with `credentials` (the node accepts its TCP side once proven).
    func expectConnection(from credentials: ICECredentials)
    func forgetConnection(usernameFragment: String)
    /// The node's side of the TCP connection that proved `usernameFragment`'s credentials.
    func verifiedPeer(usernameFragment: String) -> NetworkEndpoint?
}

extension UDPAndTCPTransport: RoomNodeSocket {}
