import Foundation
import Glibc
import RTPWire
import SessionCore
import Testing
@testable import EngineCore

/// IPv6 endpoints (issue 29): text forms (RFC 4291 §2.2 in, RFC 5952 out, `[…]:port` as RFC 3986
/// §3.2.2), `AF_INET6` sockets on `::1`, and the dual-stack socket bound to `::` that ICE uses
/// for "every interface": IPv4 peers are seen and answered as IPv4 endpoints.
@Suite struct IPv6EndpointTests {
    @Test(arguments: [
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("2001:0db8::0001", "2001:db8::1"), ("::", "::"), ("::1", "::1"),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"), ("fd00:99::2", "fd00:99::2"), ("FE80::A", "fe80::a"),
        ("2001:db8::", "2001:db8::"), ("1:0:0:2:0:0:0:3", "1:0:0:2::3"), ("::ffff:192.0.2.1", "::ffff:c000:201"),
    ])
    func parsesAndPrintsRFC5952(text: String, printed: String) throws {
        let address = try #require(IPv6Address(text))
        #expect(address.description == printed)
        #expect(IPv6Address(printed) == address)
    }

    @Test(arguments: ["", ":", "1:::2", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", ":1::2", "1::2:", "g::1",
                      "::1.2.3", "::1.2.3.256", "1.2.3.4"])
    func rejectsMalformedIPv6(text: String) {
        #expect(IPv6Address(text) == nil)
    }

    @Test func mappedIPv4AndBytes() throws {
        let mapped = try #require(IPv6Address("::ffff:10.99.0.1"))
        #expect(mapped.mappedIPv4 == 0x0A63_0001)
        #expect(IPv6Address("fd00:99::1")?.mappedIPv4 == nil)
        let address = try #require(IPv6Address("2001:db8:1234:5678:11:2233:4455:6677"))
        #expect(IPv6Address(bytes: address.bytes) == address)
        #expect(address.bytes.prefix(4) == [0x20, 0x01, 0x0D, 0xB8])
    }

    @Test func endpointsParseAndPrintWithBrackets() throws {
        let endpoint = try NetworkEndpoint(parsing: "[2001:db8::1]:5004")
        #expect(endpoint.isIPv6 && endpoint.port == 5004 && endpoint.ipv4 == nil)
        #expect(endpoint.description == "[2001:db8::1]:5004")
        #expect(endpoint.addressText == "2001:db8::1")
        #expect(endpoint.on(.tcp).description == "[2001:db8::1]:5004/tcp")
        #expect(try NetworkEndpoint.parseList("[::1]:5004,5006").map(\.description) == ["[::1]:5004", "[::1]:5006"])
        #expect(NetworkEndpoint.ipAddress("[fd00:99::2]") == NetworkEndpoint.ipAddress("fd00:99::2"))
        #expect(NetworkEndpoint.ipAddress("10.99.0.1") == .v4(IPv4Address(0x0A63_0001)))
        #expect(NetworkEndpoint.ipAddress("host.local") == nil)
        #expect(NetworkEndpoint.everyInterface(port: 9).isUnspecified && NetworkEndpoint(address: 0, port: 9).isUnspecified)
        #expect(try NetworkEndpoint(parsing: "[::1]:9").isLoopback)
    }

    @Test(arguments: ["2001:db8::1:5004", "[2001:db8::1:5004", "[]:5004", "[zz::1]:5004", "[::1]:", "[10.0.0.1]:5"])
    func rejectsMalformedIPv6Endpoints(text: String) {
        #expect(throws: NetworkError.self) { try NetworkEndpoint.parseList(text) }
    }

    @Test func datagramsCrossIPv6Loopback() throws {
        let loopback = try NetworkEndpoint(parsing: "[::1]:9").at(port: 0)
        let receiver = try UDPSocket(bindingTo: loopback)
        let sender = try UDPSocket(bindingTo: loopback)
        #expect(receiver.localEndpoint.isIPv6 && receiver.localEndpoint.port != 0)
        var buffer = [UInt8](repeating: 0, count: 1500)
        for round in 0..<3 {  // the batch (recvmmsg) path, several datagrams waiting
            try sender.send([UInt8(round)], to: receiver.localEndpoint)
        }
        for round in 0..<3 {
            let received = try #require(try receiver.receive(into: &buffer, timeoutMilliseconds: 1000))
            #expect(received.from == sender.localEndpoint)
            #expect(received.count == 1 && buffer[0] == UInt8(round))
        }
        // A buffer larger than a batch slot takes the recvfrom path.
        var large = [UInt8](repeating: 0, count: 4096)
        try sender.send([7, 7], to: receiver.localEndpoint)
        let single = try #require(try receiver.receive(into: &large, timeoutMilliseconds: 1000))
        #expect(single.from == sender.localEndpoint && single.count == 2)
        #expect(try UDPSocket.localAddress(toward: receiver.localEndpoint) == receiver.localEndpoint.ip)
    }

