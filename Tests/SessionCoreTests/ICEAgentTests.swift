import Testing
import RTPWire
@testable import SessionCore

/// Two ICE agents over a simulated network (delay, loss, silence), on a simulated clock.
final class SimulatedICENetwork {
    struct InFlight {
        var deliverAt: Int64
        var bytes: [UInt8]
        var from: STUNAddress
        var to: STUNAddress
    }

    let a: ICEAgent, b: ICEAgent
    let addressA = STUNAddress.ipv4(0x0A63_0001, port: 40_000)
    let addressB = STUNAddress.ipv4(0x0A63_0002, port: 50_000)
    var now: Int64 = 1_000
    var oneWayDelay: Int64 = 5
    /// Datagrams for which this returns true are lost (index counts every datagram sent).
    var drop: (_ index: Int, _ from: STUNAddress) -> Bool = { _, _ in false }
    private var sent = 0
    private var queue: [InFlight] = []

    init(roleA: ICEAgent.Role = .controlling, roleB: ICEAgent.Role = .controlled, bKnowsA: Bool = true,
         maximumTransmissions: Int = 7) {
        let credentialsA = try! ICECredentials(usernameFragment: "AAAA", password: "aaaaaaaaaaaaaaaaaaaaaaaa")
        let credentialsB = try! ICECredentials(usernameFragment: "BBBB", password: "bbbbbbbbbbbbbbbbbbbbbbbb")
        a = ICEAgent(configuration: .init(local: credentialsA, role: roleA, tieBreaker: 10, maximumTransmissions: maximumTransmissions), seed: 1)
        b = ICEAgent(configuration: .init(local: credentialsB, role: roleB, tieBreaker: 20, maximumTransmissions: maximumTransmissions), seed: 2)
        a.addLocalAddress(addressA)
        b.addLocalAddress(addressB)
        a.setRemoteCredentials(credentialsB)
        b.setRemoteCredentials(credentialsA)
        a.addRemoteCandidate(addressB, priority: 2_130_706_431)
        if bKnowsA { b.addRemoteCandidate(addressA, priority: 2_130_706_431) }
    }

    private func send(_ transmissions: [ICEAgent.Transmission], from: STUNAddress) {
        for transmission in transmissions {
            defer { sent += 1 }
            if drop(sent, from) { continue }
            queue.append(InFlight(deliverAt: now + oneWayDelay, bytes: transmission.bytes, from: from, to: transmission.destination))
        }
    }

    /// Advances the clock by `milliseconds` in 1 ms steps: timers, then due deliveries.
    func run(milliseconds: Int64, until done: () -> Bool = { false }) {
        let end = now + milliseconds
        while now < end, !done() {
            now += 1
            send(a.poll(nowMilliseconds: now), from: addressA)
            send(b.poll(nowMilliseconds: now), from: addressB)
            let due = queue.filter { $0.deliverAt <= now }
            queue.removeAll { $0.deliverAt <= now }
            for datagram in due {
                if datagram.to == addressA {
                    send(a.handle(datagram.bytes[...], from: datagram.from, on: addressA, nowMilliseconds: now), from: addressA)
                } else if datagram.to == addressB {
                    send(b.handle(datagram.bytes[...], from: datagram.from, on: addressB, nowMilliseconds: now), from: addressB)
                }
            }
        }
    }

    var bothConnected: Bool { a.state == .connected && b.state == .connected }
}

@Suite struct ICEAgentTests {
    @Test func twoAgentsConnectOnTheOnePairWithinAFewRoundTrips() {
        let network = SimulatedICENetwork()
        let start = network.now
        network.run(milliseconds: 3_000) { network.bothConnected }
        #expect(network.bothConnected)
        #expect(network.now - start < 100)  // 5 ms each way: check, response, nomination
        #expect(network.a.selectedPair?.remote == network.addressB && network.b.selectedPair?.remote == network.addressA)
        #expect(network.a.permits(network.addressB) && network.b.permits(network.addressA))
        #expect(!network.a.permits(.ipv4(0x0A63_0003, port: 40_000)))
        #expect(network.a.role == .controlling && network.b.role == .controlled)
    }

