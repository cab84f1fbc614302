import Glibc
internal import EngineCore
internal import RTPWire
internal import SessionCore

/// A hosted room's network on virtual time: every node and every participant connection is a
/// port of one `SimulatedNetwork` (time moves only when the virtual-time driver advances it).
/// Every datagram crosses the network's `otherPaths` impairment; those to the impaired
/// participant's receiving connections cross its `bottleneck` instead (a squeezed downlink).
/// Connections are UDP from the start; TCP (`.tcpOnly`) is refused, as the simulated network
/// carries datagrams only. Loop-confined.
final class SimulatedEngineNetwork: EngineNetwork {
    let network: SimulatedNetwork
    /// Each participant's receiving connections.
    private var downlinkPorts: [String: [NetworkEndpoint]] = [:]
    /// The participant whose downlink crosses the bottleneck (nil: nobody's).
    private var impairedParticipant: String?

    init(network: SimulatedNetwork) {
        self.network = network
    }

    func makeNodeSocket(clock: MediaClock) throws(NetworkError) -> any RoomNodeSocket {
        network.makePort()
    }

    func makeMediaPath(_ connection: MediaConnection, of participantId: String, to node: any RoomNodeSocket,
                       preference: TransportPreference, credentials: ICECredentials, clock: MediaClock,
                       random: inout EngineRandom) throws(NetworkError) -> any MediaPathSocket {
        guard preference != .tcpOnly else {
            throw .socketFailed(operation: "a TCP connection on the simulated network", errno: EPROTONOSUPPORT)
        }
        let port = network.makePort()
        if case .receiving = connection {
            downlinkPorts[participantId, default: []].append(port.localEndpoint)
            if participantId == impairedParticipant { network.bottleneckDestinations.insert(port.localEndpoint) }
        }
        return port
    }

    /// Sends what `participantId` receives (its connections now and later) through the
    /// bottleneck with `configuration`; nil: nobody's, the bottleneck goes idle. What is in
    /// flight keeps its place.
    func impairDownlink(of participantId: String?, with configuration: NetworkImpairment.Configuration) {
        impairedParticipant = participantId
        network.bottleneck.configuration = configuration
        network.bottleneckDestinations = Set(participantId.flatMap { downlinkPorts[$0] } ?? [])
    }

    /// When the network next delivers a datagram (nil: nothing in flight).
    var nextDeliveryMicroseconds: Int64? {
        [network.bottleneck.nextDueMicroseconds, network.otherPaths.nextDueMicroseconds].compactMap { $0 }.min()
    }
}

/// A simulated port is a node's socket and a participant's connection alike: UDP only, so no
/// credentials to expect (and nothing to poll: `appendReadinessDescriptors(of:to:)`).
extension SimulatedNetwork.Port: RoomNodeSocket, MediaPathSocket {
    func expectConnection(from credentials: ICECredentials) {}
    func forgetConnection(usernameFragment: String) {}
    func verifiedPeer(usernameFragment: String) -> NetworkEndpoint? { nil }
    var path: TransportPath? { .udp }
    var switchedToTCPAfterMicroseconds: Int64? { nil }
}
