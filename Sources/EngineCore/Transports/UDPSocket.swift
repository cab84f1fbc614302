import CShims
import Glibc
import RTPWire

/// A blocking UDP socket, closed in deinit: `AF_INET` bound to an IPv4 endpoint, `AF_INET6`
/// bound to an IPv6 one (`IPV6_V6ONLY` off: bound to `::`, `NetworkEndpoint.everyInterface`,
/// it sends to and receives from IPv4 and IPv6 peers alike, IPv4 ones named as IPv4 endpoints).
/// Sends and receives use caller-provided buffers: no allocation per packet.
/// Confined to one thread at a time (its counters are plain integers).
public final class UDPSocket: DatagramTransport {
    /// The socket (module-internal: `UDPAndTCPTransport` polls it with its TCP sockets).
    let descriptor: Int32
    /// `AF_INET` or `AF_INET6`: how destinations are written for `sendto`.
    let family: Int32
    /// The local endpoint the socket is bound to.
    public let localEndpoint: NetworkEndpoint
    /// Datagrams dropped because they were longer than the receive buffer given to `receive`
    /// (a bounded drop instead of silently truncated media).
    public private(set) var truncatedDatagrams = 0
    /// Datagrams received together and not handed out yet (made at the first receive).
    private var batch: DatagramBatch?
    private var receiveTimestamps = false
    /// When the datagram `receive` returned last reached the socket (CLOCK_REALTIME ns, the
    /// kernel's `SO_TIMESTAMPNS`); 0 unless `enableReceiveTimestamps()` was called.
    package private(set) var lastArrivalNanoseconds: Int64 = 0

    /// Binds to `endpoint` (port 0 picks a free port). `everyInterface` on a kernel without
    /// IPv6 (`socket(AF_INET6)` refused) binds 0.0.0.0 instead.
    public init(bindingTo endpoint: NetworkEndpoint = .loopback(port: 0)) throws(NetworkError) {
        var endpoint = endpoint
        var fd = SocketAddressCalls.socket(for: endpoint, type: Int32(SOCK_DGRAM.rawValue))
        if fd < 0, endpoint.isIPv6, endpoint.isUnspecified, errno == EAFNOSUPPORT {
            endpoint = NetworkEndpoint(address: 0, port: endpoint.port)
            fd = SocketAddressCalls.socket(for: endpoint, type: Int32(SOCK_DGRAM.rawValue))
        }
        guard fd >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        family = SocketAddressCalls.family(for: endpoint)
        guard SocketAddressCalls.bind(fd, to: endpoint) else {
            let code = errno
            close(fd)
            throw .socketFailed(operation: "bind \(endpoint)", errno: code)
        }
        descriptor = fd
        localEndpoint = try SocketAddressCalls.localEndpointClosingOnFailure(of: fd)
    }

    /// Binds a free port on the local address that routes to `destination` (`connect(2)` on a
    /// probe socket, `localAddress(toward:)`: 127.0.0.1 for a loopback destination); with no
    /// route (e.g. a broadcast address) any interface, and sending reports the error.
    public convenience init(sendingToward destination: NetworkEndpoint) throws(NetworkError) {
        let local = (try? Self.localAddress(toward: destination)) ?? .v4(IPv4Address(0))
        try self.init(bindingTo: NetworkEndpoint(ip: local, port: 0))
    }

    deinit { close(descriptor) }

