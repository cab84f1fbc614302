import RTPWire
import SessionCore

/// Trickle ICE (RFC 8838) on the transport: the gathering that goes on after the offer or answer
/// left with the host candidates (`TrickleGathering`) is served by the transport itself, readiness
/// driven: the STUN answers of its transactions arrive on `socket` like everything else and are
/// handed to it, its timers run with the transport's own (`service`, on the engine's cadence or the
/// connect loop's), and nothing else reads the socket. Each server-reflexive or relayed candidate
/// goes to `onTrickle` as its server answers (a relayed one becomes a local candidate of its own at
/// once, `TURNRelayTransport`, paired with every remote candidate), then nil for end-of-candidates.
extension ICEDatagramTransport {
    /// Serves `gathering` from now on (see the extension's description).
    public func trickle(_ gathering: TrickleGathering) {
        self.gathering = gathering
    }

    /// Takes each trickled candidate (nil: end-of-candidates, RFC 8838 §8.2), e.g. to send it as
    /// Janus's `trickle` request; what was found while none was set is handed over at once, in order.
    public var onTrickle: ((ICECandidate?) -> Void)? {
        get { trickleSink }
        set {
            trickleSink = newValue
            guard let newValue else { return }
            let pending = pendingTrickle
            pendingTrickle = []
            for candidate in pending { deliver(candidate, to: newValue) }
        }
    }

    /// A candidate the peer trickled once connected (Janus's `trickle` event): a UDP one is paired
    /// with every local candidate (`addRemoteCandidate`) and named in `selectedCandidates`.
    public func addTrickled(_ candidate: ICECandidate) {
        guard candidate.transport.lowercased() == "udp", let address = NetworkEndpoint.ipAddress(candidate.address) else { return }
        addRemoteCandidate(NetworkEndpoint(ip: address, port: candidate.port), priority: candidate.priority)
        signalledCandidates.remote.append(candidate)
        candidatesTrickledByPeer += 1
    }

    /// Why gathering found nothing to use (the `relay` policy and no allocation), once it is complete.
    public var gatheringFailure: CandidateGatheringError? { gathering?.failure }

    /// Whether gathering is still under way.
    public var isGathering: Bool { gathering.map { !$0.isComplete } ?? false }

    /// An ICE restart's gathering (RFC 8445 §9: on the interfaces there are now, from the same
    /// servers under the same policy): the host candidates to signal with the restart for a
    /// socket bound to every interface (0.0.0.0, or `::` for both families) one per usable interface address, for one bound
    /// to an address that address (none under `relay`), then the relayed candidates kept (their
    /// allocations live on); the servers' candidates trickle as they come. Nil when the socket is
    /// no UDP socket (ICE-TCP), no interface address is left, or the address the socket is bound
    /// to is gone.
    public func regather(iceServers: [ICEServer], transportPolicy: ICETransportPolicy) -> [ICECandidate]? {
        guard let socket = socket as? UDPSocket else { return nil }
        let bound = socket.localEndpoint
        if !bound.isUnspecified {
            // A socket bound to an address that is gone cannot carry a restart (a new socket would).
            let present = (try? NetworkInterfaces.all())?.contains { $0.ip.address == bound.ip } ?? true
            guard present else { return nil }
        }
        let configuration = CandidateGatherer.Configuration(iceServers: iceServers, transportPolicy: transportPolicy)
        let kept = signalledCandidates.local.filter { $0.kind == .relayed }
        if iceServers.isEmpty && transportPolicy == .all {
            // Nothing to ask a server: the host candidates at once, nothing trickles.
            let gatherer = CandidateGatherer(configuration: configuration, clock: clock, seed: 0)
            guard let hosts = try? gatherer.gather(on: socket).map(\.candidate), !hosts.isEmpty else { return nil }
            return hosts + kept
        }
        guard let fresh = try? TrickleGathering(on: socket, configuration: configuration, clock: clock,
                                                seed: UInt64.random(in: 0...UInt64.max)) else { return nil }
        gathering = fresh
        trickled.ended = false
        return fresh.hosts + kept
    }

    /// A STUN datagram answering one of gathering's transactions, taken by it.
    func takenByGathering(_ bytes: UnsafeMutableRawBufferPointer, from source: NetworkEndpoint) -> Bool {
        guard let gathering, !gathering.isComplete, BundledDatagramKind.classify(firstByte: bytes.first) == .stun else { return false }
        return gathering.handle(Array(bytes)[...], from: source)
    }

    /// Runs gathering's timers; its new candidates join and trickle, then end-of-candidates.
    func serviceGathering(now: Int64) {
        guard let gathering, !gathering.isComplete else { return }
        let (found, completed) = gathering.service(now: now)
        for gathered in found {
            if let client = gathered.relay, let server = gathered.server,
               let relay = TURNRelayTransport(client: client, server: server, link: gathered.relayLink ?? gathering.socket,
                                              candidatePriority: gathered.candidate.priority, clock: clock) {
                // A restart's fresh allocation on the same 5-tuple's successor replaces the old one.
                for old in relays where old.server == relay.server && old.link === relay.link { old.retire() }
                relays.append(relay)
                agent.addLocalAddress(relay.relayedAddress, priority: relay.candidatePriority)
                for remote in remoteEndpoints { relay.permit(remote) }
            }
            signalledCandidates.local.append(gathered.candidate)
            emit(gathered.candidate)
        }
        if completed { emit(nil) }
    }

    private func emit(_ candidate: ICECandidate?) {
        if let trickleSink {
            deliver(candidate, to: trickleSink)
        } else {
            pendingTrickle.append(candidate)
        }
    }

    private func deliver(_ candidate: ICECandidate?, to sink: (ICECandidate?) -> Void) {
        if let candidate { trickled.candidates.append(candidate) } else { trickled.ended = true }
        sink(candidate)
    }
}
