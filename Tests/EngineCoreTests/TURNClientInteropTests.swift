import Foundation
import Glibc
import InteropTestSupport
import RTPWire
import SessionCore
import Testing
@testable import EngineCore

/// `TURNClient` against a real TURN server: Debian's coturn on scripts/netns-run.sh's peer host,
/// listening and relaying on the veth's far end (10.99.0.2), while the client and the peer sit on
/// the client host at the near end (10.99.0.1). The client allocates with long-term credentials, sends
/// to the peer through the relay as Send indications and then on a channel, and gets the peer's
/// answers back as Data indications and ChannelData; a wrong password is a typed failure.
@Suite(.serialized) struct TURNClientInteropTests {
    static let serverAddress: UInt32 = 0x0A63_0002  // 10.99.0.2
    static let clientAddress: UInt32 = 0x0A63_0001  // 10.99.0.1

    /// A UDP socket on 10.99.0.1 talking to the server through `client`.
    struct Session {
        let socket: UDPSocket
        let client: TURNClient
        let server: NetworkEndpoint
        var buffer = [UInt8](repeating: 0, count: 2_048)

        /// Flushes what the client queued, reads for up to `milliseconds`, hands every datagram
        /// to the client and returns the data it yields.
        mutating func exchange(milliseconds: Int, until done: (TURNClient) -> Bool = { _ in false }) throws -> [TURNClient.Received] {
            var received: [TURNClient.Received] = []
            let deadline = Date().addingTimeInterval(Double(milliseconds) / 1_000)
            repeat {
                let now = monotonicMicroseconds()
                client.poll(now: now)
                for datagram in client.takeOutgoing() { try socket.send(datagram, to: server) }
                if let got = try socket.receive(into: &buffer, timeoutMilliseconds: 20), got.from == server,
                   let data = client.handle(buffer[0..<got.count], now: monotonicMicroseconds()) {
                    received.append(TURNClient.Received(peer: data.peer, data: ArraySlice(Array(data.data))))
                }
            } while Date() < deadline && !done(client)
            return received
        }
    }

    static func allocatedState(_ client: TURNClient) -> Bool {
        if case .allocated = client.state { true } else if case .failed = client.state { true } else { false }
    }

    @Test func anAllocationRelaysBothWaysAsIndicationsThenOnAChannel() throws {
        try PrivateNamespace.require(for: "TURNClientInteropTests")
        let coturn = try Coturn(port: 34_780)
        defer { coturn.stop() }
        let server = NetworkEndpoint(address: Self.serverAddress, port: coturn.port)
        var session = Session(socket: try UDPSocket(bindingTo: NetworkEndpoint(address: Self.clientAddress, port: 0)),
                              client: TURNClient(configuration: .init(username: "alice", password: "secret"), seed: 5), server: server)
        // coturn takes a moment to listen: the client's retransmissions cover it.
        session.client.start(now: monotonicMicroseconds())
        _ = try session.exchange(milliseconds: 8_000, until: Self.allocatedState)
        guard case let .allocated(relayed, mapped, _) = session.client.state else {
            Issue.record("no allocation: \(session.client.state)")
            return
        }
        print("coturn: relayed \(relayed), mapped \(String(describing: mapped))")
        #expect(relayed.ip == .v4(Self.serverAddress) && (51_000...51_100).contains(relayed.port))
        #expect(mapped == .ipv4(Self.clientAddress, port: session.socket.localEndpoint.port))

        let peer = try UDPSocket(bindingTo: NetworkEndpoint(address: Self.clientAddress, port: 0))
        let peerAddress = STUNAddress.ipv4(Self.clientAddress, port: peer.localEndpoint.port)
        let relayEndpoint = NetworkEndpoint(address: Self.serverAddress, port: relayed.port)
        session.client.permit(peerAddress, now: monotonicMicroseconds())
        _ = try session.exchange(milliseconds: 300)

        // Client → peer as a Send indication; peer → client as a Data indication.
        var wire: [UInt8] = []
        try Self.wrap(session.client, Array("hello".utf8), to: peerAddress, into: &wire)
        try session.socket.send(wire, to: server)
        var peerBuffer = [UInt8](repeating: 0, count: 2_048)
        let first = try #require(try peer.receive(into: &peerBuffer, timeoutMilliseconds: 2_000))
        #expect(Array(peerBuffer[0..<first.count]) == Array("hello".utf8) && first.from == relayEndpoint)
        try peer.send(Array("world".utf8), to: relayEndpoint)
        let back = try session.exchange(milliseconds: 1_000) { _ in false }
        #expect(back.map { Array($0.data) } == [Array("world".utf8)] && back.first?.peer == peerAddress)

        // On a channel: ChannelData both ways.
        _ = session.client.bindChannel(to: peerAddress, now: monotonicMicroseconds())
        _ = try session.exchange(milliseconds: 300)
        wire = []
        try Self.wrap(session.client, Array("on channel".utf8), to: peerAddress, into: &wire)
        #expect(TURNChannelData.isChannelData(wire[...]))
        try session.socket.send(wire, to: server)
        let second = try #require(try peer.receive(into: &peerBuffer, timeoutMilliseconds: 2_000))
        #expect(Array(peerBuffer[0..<second.count]) == Array("on channel".utf8))
        try peer.send(Array("channel back".utf8), to: relayEndpoint)
        let channelBack = try session.exchange(milliseconds: 1_000)
        #expect(channelBack.map { Array($0.data) } == [Array("channel back".utf8)])

        session.client.release(now: monotonicMicroseconds())
        _ = try session.exchange(milliseconds: 200)
        #expect(session.client.state == .released)

        // A wrong password: coturn's 401 to our signed Allocate is a typed failure.
        var wrong = Session(socket: try UDPSocket(bindingTo: NetworkEndpoint(address: Self.clientAddress, port: 0)),
                            client: TURNClient(configuration: .init(username: "alice", password: "guess"), seed: 6), server: server)
        wrong.client.start(now: monotonicMicroseconds())
        _ = try wrong.exchange(milliseconds: 5_000, until: Self.allocatedState)
        guard case .failed(.wrongCredentials) = wrong.client.state else {
            Issue.record("a wrong password ended as \(wrong.client.state)")
            return
        }
    }

    static func wrap(_ client: TURNClient, _ data: [UInt8], to peer: STUNAddress, into wire: inout [UInt8]) throws {
        try data.withUnsafeBytes { raw in
            do throws(WireError) { try client.wrap(raw, to: peer, into: &wire) } catch { throw error }
        }
    }
}
