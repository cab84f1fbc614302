import Testing
@testable import SessionCore

/// `PathLiveness` on a simulated clock: a path on which nothing but the answers to its own probes
/// arrives stays live; one that stops answering is silent 2.5 s after the last datagram, probed
/// every second from 1 s on, and live again at the first datagram.
@Suite struct PathLivenessTests {
    /// Polls every `step` ms from `from` to `to`; a probe is answered `roundTrip` ms later while
    /// `answers(now)` holds. Returns the probes sent and the state changes with their times.
    static func run(_ liveness: inout PathLiveness, datagrams: inout Int, from: Int64, to: Int64, step: Int64 = 10,
                    roundTrip: Int64 = 20, answers: (Int64) -> Bool) -> (probes: [Int64], changes: [(Int64, PathLiveness.State)]) {
        var probes: [Int64] = [], changes: [(Int64, PathLiveness.State)] = [], pendingAnswers: [Int64] = []
        var now = from
        while now <= to {
            let arrived = pendingAnswers.filter { $0 <= now }
            pendingAnswers.removeAll { $0 <= now }
            datagrams += arrived.count
            let outcome = liveness.poll(nowMilliseconds: now, datagramsReceived: datagrams)
            if outcome.probe {
                probes.append(now)
                if answers(now) { pendingAnswers.append(now + roundTrip) }
            }
            if let changed = outcome.changed { changes.append((now, changed)) }
            now += step
        }
        return (probes, changes)
    }

    @Test func anIdlePathThatAnswersItsProbesStaysLive() {
        var datagrams = 0
        var liveness = PathLiveness(nowMilliseconds: 0, datagramsReceived: 0)
        let (probes, changes) = Self.run(&liveness, datagrams: &datagrams, from: 0, to: 60_000) { _ in true }
        #expect(changes.isEmpty)
        #expect(liveness.state == .live)
        // One probe a second of silence, each answered 20 ms later: about 59 in a minute.
        #expect((55...60).contains(probes.count))
        #expect(liveness.silenceMilliseconds(nowMilliseconds: 60_000) <= 1_000)
    }

    @Test func aPathThatStopsAnsweringIsSilentAfterTwoAndAHalfSecondsAndLiveAtTheFirstDatagram() {
        var datagrams = 0
        var liveness = PathLiveness(nowMilliseconds: 0, datagramsReceived: 0)
        // Media every 10 ms until 5 s.
        for now in stride(from: Int64(0), through: 5_000, by: 10) {
            datagrams += 1
            #expect(liveness.poll(nowMilliseconds: now, datagramsReceived: datagrams) == .init())
        }
        #expect(liveness.nextDeadlineMilliseconds == 6_000)  // the first probe, before turning silent at 7.5 s
        let (probes, changes) = Self.run(&liveness, datagrams: &datagrams, from: 5_010, to: 9_000) { _ in false }
        #expect(probes == [6_000, 7_000, 8_000, 9_000])
        #expect(changes.count == 1 && changes.first?.0 == 7_500 && changes.first?.1 == .silent)
        #expect(liveness.nextDeadlineMilliseconds == 10_000)
        datagrams += 1
        #expect(liveness.poll(nowMilliseconds: 9_005, datagramsReceived: datagrams) == .init(probe: false, changed: .live))
        #expect(liveness.state == .live && liveness.lastReceivedMilliseconds == 9_005)
    }

    /// The agent's probe goes out at once on the selected pair, is answered and not retransmitted.
    @Test func theAgentsConsentProbeIsOneBindingRequestOnTheSelectedPair() {
        let network = SimulatedICENetwork()
        #expect(network.a.probeConsent(nowMilliseconds: network.now).isEmpty)  // not connected yet
        network.run(milliseconds: 3_000) { network.bothConnected }
        let sent = network.a.counters.consentRequestsSent
        let retransmissions = network.a.counters.retransmissions
        let probe = network.a.probeConsent(nowMilliseconds: network.now)
        #expect(probe.count == 1 && probe.first?.destination == network.addressB && probe.first?.source == network.addressA)
        #expect(network.a.counters.consentRequestsSent == sent + 1)
        // Lost: never sent again (the regular consent checks go on).
        network.run(milliseconds: 3_000)
        #expect(network.a.counters.retransmissions == retransmissions)
        #expect(network.a.state == .connected)
    }
}
