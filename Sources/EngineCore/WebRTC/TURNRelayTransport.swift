import Glibc
import RTPWire
import SessionCore

/// Datagrams to and from peers through one TURN allocation (RFC 8656): its local endpoint is the
/// relayed address peers send to; `send` wraps each datagram for the server (ChannelData on a
/// channel the server confirmed, §12.4; a Send indication before that, §11.2) and sends it over
/// `link`, the client's connection to the server (the UDP socket the allocation was made from, or
/// a TCP stream, RFC 8656 §3.1); what the server relays back (ChannelData, or Data indications,
/// §11.4) is unwrapped in place and named after the peer it came from. The allocation is kept
/// alive by `service(now:)` (Refresh, permission and channel renewals, retransmissions; its
/// `TURNClient`) and released (Refresh with lifetime 0) when the transport goes.
///
/// The send path allocates nothing per datagram once the channel is confirmed: ChannelData is
/// written into one reused buffer (4 bytes of header and a copy of the payload). The receive path
/// moves a ChannelData payload to the front of the caller's buffer (`memmove`, no allocation);
/// Data indications and the server's responses are parsed into messages (they are rare).
///
/// Not `Sendable`: confined with the ICE transport that owns it.
public final class TURNRelayTransport: DatagramTransport {
    public let client: TURNClient
    /// The TURN server, as `link` names it.
    public let server: NetworkEndpoint
    /// The connection to the server; with UDP the ICE transport's own socket.
    public let link: any DatagramTransport
    /// The relayed transport address (the relayed candidate's).
    public let relayedAddress: STUNAddress
    /// The relayed candidate's priority (RFC 8445 §5.1.2), for ICE's pairs.
    public let candidatePriority: UInt32
    private let clock: MediaClock
    private var outgoing: [UInt8] = []
    private var dueAt: Int64 = .min
    /// A newer allocation from the same link to the same server replaced this one (`retire`).
    public private(set) var isRetired = false

    /// What went through the relay, counted.
    public struct Counters: Sendable, Equatable {
        public var sent = 0
        public var received = 0
        /// From the server but neither data from a permitted peer nor a response we wait for
        /// (garbage, ChannelData on an unbound channel, a Data indication from a peer we did not permit).
        public var dropped = 0
    }
    public private(set) var counters = Counters()

    /// A transport over `client`'s allocation, which must be allocated (`TURNClient.State.allocated`).
    public init?(client: TURNClient, server: NetworkEndpoint, link: any DatagramTransport, candidatePriority: UInt32,
                 clock: MediaClock = .system) {
        guard let relayed = client.relayedAddress else { return nil }
        self.client = client
        self.server = server
        self.link = link
        relayedAddress = relayed
        self.candidatePriority = candidatePriority
        self.clock = clock
        // Room for the largest datagram plus a ChannelData header and padding: no growth later.
        outgoing.reserveCapacity(Int(UInt16.max) + 8)
    }

    deinit {
        guard !isRetired else { return }
        client.release(now: clock.monotonicMicroseconds())
        flush()
    }

    /// A newer allocation from the same link to the same server replaced this one (an ICE restart
    /// gathered again after our address changed): the server holds one allocation per 5-tuple
    /// (RFC 8656 §2.2), so what this one would send (data, refreshes, a release) would reach the
    /// newer one. From now on it sends nothing: `send` throws as a path that is down, timers stop.
    public func retire() { isRetired = true }

    public var localEndpoint: NetworkEndpoint {
        ICEDatagramTransport.endpoint(relayedAddress)
    }

    /// Over TCP to the server the first hop is reliable, but the relay to the peer is UDP (RFC 8656
    /// §3.1): datagrams can still be lost.
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { false }

    /// Whether the allocation still holds (not failed, not released).
    public var isAllocated: Bool { client.relayedAddress != nil }

    /// Lets `peer` send to us through the relay and binds it a channel (RFC 8656 §12.2; the
    /// binding installs the permission too). Until the server confirms, data goes as Send indications.
    public func permit(_ peer: NetworkEndpoint) {
        guard !isRetired else { return }
        let address = ICEDatagramTransport.stunAddress(peer)
        guard !client.hasChannel(to: address) else { return }
        client.bindChannel(to: address, now: clock.monotonicMicroseconds())
        flush()
        dueAt = client.nextDeadline ?? .max
    }

    /// Runs the allocation's timers when one is due (cheap otherwise: one comparison).
    public func service(now: Int64) {
        guard now >= dueAt, !isRetired else { return }
        client.poll(now: now)
        flush()
        dueAt = client.nextDeadline ?? .max
    }

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard !isRetired else { throw .unreachable(destination: destination.description, errno: ENETUNREACH) }
        outgoing.removeAll(keepingCapacity: true)
        do {
            try client.wrap(bytes, to: ICEDatagramTransport.stunAddress(destination), into: &outgoing)
        } catch {
            throw .socketFailed(operation: "TURN ChannelData of \(bytes.count) bytes", errno: EMSGSIZE)
        }
        try link.send(outgoing, to: server)
        counters.sent += 1
    }

    /// Reads from `link` (when the relay has the connection to itself, e.g. TCP): datagrams
    /// from the server unwrapped, anything else dropped.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        var timeout = timeoutMilliseconds
        while let received = try link.receive(into: buffer, timeoutMilliseconds: timeout) {
            timeout = 0
            guard received.from == server else {
                counters.dropped += 1
                continue
            }
            if let unwrapped = unwrap(buffer, count: received.count) { return unwrapped }
        }
        return nil
    }

    /// One datagram from the server, the first `count` bytes of `buffer`: relayed data (moved to
    /// the front of `buffer`; its length and the peer returned), or the server's own message
    /// (handled: nil).
    public func unwrap(_ buffer: UnsafeMutableRawBufferPointer, count: Int) -> (count: Int, from: NetworkEndpoint)? {
        guard count > 0, let base = buffer.baseAddress else { return nil }
        if (64...79).contains(buffer[0]) {  // RFC 7983 §7: ChannelData's first byte
            // RFC 8656 §12.4: channel, length, data (padding after it ignored).
            guard count >= TURNChannelData.headerLength,
                  case let length = Int(UInt16(buffer[2]) << 8 | UInt16(buffer[3])),
                  length <= count - TURNChannelData.headerLength,
                  let peer = client.peer(onChannel: UInt16(buffer[0]) << 8 | UInt16(buffer[1])) else {
                counters.dropped += 1
                return nil
            }
            memmove(base, base + TURNChannelData.headerLength, length)
            counters.received += 1
            return (length, ICEDatagramTransport.endpoint(peer))
        }
        let message = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        let ignoredBefore = client.ignoredDatagrams
        let now = clock.monotonicMicroseconds()
        let received = client.handle(message[...], now: now)
        flush()
        dueAt = client.nextDeadline ?? .max
        guard let received else {
            if client.ignoredDatagrams > ignoredBefore { counters.dropped += 1 }
            return nil
        }
        guard received.data.count <= count else {
            counters.dropped += 1
            return nil
        }
        received.data.withUnsafeBytes { data in
            if let source = data.baseAddress { memmove(base, source, data.count) }
        }
        counters.received += 1
        return (received.data.count, ICEDatagramTransport.endpoint(received.peer))
    }

    /// Sends what the client queued for the server (a lost request is retransmitted by it).
    private func flush() {
        for datagram in client.takeOutgoing() { try? link.send(datagram, to: server) }
    }
}
