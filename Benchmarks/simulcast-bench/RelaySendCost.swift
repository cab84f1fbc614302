import AllocationCounter
import CommandLineSupport
import EngineCore
import MediaCodecs
import RTPWire
import SessionCore

/// `simulcast-bench relay`: what sending media through a TURN relay (RFC 8656 ChannelData on a
/// confirmed channel, `TURNRelayTransport`) costs per packet next to sending it directly
/// (`UDPSocket.send`), both to a socket on loopback, in thread CPU time and heap allocations; and the
/// receive side's unwrapping (the ChannelData payload moved to the front of the buffer). The
/// allocation is made for real: this process answers the client's Allocate and ChannelBind as a
/// TURN server would (401 with a nonce, then signed successes), over a loopback socket.
enum RelaySendCost {
    static let usage = """
    usage: simulcast-bench relay [--packets N] [--size BYTES]
      CPU ns and heap allocations per packet: UDPSocket.send directly, TURNRelayTransport.send
      (ChannelData through the relay's socket), the ChannelData wrap alone, and unwrapping on receive.
      --packets N   packets per measurement (default 200000)
      --size BYTES  datagram size (default 1200)
    """

    static func run(_ arguments: ArraySlice<String>) throws {
        let options = try CommandLineArguments(arguments, valueOptions: ["packets", "size"])
        let packets = try options.int("packets", default: 200_000, range: 1_000...10_000_000)
        let size = try options.int("size", default: 1_200, range: 20...1_400)
        let server = try UDPSocket(bindingTo: .loopback(port: 0))
        let relaySocket = try UDPSocket(bindingTo: .loopback(port: 0))
        let directSocket = try UDPSocket(bindingTo: .loopback(port: 0))
        let peer = NetworkEndpoint.loopback(port: 9)
        let (relay, client) = try allocate(from: relaySocket, server: server, peer: peer)
        let payload = [UInt8](repeating: 0x80, count: size)

        func measure(_ body: () throws -> Void) rethrows -> (nanoseconds: Double, allocations: Double) {
            for _ in 0..<1_000 { try body() }  // warm up
            alloc_counter_reset()
            let start = ThreadCPUClock.nanoseconds()
            for _ in 0..<packets { try body() }
            let elapsed = ThreadCPUClock.nanoseconds() - start
            return (Double(elapsed) / Double(packets), Double(alloc_counter_get()) / Double(packets))
        }
        let direct = try payload.withUnsafeBytes { bytes in try measure { try directSocket.send(bytes, to: server.localEndpoint) } }
        let relayed = try payload.withUnsafeBytes { bytes in try measure { try relay.send(bytes, to: peer) } }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(size + 8)
        let peerAddress = STUNAddress.ipv4(peer.ipv4 ?? 0, port: peer.port)
        let wrap = try payload.withUnsafeBytes { bytes in
            try measure {
                scratch.removeAll(keepingCapacity: true)
                try client.wrap(bytes, to: peerAddress, into: &scratch)
            }
        }
        guard scratch.count == size + 4, scratch[0] & 0xF0 == 0x40 else { throw ValidationError(message: "the channel is not confirmed") }
        // Each round puts the 4-byte header back (unwrapping moved the payload over it; the payload
        // bytes are all alike, so the datagram is whole again).
        var received = scratch + [0, 0, 0, 0]
        let (header, count) = (Array(scratch.prefix(4)), scratch.count)
        let unwrap = measure {
            _ = received.withUnsafeMutableBytes { buffer in
                for index in 0..<4 { buffer[index] = header[index] }
                return relay.unwrap(buffer, count: count)
            }
        }
        print("Per \(size)-byte datagram, \(packets) packets each, thread CPU time and heap allocations:")
        print("  UDPSocket.send (direct):                \(MarkdownTable.fmt(direct.nanoseconds, 0)) ns, \(MarkdownTable.fmt(direct.allocations, 2)) allocations")
        print("  TURNRelayTransport.send (ChannelData):  \(MarkdownTable.fmt(relayed.nanoseconds, 0)) ns, \(MarkdownTable.fmt(relayed.allocations, 2)) allocations")
        print("  of which the ChannelData wrap:          \(MarkdownTable.fmt(wrap.nanoseconds, 0)) ns, \(MarkdownTable.fmt(wrap.allocations, 2)) allocations")
        print("  TURNRelayTransport.unwrap (receive):    \(MarkdownTable.fmt(unwrap.nanoseconds, 0)) ns, \(MarkdownTable.fmt(unwrap.allocations, 2)) allocations")
        print("  relay over direct: +\(MarkdownTable.fmt(relayed.nanoseconds - direct.nanoseconds, 0)) ns "
              + "(\(MarkdownTable.fmt(100 * (relayed.nanoseconds / direct.nanoseconds - 1), 1)) %), +4 bytes on the wire")
    }

    /// An allocation with a confirmed channel to `peer`, this process answering as the TURN server.
    static func allocate(from socket: UDPSocket, server: UDPSocket, peer: NetworkEndpoint) throws -> (TURNRelayTransport, TURNClient) {
        let realm = "bench.test", username = "bench", password = "bench"
        let key = MD5.longTermKey(username: username, realm: realm, password: password)
        let client = TURNClient(configuration: .init(username: username, password: password), seed: 1)
        var buffer = [UInt8](repeating: 0, count: 2_048)
        func answer(_ request: [UInt8], _ messageClass: STUNClass, _ attributes: [STUNAttribute], signed: Bool) throws -> [UInt8] {
            let message = try STUNMessage(parsing: request[...])
            return try STUNMessage(type: STUNMessageType(method: message.type.method, messageClass: messageClass),
                                   transactionID: message.transactionID, attributes: attributes)
                .serialized(integrityKey: signed ? key : nil, fingerprint: false)
        }
        client.start(now: 0)
        guard let first = client.takeOutgoing().first else { throw ValidationError(message: "no Allocate") }
        _ = client.handle(try answer(first, .errorResponse, [.errorCode(code: 401, reason: "Unauthorized"), .realm(realm), .nonce("n")],
                                     signed: false)[...], now: 1)
        guard let second = client.takeOutgoing().first else { throw ValidationError(message: "no authenticated Allocate") }
        let relayed = STUNAddress.ipv4(0x7F00_0001, port: 50_000)
        _ = client.handle(try answer(second, .successResponse, [.xorRelayedAddress(relayed), .lifetime(600)], signed: true)[...], now: 2)
        guard let relay = TURNRelayTransport(client: client, server: server.localEndpoint, link: socket, candidatePriority: 16_777_215) else {
            throw ValidationError(message: "the allocation did not succeed")
        }
        relay.permit(peer)  // the ChannelBind goes to `server`
        guard let bind = try server.receive(into: &buffer, timeoutMilliseconds: 1_000) else { throw ValidationError(message: "no ChannelBind") }
        var response = try answer(Array(buffer[0..<bind.count]), .successResponse, [], signed: true)
        let handled = response.withUnsafeMutableBytes { relay.unwrap($0, count: $0.count) }
        guard handled == nil else { throw ValidationError(message: "the ChannelBind response was taken for data") }
        return (relay, client)
    }
}
