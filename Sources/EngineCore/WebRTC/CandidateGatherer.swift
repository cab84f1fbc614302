import Glibc
import RTPWire
import SessionCore

/// Gathers a client's own ICE candidates (RFC 8445 §5.1.1), as a browser does before it offers:
/// - host candidates: one UDP socket on every usable interface address, IPv4 and IPv6
///   (`NetworkInterfaces`; loopback and link-local skipped unless asked), or on the addresses the
///   app restricts it to; IPv6 ones first, with the higher local preference (RFC 8445 §5.1.2.1,
///   RFC 6724 §10.3's precedence, as browsers do);
/// - server-reflexive candidates: a STUN Binding query (`STUNBindingQuery`) from every host socket
///   to every STUN server, and the mapped address every TURN allocation reports;
/// - relayed candidates: a TURN allocation (`TURNClient`, RFC 8656, long-term credentials) from
///   every host socket on every TURN server; for `?transport=tcp` URLs over a TCP connection of its
///   own to the server (RFC 8656 §3.1, `TCPFramedConnection` with STUN/ChannelData framing), which
///   then carries that relay's traffic.
/// Priorities and foundations follow RFC 8445 §5.1.2 (`ICECandidatePriority`); a server-reflexive
/// address equal to its base is dropped as redundant (§5.1.3). With the `relay` policy only relayed
/// candidates are offered, and finding none is an error.
///
/// `gather()` blocks (on the caller's thread, e.g. the engine's signalling worker) until every
/// server answered or `timeoutMicroseconds` passed, waiting in `poll(2)` on the sockets until the
/// next retransmission: it never spins. A server that fails or stays silent is noted in `problems`
/// and the rest is offered. STUN over TCP and the TLS schemes are not gathered (noted too).
public final class CandidateGatherer {
    public struct Configuration: Sendable {
        public var iceServers: [ICEServer]
        public var transportPolicy: ICETransportPolicy
        /// IPv4 host addresses to gather on (nil: every usable interface address, IPv4 and IPv6).
        public var localAddresses: [UInt32]?
        public var includingLoopback: Bool
        /// How long to wait for STUN and TURN answers before offering what came.
        public var timeoutMicroseconds: Int64

        public init(iceServers: [ICEServer] = [], transportPolicy: ICETransportPolicy = .all, localAddresses: [UInt32]? = nil,
                    includingLoopback: Bool = false, timeoutMicroseconds: Int64 = 3_000_000) {
            self.iceServers = iceServers
            self.transportPolicy = transportPolicy
            self.localAddresses = localAddresses
            self.includingLoopback = includingLoopback
            self.timeoutMicroseconds = timeoutMicroseconds
        }
    }

    public let configuration: Configuration
    /// What did not work, one sentence each (a silent server, a refused allocation, an unsupported URL).
    public private(set) var problems: [String] = []
    private let clock: MediaClock
    private var random: SplitMix64

    /// One base socket and what is asked through it (and, for TURN over TCP, connections of their own).
    final class Base {
        let socket: UDPSocket
        let localPreference: UInt16
        /// The host addresses the socket answers on (one, or each interface's for 0.0.0.0 / `::`).
        let hostAddresses: [IPAddress]
        var queries: [(server: NetworkEndpoint, query: STUNBindingQuery)] = []
        var allocations: [(server: NetworkEndpoint, client: TURNClient)] = []
        var streamAllocations: [(connection: TCPFramedConnection, client: TURNClient)] = []

        init(socket: UDPSocket, localPreference: UInt16, hostAddresses: [IPAddress]) {
            self.socket = socket
            self.localPreference = localPreference
            self.hostAddresses = hostAddresses
        }
    }

    /// A seed for a new TURN client's transaction IDs.
    func nextSeed() -> UInt64 { random.next() }

    /// Notes what did not work, in words.
    func note(_ problem: String) { problems.append(problem) }

    public init(configuration: Configuration, clock: MediaClock = .system, seed: UInt64) {
        self.configuration = configuration
        self.clock = clock
        random = SplitMix64(seed: seed)
    }

    /// Gathers (see the type's description). Throws on an unusable configuration, when there is
    /// no address to gather on, or under the `relay` policy when no allocation succeeded.
    public func gather() throws(CandidateGatheringError) -> [GatheredCandidate] {
        problems = []
        return try gather(from: try bindBases(), servers: try resolvedServers())
    }

