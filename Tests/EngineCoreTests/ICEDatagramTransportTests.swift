import Glibc
import RTPWire
import SessionCore
import Testing
@testable import EngineCore

/// Two ICE-guarded transports on real loopback UDP sockets, in real time.
@Suite struct ICEDatagramTransportTests {
    final class Side {
        let transport: ICEDatagramTransport
        var buffer = [UInt8](repeating: 0, count: 2048)
        var received: [[UInt8]] = []

        init(role: ICEAgent.Role, local: ICECredentials, tieBreaker: UInt64) throws {
            let agent = ICEAgent(configuration: .init(local: local, role: role, tieBreaker: tieBreaker), seed: tieBreaker)
            transport = ICEDatagramTransport(socket: try UDPSocket(bindingTo: .loopback(port: 0)), agent: agent)
        }

        func pump() throws {
            while let datagram = try transport.receive(into: &buffer, timeoutMilliseconds: 0) {
                received.append(Array(buffer[0..<datagram.count]))
            }
        }
    }

    static let credentialsA = try! ICECredentials(usernameFragment: "Aaaa", password: "aaaaaaaaaaaaaaaaaaaaaaaa")
    static let credentialsB = try! ICECredentials(usernameFragment: "Bbbb", password: "bbbbbbbbbbbbbbbbbbbbbbbb")

    /// A connected pair of sides (A controlling) and the time it took.
    static func connect() throws -> (a: Side, b: Side, milliseconds: Int64) {
        let a = try Side(role: .controlling, local: credentialsA, tieBreaker: 1)
        let b = try Side(role: .controlled, local: credentialsB, tieBreaker: 2)
        a.transport.agent.setRemoteCredentials(credentialsB)
        b.transport.agent.setRemoteCredentials(credentialsA)
        a.transport.agent.addRemoteCandidate(ICEDatagramTransport.stunAddress(b.transport.localEndpoint), priority: 2_130_706_431)
        b.transport.agent.addRemoteCandidate(ICEDatagramTransport.stunAddress(a.transport.localEndpoint), priority: 2_130_706_431)
        let clock = MediaClock.system
        let start = clock.monotonicMilliseconds()
        while clock.monotonicMilliseconds() - start < 3_000,
              a.transport.agent.state != .connected || b.transport.agent.state != .connected {
            try a.pump()
            try b.pump()
            usleep(1_000)
        }
        return (a, b, clock.monotonicMilliseconds() - start)
    }

    @Test func connectsOnLoopbackInUnderASecondAndCarriesMediaOnlyBetweenThePair() throws {
        let (a, b, milliseconds) = try Self.connect()
        #expect(a.transport.agent.state == .connected && b.transport.agent.state == .connected)
        #expect(milliseconds < 1_000)
        print("ICE connected on loopback in \(milliseconds) ms")
        #expect(a.transport.selectedRemote == b.transport.localEndpoint)

        let rtp: [UInt8] = [0x80, 96, 0, 1] + [UInt8](repeating: 7, count: 40)
        try a.transport.send(rtp, to: b.transport.localEndpoint)
        // A stranger's RTP and an unauthenticated STUN request reach nothing.
        let stranger = try UDPSocket(bindingTo: .loopback(port: 0))
        try stranger.send([0x80, 96, 0, 2] + [UInt8](repeating: 9, count: 40), to: b.transport.localEndpoint)
        let unsigned = try STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request),
                                       transactionID: STUNTransactionID([UInt8](repeating: 1, count: 12))!,
                                       attributes: [.username("Bbbb:Aaaa")]).serialized(fingerprint: true)
        try stranger.send(unsigned, to: b.transport.localEndpoint)
        try stranger.send([0x40, 0, 0, 0], to: b.transport.localEndpoint)
        usleep(20_000)
        try b.pump()
        #expect(b.received == [rtp])
        #expect(b.transport.counters.fromUncheckedAddresses == 1 && b.transport.counters.unknownKinds == 1)
        #expect(b.transport.agent.counters.unauthenticatedRequests == 1)
        var answer = [UInt8](repeating: 0, count: 64)
        #expect(try stranger.receive(into: &answer, timeoutMilliseconds: 50) == nil)  // no response at all
        #expect(throws: NetworkError.noConsent(destination: stranger.localEndpoint.description)) {
            try a.transport.send(rtp, to: stranger.localEndpoint)
        }
    }
}
