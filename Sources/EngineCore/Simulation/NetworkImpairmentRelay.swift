import SessionCore
/// A loopback UDP relay that puts a `NetworkImpairment` on each direction of a path between a
/// sender (e.g. a `Publisher`'s socket) and a receiver (e.g. a `Subscriber`'s socket):
///
///     sender ──► senderFacing ──[forward impairment]──► receiverFacing ──► receiver
///     sender ◄── senderFacing ◄──[backward impairment]── receiverFacing ◄── receiver (RTCP)
///
/// The sender sends to `senderFacingEndpoint`; the receiver sees every datagram come from
/// `receiverFacingEndpoint`, so its RTCP (sent back to where media comes from, RFC 5761) returns
/// through the backward impairment to the sender's address, learned from the first datagram the
/// sender sent (or set explicitly).
///
/// Driven in the caller's loop: `service()` reads whatever both sockets have (never blocking),
/// offers it to the impairment at the injected clock's time and sends what is due. Send failures
/// are counted, never thrown, so a closed far end does not stop the loop. Not `Sendable`: it owns
/// sockets; confine it to one thread or task.
public final class NetworkImpairmentRelay {
    /// The socket the sender sends to (and RTCP for the sender leaves from).
    public let senderFacing: UDPSocket
    /// The socket media leaves from towards the receiver (and the receiver's RTCP arrives on).
    public let receiverFacing: UDPSocket
    /// Sender → receiver.
    public var forward: NetworkImpairment
    /// Receiver → sender.
    public var backward: NetworkImpairment
    /// Where forwarded datagrams go.
    public var receiverEndpoint: NetworkEndpoint
    /// Where backward datagrams go: learned from the first datagram on `senderFacing` unless set.
    public var senderEndpoint: NetworkEndpoint?
    /// Datagrams that could not be sent (far end gone), or arrived for a sender not yet known.
    public private(set) var sendFailures = 0
    public private(set) var undeliverable = 0

    private let clock: MediaClock
    private var buffer = [UInt8](repeating: 0, count: 2048)

    /// Binds two sockets on 127.0.0.1. `clock` is microseconds on the monotonic clock the
    /// impairment delays are measured with (inject the test's clock).
    public init(receiver: NetworkEndpoint, forward: NetworkImpairment.Configuration,
                backward: NetworkImpairment.Configuration, clock: MediaClock = .system)
        throws(NetworkError)
    {
        senderFacing = try UDPSocket()
        receiverFacing = try UDPSocket()
        try senderFacing.setReceiveBufferSize(1 << 20)
        try receiverFacing.setReceiveBufferSize(1 << 20)
        receiverEndpoint = receiver
        self.forward = NetworkImpairment(configuration: forward)
        self.backward = NetworkImpairment(configuration: backward)
        self.clock = clock
    }

    /// The same impairment both ways (the backward one with a derived seed, so the two
    /// directions do not drop in lockstep).
    public convenience init(receiver: NetworkEndpoint, symmetric configuration: NetworkImpairment.Configuration,
                            clock: MediaClock = .system) throws(NetworkError) {
        var backward = configuration
        backward.seed = configuration.seed ^ 0x5851_F42D_4C95_7F2D
        try self.init(receiver: receiver, forward: configuration, backward: backward, clock: clock)
    }

    /// Where the sender should send.
    public var senderFacingEndpoint: NetworkEndpoint { senderFacing.localEndpoint }
    /// Where the receiver sees datagrams come from (and sends its RTCP to).
    public var receiverFacingEndpoint: NetworkEndpoint { receiverFacing.localEndpoint }

    /// Reads every datagram waiting on both sockets (at most 1024 per socket), then sends
    /// everything due. Returns how many datagrams were sent on.
    @discardableResult
    public func service() throws(NetworkError) -> Int {
        let now = clock.monotonicMicroseconds()
        for _ in 0..<1024 {
            guard let received = try receive(on: senderFacing) else { break }
            if senderEndpoint == nil { senderEndpoint = received.from }
            forward.offer(buffer[0..<received.count], nowMicroseconds: now)
        }
        for _ in 0..<1024 {
            guard let received = try receive(on: receiverFacing) else { break }
            backward.offer(buffer[0..<received.count], nowMicroseconds: now)
        }
        return releaseDue(now: now)
    }

    /// Sends what is due at the clock's current time without reading.
    @discardableResult
    public func releaseDue() -> Int { releaseDue(now: clock.monotonicMicroseconds()) }

    /// The earliest time something queued is due, either way.
    public var nextDueMicroseconds: Int64? {
        switch (forward.nextDueMicroseconds, backward.nextDueMicroseconds) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b?): return b
        case (nil, nil): return nil
        }
    }

    private func releaseDue(now: Int64) -> Int {
        let receiver = receiverEndpoint
        let towardsReceiver = receiverFacing, towardsSender = senderFacing
        var failures = 0, undeliverable = 0
        var sent = forward.releaseDue(nowMicroseconds: now) { datagram in
            do { try towardsReceiver.send(datagram, to: receiver) } catch { failures += 1 }
        }
        let sender = senderEndpoint
        sent += backward.releaseDue(nowMicroseconds: now) { datagram in
            guard let sender else {
                undeliverable += 1
                return
            }
            do { try towardsSender.send(datagram, to: sender) } catch { failures += 1 }
        }
        sendFailures += failures
        self.undeliverable += undeliverable
        return sent - failures - undeliverable
    }

    private func receive(on socket: UDPSocket) throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        try socket.receive(into: &buffer, timeoutMilliseconds: 0)
    }
}
