import RTPWire
import SessionCore

/// A UDP socket (or, for ICE-TCP, one RFC 4571-framed TCP connection from an active candidate to
/// the peer's passive one, RFC 6544) guarded by ICE (RFC 8445) for a bundled transport: STUN on the port is answered
/// and checked by the `ICEAgent`; DTLS and (S)RTP pass (RFC 7983 demultiplexing) only from
/// addresses of a succeeded pair; sends go only to them and stop when consent expires
/// (RFC 7675). Endpoints use it like any `DatagramTransport`; the agent's timers run on every
/// `receive` (the engine loop calls it every few milliseconds) or on `service()`.
///
/// Not `Sendable`: confined with its endpoint.
public final class ICEDatagramTransport: DatagramTransport {
    public let socket: any DatagramTransport
    public let agent: ICEAgent
    private let clock: MediaClock

    /// What was dropped before reaching the endpoint.
    public struct Counters: Sendable, Equatable {
        /// DTLS/RTP datagrams from addresses that have not passed checks (or after consent expired).
        public var fromUncheckedAddresses = 0
        /// First bytes outside RFC 7983's STUN, DTLS and RTP ranges.
        public var unknownKinds = 0
        /// STUN datagrams handled by the agent.
        public var stun = 0
    }
    public private(set) var counters = Counters()

    /// - Parameters:
    ///   - socket: the one port of the bundle (a `UDPSocket`, or a `TCPFramedConnection` for
    ///     ICE-TCP); its address is the local host candidate.
    public init(socket: any DatagramTransport, agent: ICEAgent, clock: MediaClock = .system) {
        self.socket = socket
        self.agent = agent
        self.clock = clock
        agent.addLocalAddress(Self.stunAddress(socket.localEndpoint))
    }

    public var localEndpoint: NetworkEndpoint { socket.localEndpoint }

    /// Whether the bundle runs over a TCP connection (ICE-TCP, RFC 6544).
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { socket.isReliableStream(to: peer) }

    /// Where media goes once connected: the selected pair's remote address.
    public var selectedRemote: NetworkEndpoint? { agent.selectedPair.flatMap { Self.endpoint($0.remote) } }

    /// Runs the agent's timers and sends what they produce (checks, retransmissions, consent).
    public func service() {
        transmit(agent.poll(nowMilliseconds: clock.monotonicMilliseconds()))
    }

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard agent.permits(Self.stunAddress(destination)) else { throw .noConsent(destination: destination.description) }
        try socket.send(bytes, to: destination)
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        try BundleReceiveLoop.receive(from: socket, into: buffer, timeoutMilliseconds: timeoutMilliseconds,
                                      service: service) { bytes, from in
            let source = Self.stunAddress(from)
            switch BundledDatagramKind.classify(firstByte: bytes.first) {
            case .stun:
                counters.stun += 1
                let datagram = Array(bytes)
                transmit(agent.handle(datagram[...], from: source, on: Self.stunAddress(socket.localEndpoint),
                                      nowMilliseconds: clock.monotonicMilliseconds()))
            case .dtls, .rtpOrRTCP:
                guard agent.permits(source) else {
                    counters.fromUncheckedAddresses += 1
                    return nil
                }
                // Named as the agent names it (`selectedRemote`): ICE addresses carry no transport,
                // and over ICE-TCP the connection's peer would otherwise differ from it.
                return from.on(.udp)
            case .other:
                counters.unknownKinds += 1
            }
            return nil
        }
    }

    private func transmit(_ transmissions: [ICEAgent.Transmission]) {
        for transmission in transmissions {
            guard let destination = Self.endpoint(transmission.destination) else { continue }
            try? socket.send(transmission.bytes, to: destination)  // a lost check is retransmitted
        }
    }

    static func stunAddress(_ endpoint: NetworkEndpoint) -> STUNAddress { .ipv4(endpoint.address, port: endpoint.port) }

    static func endpoint(_ address: STUNAddress) -> NetworkEndpoint? {
        guard case let .v4(value) = address.ip else { return nil }  // the sockets here are IPv4
        return NetworkEndpoint(address: value, port: address.port)
    }
}