    /// Sets the receive buffer size (`SO_RCVBUF`), useful for bursts on loopback.
    public func setReceiveBufferSize(_ bytes: Int) throws(NetworkError) {
        var value = Int32(clamping: bytes)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .socketFailed(operation: "setsockopt SO_RCVBUF", errno: errno)
        }
    }

    /// Sends one datagram (`sendto`).
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        var address = SocketAddress(destination, family: family)
        let sent = address.withPointer { sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, $1) }
        guard sent == bytes.count else { throw .unreachable(destination: destination.description, errno: errno) }
    }

    /// Receives one datagram into `buffer`, waiting at most `timeoutMilliseconds` (`poll`;
    /// negative waits forever). Returns nil on timeout.
    ///
    /// Datagrams are taken in batches (`recvmmsg`, `DatagramBatch`): when several wait, one call
    /// receives them all and the next calls hand them out without a system call. (A `buffer`
    /// larger than the batch's slots takes one datagram by `recvfrom` instead.)
    ///
    /// A datagram longer than `buffer` is never handed out cut short: its real length is
    /// reported (`MSG_TRUNC`, Linux `udp(7)`), the datagram is dropped, counted in
    /// `truncatedDatagrams`, and the next one is received at once; the wait for it uses what is
    /// left of `timeoutMilliseconds`, so a drop is never reported as a timeout while time remains.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)?
    {
        var timeout = timeoutMilliseconds
        // Only a finite wait needs its deadline (after a drop); poll itself costs far more.
        let deadline = timeout > 0 ? Self.monotonicMilliseconds() + Int64(timeout) : 0
        while true {
            if let batch, batch.hasPending {
                let datagram = batch.take(into: buffer)
                lastArrivalNanoseconds = datagram.stamp
                if datagram.fits { return (datagram.length, datagram.from) }
                truncatedDatagrams += 1
                continue
            }
            if buffer.count <= DatagramBatch.slotBytes {
                let batch = batch ?? DatagramBatch()
                self.batch = batch
                if try batch.refill(from: descriptor, stamped: receiveTimestamps) { continue }
                if timeout == 0 { return nil }
            }
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollDescriptor, 1, timeout)
            guard ready > 0 else {
                if ready < 0 && errno != EINTR { throw .socketFailed(operation: "poll", errno: errno) }
                return nil
            }
            if buffer.count <= DatagramBatch.slotBytes {  // the batch takes what is waiting
                if timeout > 0 { timeout = Int32(clamping: max(0, deadline - Self.monotonicMilliseconds())) }
                continue
            }
            var from = sockaddr_in6()
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            let count = withUnsafeMutablePointer(to: &from) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    recvfrom(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), $0, &length)
                }
            }
            guard count >= 0 else { throw .socketFailed(operation: "recvfrom", errno: errno) }
            lastArrivalNanoseconds = 0
            let source = withUnsafeBytes(of: &from) { SocketAddress.endpoint($0.baseAddress!) } ?? NetworkEndpoint(address: 0, port: 0)
            if count <= buffer.count { return (count, source) }
            // With MSG_TRUNC, `count` is the datagram's real length: it did not fit.
            truncatedDatagrams += 1
            if timeout > 0 { timeout = Int32(clamping: max(0, deadline - Self.monotonicMilliseconds())) }
        }
    }

    /// Whether datagrams of the last batch wait to be handed out (`receive` returns them without
    /// a system call; a `poll` of the socket would not see them).
    package var hasBatchedDatagrams: Bool { batch?.hasPending ?? false }

    /// Has the kernel stamp each datagram's arrival (`SO_TIMESTAMPNS`): `lastArrivalNanoseconds`
    /// then says when the datagram `receive` last returned reached the socket.
    package func enableReceiveTimestamps() throws(NetworkError) {
        guard cshim_enable_receive_timestamps(descriptor) == 0 else {
            throw .socketFailed(operation: "setsockopt SO_TIMESTAMPNS", errno: errno)
        }
        receiveTimestamps = true
    }

    /// `CLOCK_MONOTONIC` in milliseconds: only to keep a caller's receive timeout after a drop.
    private static func monotonicMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}

extension UDPSocket {
    /// The local address the kernel would send from towards `destination` (a UDP socket of its
    /// family `connect`ed there, then `getsockname`; nothing is sent): 127.0.0.1 for an IPv4
    /// loopback destination, the outgoing interface's address otherwise. Binding to it keeps a
    /// socket off the interfaces the peer cannot be on.
    public static func localAddress(toward destination: NetworkEndpoint) throws(NetworkError) -> IPAddress {
        if !destination.isIPv6, destination.isLoopback { return .v4(IPv4Address(0x7F00_0001)) }
        let fd = SocketAddressCalls.socket(for: destination, type: Int32(SOCK_DGRAM.rawValue))
        guard fd >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        defer { close(fd) }
        guard SocketAddressCalls.connect(fd, to: destination) == 0 else {
            throw .unreachable(destination: destination.description, errno: errno)
        }
        return try SocketAddressCalls.localEndpoint(of: fd).ip
    }

    /// Drains a socket: calls `receiveOne(timeout)` — waiting at most `timeoutMilliseconds` the
    /// first time and not at all afterwards — until it reports nothing more (false) or `limit`
    /// datagrams were handled, so one busy socket cannot starve the caller. Returns how many.
    public static func drain(timeoutMilliseconds: Int32, limit: Int = 1024,
                             _ receiveOne: (Int32) throws(NetworkError) -> Bool) throws(NetworkError) -> Int {
        var handled = 0
        var timeout = timeoutMilliseconds
        while handled < limit, try receiveOne(timeout) {
            handled += 1
            timeout = 0
        }
        return handled
    }
}