    @Test func aSocketOnEveryInterfaceTalksToIPv4AndIPv6Peers() throws {
        let dual = try UDPSocket(bindingTo: .everyInterface(port: 0))
        #expect(dual.localEndpoint.isIPv6 && dual.localEndpoint.isUnspecified)
        let v4 = try UDPSocket(bindingTo: .loopback(port: 0))
        let v6 = try UDPSocket(bindingTo: try NetworkEndpoint(parsing: "[::1]:9").at(port: 0))
        var buffer = [UInt8](repeating: 0, count: 1500)
        try v4.send([4], to: .loopback(port: dual.localEndpoint.port))
        let fromV4 = try #require(try dual.receive(into: &buffer, timeoutMilliseconds: 1000))
        #expect(fromV4.from == v4.localEndpoint)  // 127.0.0.1, not ::ffff:127.0.0.1
        try dual.send([5], to: fromV4.from)
        let answer = try #require(try v4.receive(into: &buffer, timeoutMilliseconds: 1000))
        #expect(answer.from == .loopback(port: dual.localEndpoint.port) && buffer[0] == 5)

        try v6.send([6], to: try NetworkEndpoint(parsing: "[::1]:\(dual.localEndpoint.port)"))
        let fromV6 = try #require(try dual.receive(into: &buffer, timeoutMilliseconds: 1000))
        #expect(fromV6.from == v6.localEndpoint && buffer[0] == 6)
        // ICE sees two host bases, one per family (RFC 8445 §6.1.2.2 pairs within a family).
        #expect(ICEDatagramTransport.hostBases(of: dual.localEndpoint).map(\.ip) == [.v4(0), .v6(IPv6Address(high: 0, low: 0))])
        #expect(ICEDatagramTransport.hostBase(of: dual.localEndpoint, receivingFrom: v4.localEndpoint).ip == .v4(0))
    }

    @Test func tcpConnectsOverIPv6() throws {
        let listener = try TCPFramedListener(bindingTo: try NetworkEndpoint(parsing: "[::1]:9").at(port: 0))
        let client = try TCPFramedConnection.connect(to: listener.localEndpoint)
        let accepted = try #require(try listener.accept(timeoutMilliseconds: 1_000))
        #expect(client.peer == listener.localEndpoint && accepted.peer.isIPv6)
        try client.send([1, 2, 3], to: client.peer)
        var buffer = [UInt8](repeating: 0, count: 1500)
        let received = try #require(try accepted.receive(into: &buffer, timeoutMilliseconds: 1_000))
        #expect(received.count == 3)
    }

    @Test func aBindingAnswerCarriesAnIPv6XorMappedAddress() throws {
        var random = SplitMix64(seed: 9)
        let id = STUNTransactionID.random(using: &random)
        let source = try NetworkEndpoint(parsing: "[fd00:99::1]:40000")
        let answer = try #require(STUNBindingCheck.response(to: STUNBindingCheck.request(transactionID: id)[...], from: source))
        let parsed = try STUNMessage(parsing: answer)
        #expect(parsed.attributes == [.xorMappedAddress(STUNAddress(ip: .v6(try #require(IPv6Address("fd00:99::1"))), port: 40000))])
        #expect(ICEDatagramTransport.endpoint(ICEDatagramTransport.stunAddress(source)) == source)
    }

    @Test func anIPv6CandidateMakesTheConnectionLineIPv6() throws {
        let v6 = ICECandidate(foundation: "1", priority: 1, address: "fd00:99::1", port: 9, kind: .host)
        let v4 = ICECandidate(foundation: "2", priority: 1, address: "10.99.0.1", port: 9, kind: .host)
        #expect(ICECandidate.placeholderConnection(for: [v6, v4]) == "IN IP6 ::")
        #expect(ICECandidate.placeholderConnection(for: [v4, v6]) == "IN IP4 0.0.0.0")
        #expect(ICECandidate.placeholderConnection(for: []) == "IN IP4 0.0.0.0")
    }
}
