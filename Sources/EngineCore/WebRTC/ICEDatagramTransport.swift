import RTPWire
import SessionCore

/// A UDP socket (or, for ICE-TCP, one RFC 4571-framed TCP connection from an active candidate to
/// the peer's passive one, RFC 6544) guarded by ICE (RFC 8445) for a bundled transport: STUN on the port is answered
/// and checked by the `ICEAgent`; DTLS and (S)RTP pass (RFC 7983 demultiplexing) only from
/// addresses of a succeeded pair; sends go only to them and stop when consent expires
/// (RFC 7675). Endpoints use it like any `DatagramTransport`; the agent's timers run on every
/// `receive` (the engine loop calls it every few milliseconds) or on `service()`. Once a pair is
/// selected, whether it still carries anything is followed (`pathState`, ICEConsentFreshness.swift).
///
/// Relayed candidates (RFC 8445 §5.1.1.2, §6.1.2.2): each `TURNRelayTransport` is a local
/// candidate of its own, paired with every remote one; checks on those pairs and their answers
/// go through the TURN server, what it relays back is unwrapped and demultiplexed as if it had
/// arrived on the relayed address, and once such a pair is selected media goes through it too.
///
/// Not `Sendable`: confined with its endpoint.
public final class ICEDatagramTransport: DatagramTransport {
    public let socket: any DatagramTransport
    public let agent: ICEAgent
    /// The TURN allocations whose relayed addresses are local candidates (their `link` is `socket`,
    /// or over TURN-TCP a connection of their own, read before the socket on every `receive`);
    /// with trickle ICE more join as their allocations succeed (ICEDatagramTransport+Trickle.swift).
    public internal(set) var relays: [TURNRelayTransport]
    /// Trickle ICE: the gathering still under way on `socket`, and what takes its candidates
    /// (ICEDatagramTransport+Trickle.swift).
    var gathering: TrickleGathering?
    var trickleSink: ((ICECandidate?) -> Void)?
    /// Candidates found while no sink was set (nil: end-of-candidates), in order.
    var pendingTrickle: [ICECandidate?] = []
    /// What was handed to the sink so far: the candidates, and whether end-of-candidates.
    public internal(set) var trickled: (candidates: [ICECandidate], ended: Bool) = ([], false)
    /// Candidates the peer trickled once connected (`addTrickled`).
    public internal(set) var candidatesTrickledByPeer = 0
    /// Every remote candidate's address so far (a relay that joins later permits them all).
    var remoteEndpoints: [NetworkEndpoint] = []
    let clock: MediaClock
    /// The relay carrying the selected pair (nil: the socket directly), found when the selection
    /// changes rather than per datagram.
    private var selectedRelay: TURNRelayTransport?
    private var selectedLocalCache: STUNAddress?
    /// Datagrams that arrived from the peer (STUN, and DTLS/(S)RTP from checked addresses): what
    /// `liveness` follows (ICEConsentFreshness.swift).
    var datagramsFromPeer = 0
    /// The selected path's liveness, from the first selection on (nil before).
    var liveness: PathLiveness?
    let livenessConfiguration: PathLiveness.Configuration

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
    ///     ICE-TCP); its address is the local host candidate unless `pairsHost` is false (the
    ///     `relay` transport policy, RFC 8445 §5.1.1: only relayed candidates are used).
    ///   - relays: allocations made from `socket`, each a relayed local candidate.
    public init(socket: any DatagramTransport, agent: ICEAgent, relays: [TURNRelayTransport] = [], pairsHost: Bool = true,
                clock: MediaClock = .system, liveness: PathLiveness.Configuration = PathLiveness.Configuration()) {
        livenessConfiguration = liveness
        self.socket = socket
        self.agent = agent
        self.relays = relays
        self.clock = clock
        if pairsHost {
            for base in Self.hostBases(of: socket.localEndpoint) { agent.addLocalAddress(base) }
        }
        for relay in relays { agent.addLocalAddress(relay.relayedAddress, priority: relay.candidatePriority) }
    }

    /// A remote candidate (from SDP or trickled): paired with every local one; each relay binds it
    /// a channel (and so a permission, RFC 8656 §12.2) so that its checks and media pass the server.
    public func addRemoteCandidate(_ address: NetworkEndpoint, priority: UInt32) {
        agent.addRemoteCandidate(Self.stunAddress(address), priority: priority)
        if !remoteEndpoints.contains(address) { remoteEndpoints.append(address) }
        for relay in relays { relay.permit(address) }
    }

    /// The selected pair's local candidate as ICE names it: the socket's address, or a relayed one.
    public var selectedLocal: STUNAddress? { agent.selectedPair?.local }

    /// The candidates as signalled, ours and the peer's (set by whoever negotiated them): what
    /// `selectedCandidates` names the selected pair's ends by.
    public var signalledCandidates: (local: [ICECandidate], remote: [ICECandidate]) = ([], [])

    /// The relay media goes through (nil: none, or the selected pair is direct).
    public var selectedRelayTransport: TURNRelayTransport? { selectedRelay }

    public var localEndpoint: NetworkEndpoint { socket.localEndpoint }

    /// Whether the bundle runs over a TCP connection (ICE-TCP, RFC 6544).
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { socket.isReliableStream(to: peer) }

    /// Where media goes once connected: the selected pair's remote address.
    public var selectedRemote: NetworkEndpoint? { agent.selectedPair.map { Self.endpoint($0.remote) } }

