internal import EngineCore

/// A participant's side of one media connection to a hosted room's node, as the runtime uses
/// it: the datagrams, which way they go now, and when it moved to TCP. `FallbackTransport` in
/// production (UDP first, TCP per RFC 4571 if UDP fails); a `SimulatedNetwork.Port` on virtual
/// time (UDP from the start). What the loop polls for it is `appendReadinessDescriptors(of:to:)`'s.
protocol MediaPathSocket: DatagramTransport {
    /// The path in use; nil while UDP is not confirmed yet.
    var path: TransportPath? { get }
    /// From the start to the TCP connection, when UDP failed (nil otherwise).
    var switchedToTCPAfterMicroseconds: Int64? { get }
}

extension FallbackTransport: MediaPathSocket {}
