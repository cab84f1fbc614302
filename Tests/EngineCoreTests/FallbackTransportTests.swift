import RTPWire
import SessionCore
import Testing
@testable import EngineCore

/// A client's way to a node that listens on UDP and TCP (issue 18, docs/joining-a-room.md `preferredProtocol`):
/// UDP confirmed by the node's answer to a STUN Binding check, TCP after the deadline when no
/// answer comes, TCP only without a UDP socket. Real loopback sockets, simulated clock; the node
/// side is a `UDPAndTCPTransport` that answers checks only when the test lets it read.
@Suite struct FallbackTransportTests {
    let clock = ManualClock()
    let node: UDPAndTCPTransport
    var random = SplitMix64(seed: 18)

    init() throws {
        node = try UDPAndTCPTransport()
    }

    mutating func client(_ preference: TransportPreference) throws -> FallbackTransport {
        let credentials = ICECredentials.random(using: &random)
        node.expectConnection(from: credentials)
        return try FallbackTransport(preference: preference, server: node.localEndpoint, serverTCP: node.tcpEndpoint,
                                     credentials: credentials, clock: clock.mediaClock, using: &random)
    }

    @Test mutating func theNodesAnswerToTheCheckConfirmsUDP() throws {
        let client = try client(.udpThenTCP)
        var buffer = [UInt8](repeating: 0, count: 2048)
        #expect(try client.receive(into: &buffer, timeoutMilliseconds: 0) == nil)  // sends the first check
        #expect(client.connectivityChecksSent == 1 && client.path == nil)
        // The node answers the check and hands nothing to its endpoint.
        #expect(try node.receive(into: &buffer, timeoutMilliseconds: 200) == nil)
        #expect(node.connectivityChecksAnswered == 1)
        #expect(try client.receive(into: &buffer, timeoutMilliseconds: 200) == nil)  // takes the answer
        #expect(client.path == .udp)
        clock.advance(milliseconds: 5_000)
        try client.send([0x80, 0x60, 0, 1], to: node.localEndpoint)
        #expect(client.path == .udp && client.switchedToTCPAfterMicroseconds == nil && client.connection == nil)
        #expect(try node.receive(into: &buffer, timeoutMilliseconds: 200)?.from == client.localEndpoint)
        #expect(!node.isReliableStream(to: client.localEndpoint) && !client.isReliableStream(to: node.localEndpoint))
    }

    @Test mutating func withoutAnAnswerTheClientMovesToTCPAtTheDeadline() throws {
        let client = try client(.udpThenTCP)
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<19 {
            try client.send([0x80, 0x60, 0, 2], to: node.localEndpoint)
            clock.advance(milliseconds: 100)
        }
        clock.advance(milliseconds: 99)
        _ = try client.receive(into: &buffer, timeoutMilliseconds: 0)
        #expect(client.path == nil && client.connectivityChecksSent == 20)  // one per 100 ms, never answered
        clock.advance(milliseconds: 1)
        _ = try client.receive(into: &buffer, timeoutMilliseconds: 0)
        #expect(client.path == .tcp && client.switchedToTCPAfterMicroseconds == 2_000_000)
        let sentOverUDP = client.udpDatagramsSent
        // From now on both ways go over the connection, and the node knows the client by it.
        try client.send([0x80, 0x60, 0, 3], to: node.localEndpoint)
        #expect(client.udpDatagramsSent == sentOverUDP)
        var fromClient: (count: Int, from: NetworkEndpoint)?
        for _ in 0..<40 where fromClient == nil || fromClient?.count != 4 {
            fromClient = try node.receive(into: &buffer, timeoutMilliseconds: 50)  // checks, then the TCP datagram
        }
        #expect(fromClient?.from == client.localEndpoint && buffer[3] == 3)
        #expect(node.isReliableStream(to: client.localEndpoint) && client.isReliableStream(to: node.localEndpoint))
        try node.send([0x80, 0x60, 0, 4], to: client.localEndpoint)
        let toClient = try client.receive(into: &buffer, timeoutMilliseconds: 500)
        #expect(toClient?.from == node.localEndpoint && toClient?.count == 4 && buffer[3] == 4)
        #expect(throws: NetworkError.self) { try client.send([1, 2, 3], to: .loopback(port: 9)) }
    }

    @Test mutating func tcpOnlyNeverSendsAUDPDatagram() throws {
        let client = try client(.tcpOnly)
        #expect(client.path == .tcp && client.connection != nil)
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<30 {
            try client.send([0x80, 0x60, 0, 5], to: node.localEndpoint)
            _ = try client.receive(into: &buffer, timeoutMilliseconds: 0)
            clock.advance(milliseconds: 100)
        }
        #expect(client.udpDatagramsSent == 0 && client.connectivityChecksSent == 1)  // the credentialed check on TCP
        #expect(client.localEndpoint == client.connection?.localEndpoint && client.switchedToTCPAfterMicroseconds == nil)
        var received = 0
        while let datagram = try node.receive(into: &buffer, timeoutMilliseconds: 100) {
            #expect(datagram.from == client.localEndpoint)
            received += 1
        }
        #expect(received == 30 && node.connectivityChecksAnswered == 0 && node.tcpCounters.verified == 1)
    }

    @Test mutating func udpOnlyNeverChecksNorSwitches() throws {
        let client = try client(.udpOnly)
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<50 {
            try client.send([0x80, 0x60, 0, 6], to: node.localEndpoint)
            _ = try client.receive(into: &buffer, timeoutMilliseconds: 0)
            clock.advance(milliseconds: 100)
        }
        #expect(client.path == .udp && client.connection == nil && client.connectivityChecksSent == 0)
        #expect(client.udpDatagramsSent == 50)
    }

    @Test func aCheckIsAnsweredOnlyWhenTheAnswerIsNoLonger() throws {
        var random = SplitMix64(seed: 7)
        let id = STUNTransactionID.random(using: &random)
        let source = NetworkEndpoint.loopback(port: 40_000)
        let request = STUNBindingCheck.request(transactionID: id)
        let answer = try #require(STUNBindingCheck.response(to: request[...], from: source))
        #expect(answer.count <= request.count)  // no amplification
        #expect(STUNBindingCheck.isSuccess(answer[...], answering: id))
        #expect(!STUNBindingCheck.isSuccess(answer[...], answering: STUNTransactionID.random(using: &random)))
        let parsed = try STUNMessage(parsing: answer)
        #expect(parsed.attributes == [.xorMappedAddress(.ipv4(try #require(source.ipv4), port: source.port))])
        // A bare 20-byte request would get a longer answer: refused. So are answers, garbage, RTP.
        let bare = try STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: id).serialized()
        #expect(STUNBindingCheck.response(to: bare[...], from: source) == nil)
        #expect(STUNBindingCheck.response(to: answer[...], from: source) == nil)
        #expect(STUNBindingCheck.response(to: [UInt8](repeating: 0, count: 64)[...], from: source) == nil)
        #expect(STUNBindingCheck.response(to: [0x80, 0x60, 0, 1][...], from: source) == nil)
        // The in-place pre-check lets real STUN through and stops the rest before any copy.
        #expect(request.withUnsafeBytes(STUNBindingCheck.mayBeSTUN) && answer.withUnsafeBytes(STUNBindingCheck.mayBeSTUN))
        #expect(!(request.dropLast(4) + [0, 0]).withUnsafeBytes(STUNBindingCheck.mayBeSTUN))  // length not the datagram's
        #expect(![UInt8](repeating: 0, count: 64).withUnsafeBytes(STUNBindingCheck.mayBeSTUN))  // no magic cookie
    }
}