    /// Gathers on one socket the caller already has (an ICE transport's): its host candidate, or
    /// with a socket bound to every interface one host candidate per usable interface address
    /// (`configuration.localAddresses` or `NetworkInterfaces`: IPv4 ones for 0.0.0.0, IPv4 and IPv6
    /// for a dual-stack `::`), all on its port; then what
    /// the servers report through it.
    public func gather(on socket: UDPSocket) throws(CandidateGatheringError) -> [GatheredCandidate] {
        problems = []
        let servers = try resolvedServers()
        let local = socket.localEndpoint
        let addresses = local.isUnspecified ? try interfaceAddresses(includingIPv6: local.isIPv6) : [local.ip]
        return try gather(from: [Base(socket: socket, localPreference: 65_535, hostAddresses: addresses)], servers: servers)
    }

    private func gather(from bases: [Base], servers: [Server]) throws(CandidateGatheringError) -> [GatheredCandidate] {
        let start = clock.monotonicMicroseconds()
        for base in bases { try ask(servers, from: base, now: start) }
        try exchange(bases, until: start + configuration.timeoutMicroseconds)
        return try collect(bases)
    }

    /// Starts a STUN query or a TURN allocation from `base` to every server and sends the first requests.
    func ask(_ servers: [Server], from base: Base, now start: Int64) throws(CandidateGatheringError) {
        // A socket reaches servers of its own family (a dual-stack one, both).
        let local = base.socket.localEndpoint
        for server in servers where server.endpoint.isIPv6 == local.isIPv6 || (local.isIPv6 && local.isUnspecified) {
            if server.stream, let credentials = server.credentials {
                startStreamAllocation(on: base, to: server.endpoint, credentials: credentials, now: start)
            } else if let credentials = server.credentials {
                let client = TURNClient(configuration: .init(username: credentials.username, password: credentials.password),
                                        seed: random.next())
                client.start(now: start)
                base.allocations.append((server.endpoint, client))
            } else {
                base.queries.append((server.endpoint, STUNBindingQuery(transactionID: .random(using: &random), now: start)))
            }
        }
        try flush(base)
    }

    // MARK: - Steps

    struct Server {
        var endpoint: NetworkEndpoint
        var credentials: (username: String, password: String)?
        /// TURN over TCP.
        var stream = false
    }

    func resolvedServers() throws(CandidateGatheringError) -> [Server] {
        var servers: [Server] = []
        for iceServer in configuration.iceServers.prefix(16) {
            let urls: [ICEServerURL]
            do {
                urls = try iceServer.parsedURLs()
            } catch {
                throw .server(error)
            }
            for url in urls {
                guard url.transport == .udp || url.scheme.isTURN else {
                    problems.append("\(url): STUN over TCP is not gathered")
                    continue
                }
                let address = try Self.resolve(url.host)
                let credentials = url.scheme.isTURN ? (iceServer.username ?? "", iceServer.credential ?? "") : nil
                servers.append(Server(endpoint: NetworkEndpoint(ip: address, port: url.port), credentials: credentials,
                                      stream: url.transport != .udp))
            }
        }
        return servers
    }

    /// The restriction, or every usable interface address (IPv6 ones only when `includingIPv6`),
    /// IPv6 first; throws when there is none.
    func interfaceAddresses(includingIPv6: Bool) throws(CandidateGatheringError) -> [IPAddress] {
        let addresses: [IPAddress]
        if let restricted = configuration.localAddresses {
            addresses = restricted.map { .v4(IPv4Address($0)) }
        } else {
            do {
                addresses = try NetworkInterfaces.usable(includingLoopback: configuration.includingLoopback).map(\.ip.address).filter {
                    if case .v6 = $0 { includingIPv6 } else { true }
                }
            } catch {
                throw .network(error)
            }
        }
        guard !addresses.isEmpty else {
            throw .noInterfaces(configuration.localAddresses == nil ? "no interface address is up" : "the restriction lists none")
        }
        return Set(addresses).sorted { Self.preferenceOrder($0) < Self.preferenceOrder($1) }
    }

    /// Sort key: IPv6 before IPv4 (RFC 6724 §10.3's default precedence), then by value.
    private static func preferenceOrder(_ address: IPAddress) -> (Int, UInt64, UInt64) {
        switch address {
        case let .v6(v6): (0, v6.high, v6.low)
        case let .v4(v4): (1, 0, UInt64(v4.value))
        }
    }

