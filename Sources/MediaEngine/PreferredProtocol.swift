/// How a participant's media reaches the room (docs/joining-a-room.md `preferredProtocol`; VideoSDK's
/// `UDP_OVER_TCP`, `UDP_ONLY`, `TCP_ONLY`). Where UDP is blocked (corporate networks, some
/// Wi-Fi), TCP still gets through: RTP, RTCP and STUN ride one TCP connection, each packet after
/// its 16-bit length (RFC 4571 §2).
public enum PreferredProtocol: Sendable, Hashable, CaseIterable {
    /// UDP first; if nothing proves UDP works (a STUN Binding answer, RFC 8489 §6.3.1, or media
    /// or feedback from the room) within 2 s, switch to TCP (`ParticipantEvent.protocolSwitched`).
    /// The default (docs/joining-a-room.md: `nil` means this).
    case udpOverTCP
    /// UDP only, even where it is blocked.
    case udpOnly
    /// TCP only: the participant never sends a UDP datagram.
    case tcpOnly
}

/// The transport a participant's media uses now.
public enum TransportProtocol: String, Sendable, Hashable {
    case udp
    case tcp
}

/// Which of a participant's media connections an event or statistic is about.
public enum MediaConnection: Sendable, Hashable, CustomStringConvertible {
    /// What its camera and microphone send.
    case publishing
    /// What it receives of `publisherId`'s camera and microphone.
    case receiving(publisherId: String)

    public var description: String {
        switch self {
        case .publishing: return "publishing"
        case let .receiving(publisherId): return "receiving \(publisherId)"
        }
    }
}

/// A media connection gave up on UDP and moved to TCP (`.udpOverTCP`).
public struct ProtocolSwitch: Sendable, Hashable, CustomStringConvertible {
    public var connection: MediaConnection
    public var from: TransportProtocol
    public var to: TransportProtocol
    /// From the connection's start (join, publish or subscribe) to the TCP connection.
    public var afterMilliseconds: Int64

    public var description: String {
        "\(connection): \(from.rawValue) → \(to.rawValue) after \(afterMilliseconds) ms"
    }
}
