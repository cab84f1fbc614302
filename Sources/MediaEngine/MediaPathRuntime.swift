internal import EngineCore
internal import RTPWire
internal import SessionCore

/// One media connection of a participant to a hosted room's node, as the loop runs it: the
/// transport the engine's network made for it (in production one that tries UDP and falls back
/// to TCP, `FallbackTransport`), whether its switch has been reported yet, and the node's side,
/// which expects the connection's credentials until the path goes away.
final class MediaPathRuntime {
    let connection: MediaConnection
    let transport: any MediaPathSocket
    /// What proves the connection's TCP side to the node.
    let credentials: ICECredentials
    private weak var node: (any RoomNodeSocket)?
    private var switchReported = false
    private var reportedTCPPeer: NetworkEndpoint?

    init(connection: MediaConnection, transport: any MediaPathSocket, credentials: ICECredentials, node: any RoomNodeSocket) {
        self.connection = connection
        self.transport = transport
        self.credentials = credentials
        self.node = node
    }

    deinit { node?.forgetConnection(usernameFragment: credentials.usernameFragment) }

    /// The node's side of this path's TCP connection, the first time it is asked for after the
    /// node verified the connection's credentials (and again if another connection proves them);
    /// nil otherwise. Where the node must send what is for this connection from then on.
    func takeVerifiedTCPPeer() -> NetworkEndpoint? {
        guard transport.path == .tcp,
              let peer = node?.verifiedPeer(usernameFragment: credentials.usernameFragment),
              peer != reportedTCPPeer else { return nil }
        reportedTCPPeer = peer
        return peer
    }

    /// The protocol in use; nil while UDP is not confirmed yet.
    var transportProtocol: TransportProtocol? {
        switch transport.path {
        case .udp: return .udp
        case .tcp: return .tcp
        case nil: return nil
        }
    }

    /// The switch to TCP, the first time it is asked for after it happened; nil otherwise.
    func takeSwitch() -> ProtocolSwitch? {
        guard !switchReported, let after = transport.switchedToTCPAfterMicroseconds else { return nil }
        switchReported = true
        return ProtocolSwitch(connection: connection, from: .udp, to: .tcp, afterMilliseconds: after / 1000)
    }
}

extension PreferredProtocol {
    /// The transport's name for the same choice.
    var transportPreference: TransportPreference {
        switch self {
        case .udpOverTCP: return .udpThenTCP
        case .udpOnly: return .udpOnly
        case .tcpOnly: return .tcpOnly
        }
    }
}
