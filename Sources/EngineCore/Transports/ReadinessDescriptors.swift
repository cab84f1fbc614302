/// The sockets behind a transport that an engine loop waits on (`poll(2)` for `POLLIN`): a UDP
/// socket's, a TCP connection's (RFC 4571 framing), through an ICE guard (`ICEDatagramTransport`)
/// or a WebRTC transport (`WebRTCTransport`) to the socket they run on and their TURN-TCP connections, a `FallbackTransport`'s
/// path in use, a `UDPAndTCPTransport`'s socket, listener and connections; none for a
/// `SimulatedNetwork.Port` (its datagrams arrive on virtual time, not on a descriptor). Returns
/// false (nothing appended) for a transport of another kind: the caller then cannot wait on it
/// and serves it on a timer instead.
package func appendReadinessDescriptors(of transport: any DatagramTransport, to descriptors: inout [Int32]) -> Bool {
    switch transport {
    case let socket as UDPSocket: descriptors.append(socket.descriptor)
    case let connection as TCPFramedConnection: descriptors.append(connection.descriptor)
    case let ice as ICEDatagramTransport: return ice.appendReadinessDescriptors(to: &descriptors)
    case let webRTC as WebRTCTransport: return webRTC.ice.appendReadinessDescriptors(to: &descriptors)
    case let fallback as FallbackTransport: fallback.appendReadinessDescriptors(to: &descriptors)
    case let node as UDPAndTCPTransport: node.appendReadinessDescriptors(to: &descriptors)
    case is SimulatedNetwork.Port: break
    default: return false
    }
    return true
}

extension ICEDatagramTransport {
    /// The bundle's socket and every TURN relay's own connection (TURN over TCP).
    package func appendReadinessDescriptors(to descriptors: inout [Int32]) -> Bool {
        guard EngineCore.appendReadinessDescriptors(of: socket, to: &descriptors) else { return false }
        for relay in relays where relay.link !== socket {
            guard EngineCore.appendReadinessDescriptors(of: relay.link, to: &descriptors) else { return false }
        }
        return true
    }
}