    /// Runs the agent's and the relays' timers and sends what they produce (checks,
    /// retransmissions, consent; TURN refreshes and renewals).
    public func service() {
        let now = clock.monotonicMicroseconds()
        for relay in relays { relay.service(now: now) }
        if gathering != nil { serviceGathering(now: now) }
        transmit(agent.poll(nowMilliseconds: now / 1_000))
        followLiveness(nowMilliseconds: now / 1_000)
    }

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard agent.permits(Self.stunAddress(destination)) else { throw .noConsent(destination: destination.description) }
        if let selectedRelay {
            try selectedRelay.send(bytes, to: destination)
        } else {
            try socket.send(bytes, to: destination)
        }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        for relay in relays where relay.link !== socket && !relay.isRetired {
            while let (count, peer) = try? relay.receive(into: buffer, timeoutMilliseconds: 0) {
                if let passed = demultiplex(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), from: peer, on: relay.relayedAddress) {
                    return passed
                }
            }
        }
        return try BundleReceiveLoop.receive(from: socket, into: buffer, timeoutMilliseconds: timeoutMilliseconds,
                                             service: service) { bytes, from in
            if gathering != nil, takenByGathering(bytes, from: from) { return nil }
            for relay in relays where relay.server == from && !relay.isRetired {
                // From the TURN server: relayed data arrived "on" the relayed candidate.
                guard let (count, peer) = relay.unwrap(bytes, count: bytes.count) else { return nil }
                return demultiplex(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<count]), from: peer, on: relay.relayedAddress)
            }
            return demultiplex(bytes, from: from, on: Self.hostBase(of: socket.localEndpoint, receivingFrom: from))
        }
    }

    /// STUN to the agent (answered from `local`), DTLS and (S)RTP up from checked addresses only.
    private func demultiplex(_ bytes: UnsafeMutableRawBufferPointer, from: NetworkEndpoint, on local: STUNAddress)
        -> (count: Int, from: NetworkEndpoint)?
    {
        let source = Self.stunAddress(from)
        switch BundledDatagramKind.classify(firstByte: bytes.first) {
        case .stun:
            counters.stun += 1
            datagramsFromPeer += 1
            let datagram = Array(bytes)
            transmit(agent.handle(datagram[...], from: source, on: local, nowMilliseconds: clock.monotonicMilliseconds()))
        case .dtls, .rtpOrRTCP:
            guard agent.permits(source) else {
                counters.fromUncheckedAddresses += 1
                return nil
            }
            datagramsFromPeer += 1
            // Named as the agent names it (`selectedRemote`): ICE addresses carry no transport,
            // and over ICE-TCP the connection's peer would otherwise differ from it.
            return (bytes.count, from.on(.udp))
        case .other:
            counters.unknownKinds += 1
        }
        return nil
    }

    /// Sends each transmission from its local candidate: the socket, or through its relay.
    func transmit(_ transmissions: [ICEAgent.Transmission]) {
        for transmission in transmissions {
            let destination = Self.endpoint(transmission.destination)
            // A lost check is retransmitted.
            if let relay = relays.last(where: { $0.relayedAddress == transmission.source }) {
                try? relay.send(transmission.bytes, to: destination)  // nothing from a retired one
            } else {
                try? socket.send(transmission.bytes, to: destination)
            }
        }
        noteSelection()
    }

    /// Follows the agent's selected pair: which relay (if any) carries media now. A relayed pair
    /// selected with a remote that has no channel yet (a peer-reflexive one) gets one bound.
    private func noteSelection() {
        let local = agent.selectedPair?.local
        guard local != selectedLocalCache else { return }
        selectedLocalCache = local
        selectedRelay = local.flatMap { address in relays.last { $0.relayedAddress == address } }
        if let selectedRelay, let remote = selectedRemote { selectedRelay.permit(remote) }
    }

    /// An endpoint as ICE and STUN name it (no allocation: IPv6 as two words).
    static func stunAddress(_ endpoint: NetworkEndpoint) -> STUNAddress {
        switch endpoint.ip {
        case let .v4(address): .ipv4(address.value, port: endpoint.port)
        case let .v6(address): STUNAddress(ip: .v6(address), port: endpoint.port)
        }
    }

    /// A STUN address as a UDP endpoint.
    static func endpoint(_ address: STUNAddress) -> NetworkEndpoint {
        switch address.ip {
        case let .v4(value): NetworkEndpoint(address: value, port: address.port)
        case let .v6(value): NetworkEndpoint(ipv6: value, port: address.port)
        }
    }

    /// The host bases (RFC 8445 §5.1.1.1) a socket bound to `local` gives ICE: its address, or for
    /// a dual-stack socket bound to `::` (`NetworkEndpoint.everyInterface`) one per family,
    /// `0.0.0.0` and `::` on its port, since ICE pairs a local and a remote candidate only within
    /// one address family (§6.1.2.2).
    static func hostBases(of local: NetworkEndpoint) -> [STUNAddress] {
        guard local.isIPv6, local.isUnspecified else { return [stunAddress(local)] }
        return [.ipv4(0, port: local.port), stunAddress(local)]
    }

    /// The host base a datagram from `source` arrived on: the socket's address, or for a
    /// dual-stack socket the unspecified address of the source's family.
    static func hostBase(of local: NetworkEndpoint, receivingFrom source: NetworkEndpoint) -> STUNAddress {
        guard local.isIPv6, local.isUnspecified, !source.isIPv6 else { return stunAddress(local) }
        return .ipv4(0, port: local.port)
    }
}
