import Glibc
import Testing
@testable import EngineCore

/// Datagrams over real TCP on loopback (RFC 4571 framing): every datagram arrives whole and in
/// order; a reader that stops for a while makes the sender drop and count, never queue without
/// bound, and the connection carries on when it reads again.
@Suite struct TCPFramedConnectionTests {
    static func pair(sendQueueLimit: Int = 256 * 1024) throws -> (client: TCPFramedConnection, server: TCPFramedConnection) {
        let listener = try TCPFramedListener(sendQueueLimit: sendQueueLimit)
        let client = try TCPFramedConnection.connect(to: listener.localEndpoint, sendQueueLimit: sendQueueLimit)
        let server = try #require(try listener.accept(timeoutMilliseconds: 2_000))
        return (client, server)
    }

    @Test func everyDatagramArrivesWholeAndInOrderBothWays() throws {
        let (client, server) = try Self.pair()
        #expect(server.peer == client.localEndpoint && client.peer == server.localEndpoint)
        var generator = SystemRandomNumberGenerator()
        let datagrams = (0..<2_000).map { index in
            (0..<Int.random(in: 1...1200, using: &generator)).map { UInt8(truncatingIfNeeded: $0 * 7 + index) }
        }
        var received: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 1500)
        for datagram in datagrams {
            try client.send(datagram, to: client.peer)
            while let got = try server.receive(into: &buffer, timeoutMilliseconds: 0) { received.append(Array(buffer[0..<got.count])) }
        }
        while received.count < datagrams.count, let got = try server.receive(into: &buffer, timeoutMilliseconds: 1_000) {
            received.append(Array(buffer[0..<got.count]))
            try? client.flush()
        }
        #expect(received == datagrams)
        #expect(client.droppedForBackPressure == 0 && client.datagramsSent == 2_000 && server.datagramsReceived == 2_000)
        // And back.
        try server.send([1, 2, 3], to: server.peer)
        let back = try #require(try client.receive(into: &buffer, timeoutMilliseconds: 1_000))
        #expect(Array(buffer[0..<back.count]) == [1, 2, 3] && back.from == server.localEndpoint)
        // Only the peer can be sent to.
        #expect(throws: NetworkError.self) { try client.send([1], to: .loopback(port: 9)) }
    }

    @Test func aReaderThatStopsForThreeSecondsBoundsTheSenderAndTheConnectionRecovers() throws {
        let limit = 64 * 1024
        let (client, server) = try Self.pair(sendQueueLimit: limit)
        let datagram = [UInt8](repeating: 0xAB, count: 1_200)
        // 3 s of 2.5 Mbps video (about 260 datagrams a second) while the server reads nothing.
        var maximumQueued = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(3) {
            for _ in 0..<26 { try client.send(datagram, to: client.peer) }
            maximumQueued = max(maximumQueued, client.queuedBytes)
            usleep(100_000)
        }
        print("stalled reader: \(client.datagramsSent) datagrams queued or written, \(client.droppedForBackPressure) dropped, "
              + "send queue at most \(maximumQueued) bytes (limit \(limit))")
        #expect(maximumQueued <= limit)
        #expect(client.droppedForBackPressure > 0)
        // The reader comes back: what was written arrives whole, then new datagrams flow again.
        var buffer = [UInt8](repeating: 0, count: 1500)
        var drained = 0
        while let got = try server.receive(into: &buffer, timeoutMilliseconds: 200) {
            #expect(got.count == 1_200)
            drained += 1
            try? client.flush()
        }
        #expect(drained == client.datagramsSent)
        try client.send([9, 9], to: client.peer)
        let next = try #require(try server.receive(into: &buffer, timeoutMilliseconds: 1_000))
        #expect(Array(buffer[0..<next.count]) == [9, 9])
    }

    @Test func aPeerThatClosesOrBreaksTheFramingEndsTheConnectionWithATypedError() throws {
        var buffer = [UInt8](repeating: 0, count: 1500)
        // The peer goes away: the next receive says so.
        var (client, server): (TCPFramedConnection, TCPFramedConnection?) = try Self.pair()
        server = nil
        _ = server
        #expect(throws: NetworkError.self) { _ = try client.receive(into: &buffer, timeoutMilliseconds: 1_000) }
        #expect(client.isClosed)
        #expect(throws: NetworkError.self) { try client.send([1], to: client.peer) }

        // A stream that is not RFC 4571 (a length of 65,535 for 1,500-byte packets).
        let listener = try TCPFramedListener()
        let raw = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(raw) }
        let connected = SocketAddressCalls.connect(raw, to: listener.localEndpoint)
        try #require(connected == 0)
        let accepted = try #require(try listener.accept(timeoutMilliseconds: 1_000))
        let garbage: [UInt8] = [0xFF, 0xFF, 1, 2, 3]
        _ = garbage.withUnsafeBytes { send(raw, $0.baseAddress, $0.count, 0) }
        #expect(throws: NetworkError.self) { _ = try accepted.receive(into: &buffer, timeoutMilliseconds: 1_000) }
        #expect(accepted.isClosed)

        // Nobody listening: a typed error, not a hang.
        client = try Self.pair().client
        #expect(throws: NetworkError.self) { try TCPFramedConnection.connect(to: .loopback(port: 1), timeoutMilliseconds: 500) }
    }
}
