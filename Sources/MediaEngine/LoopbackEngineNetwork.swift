import Glibc
internal import EngineCore
internal import RTPWire
internal import SessionCore

/// The production network of a hosted room: every node listens on UDP and TCP on 127.0.0.1
/// (`UDPAndTCPTransport`, a 4 MiB receive buffer: `setsockopt(SO_RCVBUF)`), and every
/// participant's connection tries UDP and falls back to TCP (`FallbackTransport`).
final class LoopbackEngineNetwork: EngineNetwork {
    func makeNodeSocket(clock: MediaClock) throws(NetworkError) -> any RoomNodeSocket {
        let transport = try UDPAndTCPTransport(bindingTo: .loopback(port: 0), clock: clock)
        try transport.udp.setReceiveBufferSize(4 << 20)
        return transport
    }

    func makeMediaPath(_ connection: MediaConnection, of participantId: String, to node: any RoomNodeSocket,
                       preference: TransportPreference, credentials: ICECredentials, clock: MediaClock,
                       random: inout EngineRandom) throws(NetworkError) -> any MediaPathSocket {
        guard let node = node as? UDPAndTCPTransport else {
            throw .unreachable(destination: "\(node.localEndpoint) (not a loopback node)", errno: EPROTOTYPE)
        }
        return try FallbackTransport(preference: preference, server: node.localEndpoint, serverTCP: node.tcpEndpoint,
                                     credentials: credentials, clock: clock, using: &random)
    }
}