    private func bindBases() throws(CandidateGatheringError) -> [Base] {
        var bases: [Base] = []
        for (index, address) in try interfaceAddresses(includingIPv6: true).enumerated() {
            do {
                let socket = try UDPSocket(bindingTo: NetworkEndpoint(ip: address, port: 0))
                bases.append(Base(socket: socket, localPreference: UInt16(clamping: 65_535 - index), hostAddresses: [address]))
            } catch {
                problems.append("\(address): \(error)")
            }
        }
        guard !bases.isEmpty else { throw .noInterfaces(problems.joined(separator: "; ")) }
        return bases
    }

    /// Sends what the base's queries and allocations have queued or due at `now`.
    func flush(_ base: Base, now: Int64? = nil) throws(CandidateGatheringError) {
        for index in base.queries.indices {
            // The first send (no `now`), or a retransmission if one is due.
            let bytes = if let now { base.queries[index].query.poll(now: now) } else { Optional(base.queries[index].query.request) }
            if let bytes { send(bytes, from: base, to: base.queries[index].server) }
        }
        for (server, client) in base.allocations {
            if let now { client.poll(now: now) }
            for datagram in client.takeOutgoing() { send(datagram, from: base, to: server) }
        }
        flushStreamAllocations(of: base, now: now)
    }

    private func send(_ bytes: [UInt8], from base: Base, to server: NetworkEndpoint) {
        do {
            try base.socket.send(bytes, to: server)
        } catch {
            problems.append("\(server) from \(base.socket.localEndpoint): \(error)")
        }
    }

    func isSettled(_ base: Base) -> Bool {
        base.queries.allSatisfy { $0.query.state != .waiting } && (base.allocations.map(\.client) + base.streamAllocations.map(\.client)).allSatisfy {
            if case .allocating = $0.state { false } else { true }
        }
    }