    @Test func requestsThatFailAuthenticationGetNoAnswer() throws {
        let network = SimulatedICENetwork()
        let agent = network.b
        let id = STUNTransactionID([UInt8](repeating: 7, count: 12))!
        func request(username: String, key: [UInt8]?) throws -> [UInt8] {
            try STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: id,
                            attributes: [.username(username), .iceControlling(tieBreaker: 1)])
                .serialized(integrityKey: key, fingerprint: true)
        }
        let stranger = STUNAddress.ipv4(0x0A63_0009, port: 9)
        for bytes in [try request(username: "BBBB:AAAA", key: Array("wrong-password-wrong-pw".utf8)),
                      try request(username: "XXXX:AAAA", key: Array("bbbbbbbbbbbbbbbbbbbbbbbb".utf8)),
                      try request(username: "BBBB:AAAA", key: nil)] {
            #expect(agent.handle(bytes[...], from: stranger, on: network.addressB, nowMilliseconds: 1).isEmpty)
        }
        #expect(agent.counters.unauthenticatedRequests == 3)
        #expect(agent.handle([0x80, 1, 2, 3][...], from: stranger, on: network.addressB, nowMilliseconds: 1).isEmpty)
        #expect(agent.counters.malformed == 1)
        #expect(!agent.permits(stranger))
        // The right credentials get a success response carrying the source address.
        let answer = agent.handle(try request(username: "BBBB:AAAA", key: Array("bbbbbbbbbbbbbbbbbbbbbbbb".utf8))[...],
                                  from: stranger, on: network.addressB, nowMilliseconds: 1)
        let response = try #require(answer.first)
        #expect(response.destination == stranger)
        let parsed = try STUNMessage(parsing: response.bytes)
        #expect(parsed.type.messageClass == .successResponse && parsed.attributes.contains(.xorMappedAddress(stranger)))
        #expect(STUNMessage.checkIntegrity(response.bytes[...], key: Array("bbbbbbbbbbbbbbbbbbbbbbbb".utf8)) == .valid)
    }

    @Test func lostChecksAreRetransmittedUntilThePairSucceeds() {
        let network = SimulatedICENetwork()
        network.drop = { index, _ in index < 3 }
        network.run(milliseconds: 5_000) { network.bothConnected }
        #expect(network.bothConnected)
        #expect(network.a.counters.retransmissions + network.b.counters.retransmissions >= 1)
    }

    @Test func aSilentPeerFailsTheAgentAfterTheLastRetransmission() {
        let network = SimulatedICENetwork(maximumTransmissions: 3)
        network.drop = { _, from in from == network.addressB }
        network.run(milliseconds: 3_400)
        #expect(network.a.state == .checking)
        network.run(milliseconds: 1_000)  // 500 + 1,000 + 2,000 ms of retransmission timeouts have passed
        #expect(network.a.state == .failed)
        #expect(!network.a.permits(network.addressB))
    }

    @Test func twoControllingAgentsResolveTheConflictByTieBreaker() {
        let network = SimulatedICENetwork(roleA: .controlling, roleB: .controlling)
        network.run(milliseconds: 3_000) { network.bothConnected }
        #expect(network.bothConnected)
        #expect(network.a.counters.roleConflicts + network.b.counters.roleConflicts >= 1)
        // B's tie-breaker (20) beats A's (10): B keeps controlling.
        #expect(network.b.role == .controlling && network.a.role == .controlled)
    }

    @Test func aPeerReflexiveRemoteIsLearntFromItsCheck() {
        let network = SimulatedICENetwork(bKnowsA: false)
        network.run(milliseconds: 3_000) { network.bothConnected }
        #expect(network.bothConnected)
        #expect(network.b.selectedPair?.remote == network.addressA)
    }

    @Test func consentExpiresThirtySecondsAfterThePeerStopsAnswering() {
        let network = SimulatedICENetwork()
        network.run(milliseconds: 1_000) { network.bothConnected }
        #expect(network.bothConnected)
        network.run(milliseconds: 20_000)
        #expect(network.a.state == .connected)  // consent refreshed every ~5 s
        #expect(network.a.counters.consentRequestsSent >= 3)
        network.drop = { _, from in from == network.addressB }
        let silentSince = network.now
        network.run(milliseconds: 40_000) { network.a.state == .failed }
        #expect(network.a.state == .failed)
        #expect(network.now - silentSince <= 30_000 + 5)
        #expect(network.now - silentSince >= 25_000)
        #expect(!network.a.permits(network.addressB))
        #expect(network.a.poll(nowMilliseconds: network.now + 10_000).isEmpty)  // nothing more is sent
    }

    @Test func authenticatedRequestsFromEverNewAddressesMakeAtMostTheBoundOfPairs() throws {
        let network = SimulatedICENetwork()
        let key = Array("bbbbbbbbbbbbbbbbbbbbbbbb".utf8)
        var generator = SplitMix64(seed: 4)
        for port in UInt16(1)...200 {
            let request = try STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request),
                                          transactionID: .random(using: &generator),
                                          attributes: [.username("BBBB:AAAA"), .iceControlling(tieBreaker: 1)])
                .serialized(integrityKey: key, fingerprint: true)
            _ = network.b.handle(request[...], from: .ipv4(0x0A63_0005, port: port), on: network.addressB, nowMilliseconds: 1)
        }
        #expect(network.b.pairs.count <= ICEAgent.maximumRemoteCandidates)
    }

    @Test func anICERestartChecksAgainWithNewCredentialsWhileMediaKeepsFlowing() throws {
        let network = SimulatedICENetwork()
        network.run(milliseconds: 1_000) { network.bothConnected }
        #expect(network.bothConnected)
        let newA = try ICECredentials(usernameFragment: "AAA2", password: "cccccccccccccccccccccccc")
        let newB = try ICECredentials(usernameFragment: "BBB2", password: "dddddddddddddddddddddddd")
        network.a.restart(local: newA, remote: newB)
        network.b.restart(local: newB, remote: newA)
        #expect(network.a.permits(network.addressB) && network.b.permits(network.addressA))  // media goes on meanwhile
        network.run(milliseconds: 1_000) {
            network.a.pairs.allSatisfy { $0.nominated } && network.b.pairs.allSatisfy { $0.nominated }
        }
        #expect(network.a.pairs.allSatisfy { $0.state == .succeeded && $0.nominated })
        #expect(network.a.restarts == 1 && network.bothConnected)
        // Checks signed with the old password are no longer answered.
        let stale = try STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request),
                                    transactionID: STUNTransactionID([UInt8](repeating: 3, count: 12))!,
                                    attributes: [.username("BBBB:AAAA"), .iceControlling(tieBreaker: 1)])
            .serialized(integrityKey: Array("bbbbbbbbbbbbbbbbbbbbbbbb".utf8), fingerprint: true)
        #expect(network.b.handle(stale[...], from: network.addressA, on: network.addressB, nowMilliseconds: network.now).isEmpty)
    }
}
