import RTPWire
import SessionCore

/// Candidate gathering for trickle ICE (RFC 8838) on an ICE transport's own UDP socket: the host
/// candidates are known at once (`hosts`, what the offer or answer carries), while the STUN
/// queries and TURN allocations (`CandidateGatherer`'s, RFC 8445 §5.1.1.2, RFC 8656) go on without
/// blocking anyone. Nothing here reads the socket or waits: the ICE transport that reads it hands
/// over the STUN answers of gathering's transactions (`handle`), runs the timers when it runs its
/// own (`service`, retransmissions and the gathering timeout), and takes each server-reflexive or
/// relayed candidate as its server answers, to trickle it; once every server answered or the
/// timeout passed, gathering is complete (end-of-candidates, RFC 8838 §8.2). A TURN allocation
/// over TCP is read here through its own connection until it is allocated, then its relay
/// (`TURNRelayTransport`) reads it.
///
/// Not `Sendable`: confined with the ICE transport that owns it.
public final class TrickleGathering {
    /// The host candidates (none under the `relay` policy), to signal at once.
    public let hosts: [ICECandidate]
    /// The UDP socket gathering runs on (the ICE transport's).
    public let socket: UDPSocket
    private let gatherer: CandidateGatherer
    private let base: CandidateGatherer.Base
    private let deadline: Int64
    private let clock: MediaClock
    /// The candidates handed out so far ("kind address:port").
    private var reported: Set<String> = []
    private var buffer = [UInt8](repeating: 0, count: 2_048)
    private var relaysReported = 0
    /// An answer arrived since the last `service`, or (`dueAt`) a timer is due: work to do. The
    /// transport runs `service` on every datagram; otherwise it costs one comparison.
    private var answered = false
    private var dueAt: Int64 = .min
    /// Every server answered, or the timeout passed.
    public private(set) var isComplete = false
    /// Under the `relay` policy, why no relayed candidate came (set when gathering completes without one).
    public private(set) var failure: CandidateGatheringError?

    /// Starts gathering on `socket` (see the type's description): host candidates for its address
    /// (one per usable interface address for 0.0.0.0, IPv4 and IPv6 ones for `::`), the first STUN and TURN requests sent.
    /// Throws on an unusable server configuration or when there is no address to gather on.
    public init(on socket: UDPSocket, configuration: CandidateGatherer.Configuration, clock: MediaClock = .system,
                seed: UInt64) throws(CandidateGatheringError) {
        gatherer = CandidateGatherer(configuration: configuration, clock: clock, seed: seed)
        self.socket = socket
        self.clock = clock
        let servers = try gatherer.resolvedServers()
        let local = socket.localEndpoint
        let addresses = local.isUnspecified ? try gatherer.interfaceAddresses(includingIPv6: local.isIPv6) : [local.ip]
        base = CandidateGatherer.Base(socket: socket, localPreference: 65_535, hostAddresses: addresses)
        let start = clock.monotonicMicroseconds()
        deadline = start + configuration.timeoutMicroseconds
        try gatherer.ask(servers, from: base, now: start)
        hosts = configuration.transportPolicy == .relay ? [] : (try gatherer.collect([base], final: false)).map(\.candidate)
        for host in hosts { reported.insert(Self.key(host)) }
    }

    /// What did not work, one sentence each (once complete: every silent or failing server).
    public var problems: [String] { gatherer.problems }

    /// Takes `datagram` from `source` if it answers one of gathering's transactions still under
    /// way (a STUN Binding query's, a TURN allocation's): true when it did.
    public func handle(_ datagram: ArraySlice<UInt8>, from source: NetworkEndpoint) -> Bool {
        guard !isComplete else { return false }
        for index in base.queries.indices where base.queries[index].server == source && base.queries[index].query.state == .waiting {
            if base.queries[index].query.handle(datagram) {
                answered = true
                return true
            }
        }
        for (server, client) in base.allocations where server == source {
            guard case .allocating = client.state else { continue }
            _ = client.handle(datagram, now: clock.monotonicMicroseconds())
            // Its next request (the authenticated Allocate after a 401, a permission) goes at once.
            for request in client.takeOutgoing() { try? socket.send(request, to: server) }
            answered = true
            return true
        }
        return false
    }

    /// When the next retransmission or the timeout is due (nil once complete).
    public var nextDeadline: Int64? {
        guard !isComplete else { return nil }
        var wake = deadline
        for query in base.queries { if let next = query.query.nextDeadline { wake = min(wake, next) } }
        for client in base.allocations.map(\.client) + base.streamAllocations.map(\.client) {
            if case .allocating = client.state, let next = client.nextDeadline { wake = min(wake, next) }
        }
        return wake
    }

    /// Runs the timers at `now` (retransmissions; over TCP, what the connections hold) and returns
    /// the candidates found since the last call, and whether gathering is now complete (then
    /// for the first time: end-of-candidates is due). A relayed candidate's allocation is the
    /// caller's from now on (`GatheredCandidate.relay`).
    public func service(now: Int64) -> (found: [GatheredCandidate], completed: Bool) {
        guard !isComplete, answered || now >= dueAt else { return ([], false) }
        answered = false
        try? gatherer.flush(base, now: now)
        for (connection, client) in base.streamAllocations {
            if case .allocating = client.state { gatherer.receiveStream(connection, for: client, into: &buffer, now: now) }
        }
        let settled = gatherer.isSettled(base) || now >= deadline
        var gathered: [GatheredCandidate] = []
        do {
            gathered = try gatherer.collect([base], final: settled)
        } catch {
            // Under `relay`, none in this last pass: a failure only if none came before either.
            if relaysReported == 0 { failure = error }
        }
        let found = gathered.filter { reported.insert(Self.key($0.candidate)).inserted }
        relaysReported += found.count { $0.relay != nil }
        // Allocations handed out are their relays' to refresh and read; gathering lets go of them.
        let handedOut = Set(found.compactMap { $0.relay.map(ObjectIdentifier.init) })
        base.allocations.removeAll { handedOut.contains(ObjectIdentifier($0.client)) }
        base.streamAllocations.removeAll { handedOut.contains(ObjectIdentifier($0.client)) }
        if settled {
            isComplete = true
            base.allocations.removeAll()
            base.streamAllocations.removeAll()
        }
        // TURN over TCP has no readiness of its own here: its connections are read every 20 ms meanwhile.
        dueAt = min(nextDeadline ?? .max, base.streamAllocations.isEmpty ? .max : now + 20_000)
        return (found, settled)
    }

    private static func key(_ candidate: ICECandidate) -> String { "\(candidate.kind) \(candidate.address):\(candidate.port)" }
}
