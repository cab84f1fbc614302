import SessionCore

/// Consent freshness and liveness of the selected pair (RFC 7675; issue 29 item 3). The agent
/// sends its consent checks every 5 s ±20 % and stops everything 30 s after the last answer
/// (`ICEAgent.poll`); on top of that the transport follows every datagram the peer sends
/// (`PathLiveness`): silent for 1 s, a consent check goes out at once and every second after
/// (`ICEAgent.probeConsent`), so an idle but working path answers; silent for 2.5 s, the path is
/// `.silent`, and the first datagram after that makes it `.live` again.
extension ICEDatagramTransport {
    /// Whether the selected pair carries anything (`.live` until a pair is selected).
    public var pathState: PathLiveness.State { liveness?.state ?? .live }

    /// When the liveness next has something to do (monotonic microseconds; nil before a pair is
    /// selected): a probe, or the moment the path turns silent.
    public var nextLivenessDeadlineMicroseconds: Int64? { liveness.map { $0.nextDeadlineMilliseconds * 1_000 } }

    /// Since when nothing arrived (monotonic milliseconds), nil before a pair is selected.
    public var lastReceivedMilliseconds: Int64? { liveness?.lastReceivedMilliseconds }

    /// Whether the peer answers our consent checks seeing them come from another address than the
    /// one the selected pair was checked from (XOR-MAPPED-ADDRESS, RFC 8489 §14.2): our address
    /// changed (a new network, a NAT rebinding) while the peer still sends to the old one, which
    /// only an ICE restart mends.
    public var hasMoved: Bool {
        guard let original = agent.selectedPair?.mappedAddress, let seen = agent.consentMappedAddress else { return false }
        return original != seen
    }

    /// Whether consent expired (RFC 7675 §5.1: 30 s without an answer) or every pair failed: the
    /// transport sends nothing more.
    public var hasFailed: Bool { agent.state == .failed }

    /// Called from `service()`: starts following once a pair is selected, probes a silent path.
    func followLiveness(nowMilliseconds now: Int64) {
        guard agent.selectedPair != nil else { return }
        guard liveness != nil else {
            liveness = PathLiveness(configuration: livenessConfiguration, nowMilliseconds: now, datagramsReceived: datagramsFromPeer)
            return
        }
        let outcome = liveness!.poll(nowMilliseconds: now, datagramsReceived: datagramsFromPeer)
        if outcome.probe { transmit(agent.probeConsent(nowMilliseconds: now)) }
    }
}