    /// Waits on every base socket until every query and allocation settled or `deadline`.
    private func exchange(_ bases: [Base], until deadline: Int64) throws(CandidateGatheringError) {
        var descriptors = bases.map { pollfd(fd: $0.socket.descriptor, events: Int16(POLLIN), revents: 0) }
        let streams = bases.flatMap { base in base.streamAllocations.map { (base, $0.connection, $0.client) } }
        descriptors += streams.map { pollfd(fd: $0.1.descriptor, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while !bases.allSatisfy(isSettled) {
            let now = clock.monotonicMicroseconds()
            guard now < deadline else { break }
            var wake = deadline
            for base in bases {
                for query in base.queries { if let next = query.query.nextDeadline { wake = min(wake, next) } }
                for client in base.allocations.map(\.client) + base.streamAllocations.map(\.client) {
                    if case .allocating = client.state, let next = client.nextDeadline { wake = min(wake, next) }
                }
            }
            let timeout = Int32(clamping: max(0, (wake - now + 999) / 1_000))
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            let after = clock.monotonicMicroseconds()
            if ready > 0 {
                for (index, base) in bases.enumerated() where descriptors[index].revents != 0 {
                    descriptors[index].revents = 0
                    while let received = try receive(on: base, into: &buffer) {
                        dispatch(buffer[0..<received.count], from: received.from, to: base, now: after)
                    }
                }
                for (index, stream) in streams.enumerated() where descriptors[bases.count + index].revents != 0 {
                    descriptors[bases.count + index].revents = 0
                    receiveStream(stream.1, for: stream.2, into: &buffer, now: after)
                }
            }
            for base in bases { try flush(base, now: after) }
        }
    }

    private func receive(on base: Base, into buffer: inout [UInt8]) throws(CandidateGatheringError) -> (count: Int, from: NetworkEndpoint)? {
        do {
            return try base.socket.receive(into: &buffer, timeoutMilliseconds: 0)
        } catch {
            throw .network(error)
        }
    }

    private func dispatch(_ datagram: ArraySlice<UInt8>, from source: NetworkEndpoint, to base: Base, now: Int64) {
        for index in base.queries.indices where base.queries[index].server == source {
            if base.queries[index].query.handle(datagram) { return }
        }
        for (server, client) in base.allocations where server == source {
            _ = client.handle(datagram, now: now)
            return
        }
    }

    /// The candidates, host first, then server-reflexive, then relayed; problems noted. Not
    /// `final` (trickle ICE, `TrickleGathering`): what has come so far, nothing noted or thrown
    /// for what is still under way.
    func collect(_ bases: [Base], final: Bool = true) throws(CandidateGatheringError) -> [GatheredCandidate] {
        var hosts: [GatheredCandidate] = [], reflexive: [GatheredCandidate] = [], relayed: [GatheredCandidate] = []
        var relayProblems: [String] = []
        for base in bases {
            let port = base.socket.localEndpoint.port
            for (index, address) in base.hostAddresses.enumerated() {
                hosts.append(GatheredCandidate(candidate: candidate(.host, address: NetworkEndpoint(ip: address, port: port),
                                                                    base: address.description, server: nil,
                                                                    localPreference: base.localPreference &- UInt16(clamping: index)),
                                               socket: base.socket, server: nil, relay: nil))
            }
            // A reflexive address is related to the host address it was learnt through: the first
            // of the server's family.
            func hostText(toward server: NetworkEndpoint) -> String {
                (base.hostAddresses.first { NetworkEndpoint(ip: $0, port: 0).isIPv6 == server.isIPv6 } ?? base.hostAddresses.first)?
                    .description ?? "0.0.0.0"
            }
            var mapped = Set(base.hostAddresses.map { NetworkEndpoint(ip: $0, port: port) })
            func addReflexive(_ address: STUNAddress?, server: NetworkEndpoint) {
                guard let address else { return }
                let endpoint = ICEDatagramTransport.endpoint(address)
                guard mapped.insert(endpoint).inserted else { return }  // RFC 8445 §5.1.3: redundant
                let hostText = hostText(toward: server)
                var found = candidate(.serverReflexive, address: endpoint, base: hostText, server: server.description,
                                      localPreference: base.localPreference)
                found.relatedAddress = hostText
                found.relatedPort = port
                reflexive.append(GatheredCandidate(candidate: found, socket: base.socket, server: server, relay: nil))
            }
            for (server, query) in base.queries {
                switch query.state {
                case let .mapped(address): addReflexive(address, server: server)
                case let .failed(error): if final { problems.append("STUN \(server): \(error)") }
                case .waiting: if final { problems.append("STUN \(server): no answer within the gathering timeout") }
                }
            }
            let relays = base.allocations.map { ($0.server, $0.client, nil as TCPFramedConnection?) }
                + base.streamAllocations.map { ($0.connection.peer, $0.client, $0.connection as TCPFramedConnection?) }
            for (server, client, connection) in relays {
                switch client.state {
                case let .allocated(relayedAddress, mappedAddress, _):
                    // Over TCP the mapped address is the connection's, not the UDP socket's: not a candidate.
                    if connection == nil { addReflexive(mappedAddress, server: server) }
                    // RFC 8445 §5.1.1.3: the transport to the server is part of the foundation.
                    var found = candidate(.relayed, address: ICEDatagramTransport.endpoint(relayedAddress), base: hostText(toward: server),
                                          server: (connection == nil ? "" : "tcp:") + server.description,
                                          localPreference: base.localPreference &- (connection == nil ? 0 : 1))
                    if let mappedAddress {
                        found.relatedAddress = ICEDatagramTransport.endpoint(mappedAddress).addressText
                        found.relatedPort = mappedAddress.port
                    }
                    relayed.append(GatheredCandidate(candidate: found, socket: base.socket, server: server, relay: client,
                                                     relayLink: connection))
                case let .failed(error): relayProblems.append("TURN \(server): \(error)")
                case .allocating: relayProblems.append("TURN \(server): no allocation within the gathering timeout")
                case .idle, .released: relayProblems.append("TURN \(server): not allocated")
                }
            }
        }
        if final { problems += relayProblems }
        switch configuration.transportPolicy {
        case .all: return hosts + reflexive + relayed
        case .relay:
            guard !relayed.isEmpty || !final else { throw .noRelayCandidate(reasons: relayProblems) }
            return relayed
        }
    }

    private func candidate(_ kind: ICECandidate.Kind, address: NetworkEndpoint, base: String, server: String?,
                           localPreference: UInt16) -> ICECandidate {
        ICECandidate(foundation: ICECandidatePriority.foundation(kind: kind, baseAddress: base, server: server, transport: "udp"),
                     priority: ICECandidatePriority.priority(kind: kind, localPreference: localPreference),
                     address: address.addressText, port: address.port, kind: kind)
    }

    /// An IPv4 or IPv6 literal as is; a name through the resolver (`AddressResolver`, either family).
    static func resolve(_ host: String) throws(CandidateGatheringError) -> IPAddress {
        if let literal = NetworkEndpoint.ipAddress(host) { return literal }
        guard let resolved = AddressResolver.resolve(host, socketType: Int32(SOCK_DGRAM.rawValue)) else { throw .unresolved(host: host) }
        return resolved
    }
}
