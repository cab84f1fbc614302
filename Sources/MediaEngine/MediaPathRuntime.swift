internal import EngineCore

/// One media connection of a participant to a hosted room's node, as the loop runs it: the
/// transport that tries UDP and falls back to TCP (`FallbackTransport`), and whether its switch
/// has been reported yet.
final class MediaPathRuntime {
    let connection: MediaConnection
    let transport: FallbackTransport
    private var switchReported = false

    init(connection: MediaConnection, transport: FallbackTransport) {
        self.connection = connection
        self.transport = transport
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
