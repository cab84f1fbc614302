import Foundation
import InteropTestSupport
import RTPWire
import SessionCore
import Testing
@testable import EngineCore

/// A client gathering its own candidates behind a NAT (issue 29): it sits on a home host
/// (192.168.77.2) whose router masquerades it to 10.99.0.1, and coturn runs on the peer host
/// (10.99.0.2) as STUN and TURN server. Passing no address, the client finds its host candidate,
/// the router's public side as its server-reflexive candidate (from STUN and from the TURN
/// allocation alike, offered once), and relayed candidates on coturn (over UDP and over TCP); with
/// the relay policy only the relayed ones; with a silent server, what answered and the problem in words.
@Suite(.serialized) struct CandidateGathererInteropTests {
    static let iceServers = [
        ICEServer(urls: ["stun:10.99.0.2:34790"]),
        ICEServer(urls: ["turn:10.99.0.2:34790?transport=udp", "turn:10.99.0.2:34790?transport=tcp"],
                  username: Coturn.username, credential: Coturn.password),
    ]

    struct Found: Sendable {
        var candidates: [ICECandidate]
        var problems: [String]
        var interfaces: [String]
    }

    static func gather(on home: HomeNetwork, _ configuration: CandidateGatherer.Configuration) throws -> Found {
        try home.onHomeHost {
            let gatherer = CandidateGatherer(configuration: configuration, seed: 7)
            let gathered = try gatherer.gather()
            for candidate in gathered { candidate.relay?.release(now: monotonicMicroseconds()) }
            return Found(candidates: gathered.map(\.candidate), problems: gatherer.problems,
                         interfaces: try NetworkInterfaces.all().map(\.description))
        }
    }

    @Test func behindANATTheClientFindsHostReflexiveAndRelayedCandidatesOnItsOwn() throws {
        try PrivateNamespace.require(for: "CandidateGathererInteropTests")
        let coturn = try Coturn(port: 34_790)
        defer { coturn.stop() }
        let home = try HomeNetwork()
        defer { home.tearDown() }

        let all = try Self.gather(on: home, .init(iceServers: Self.iceServers))
        print("home host interfaces: \(all.interfaces); candidates: \(all.candidates.map(\.description)); problems: \(all.problems)")
        let host = try #require(all.candidates.first { $0.kind == .host })
        #expect(host.address == HomeNetwork.homeAddress && host.priority == 2_130_706_431)
        #expect(all.candidates.filter { $0.kind == .host }.count == 1)  // lo is skipped
        let reflexive = all.candidates.filter { $0.kind == .serverReflexive }
        #expect(reflexive.count == 1)  // STUN and TURN saw the same mapping: offered once
        #expect(reflexive.first?.address == PrivateNamespace.localAddress)  // the router's public side
        #expect(reflexive.first?.relatedAddress == HomeNetwork.homeAddress && reflexive.first?.relatedPort == host.port)
        // One relayed candidate per TURN URL: over UDP, and over a TCP connection to coturn (RFC 8656
        // §3.1), told apart by their foundations (RFC 8445 §5.1.1.3) and, a little, their priorities.
        let relayed = all.candidates.filter { $0.kind == .relayed }
        #expect(relayed.count == 2 && Set(relayed.map(\.foundation)).count == 2)
        for candidate in relayed {
            #expect(candidate.address == PrivateNamespace.peerAddress && (51_000...51_100).contains(candidate.port))
            #expect(candidate.relatedAddress == PrivateNamespace.localAddress)
        }
        #expect(relayed.map(\.priority) == [16_777_215, 16_776_959])
        #expect(all.problems.isEmpty)

        let relayOnly = try Self.gather(on: home, .init(iceServers: Self.iceServers, transportPolicy: .relay))
        #expect(relayOnly.candidates.map(\.kind) == [.relayed, .relayed])
    }

    @Test func silentServersAndWrongCredentialsAreProblemsInWordsAndRelayPolicyFails() throws {
        try PrivateNamespace.require(for: "CandidateGathererInteropTests")
        let coturn = try Coturn(port: 34_791)
        defer { coturn.stop() }
        let home = try HomeNetwork()
        defer { home.tearDown() }
        let silent = ICEServer(urls: ["stun:10.99.0.2:9"])  // nothing listens there
        let wrong = ICEServer(urls: ["turn:10.99.0.2:34791"], username: Coturn.username, credential: "not-the-password")
        let started = Date()
        let found = try Self.gather(on: home, .init(iceServers: [silent, wrong], timeoutMicroseconds: 1_500_000))
        #expect(Date().timeIntervalSince(started) < 2.5)
        #expect(found.candidates.map(\.kind) == [.host])
        #expect(found.problems.contains { $0.contains("10.99.0.2:9") })
        #expect(found.problems.contains { $0.contains("credentials refused") })
        #expect(throws: CandidateGatheringError.self) {
            try Self.gather(on: home, .init(iceServers: [wrong], transportPolicy: .relay, timeoutMicroseconds: 1_500_000))
        }
    }
}
