import Glibc
import RTPWire

/// A server's transport that takes peers over UDP and over TCP (RFC 4571 framing) at once, so
/// one forwarding node serves subscribers and publishers whichever way they reach it (issue 18:
/// where UDP is blocked, TCP still works; one room mixes both). Each TCP peer is known by the
/// address its connection comes from, exactly as a UDP peer is known by its source address, so
/// the node's bookkeeping does not change: `send(to:)` goes down that peer's connection if it
/// has one, else over UDP. Connections are accepted as they come; one that breaks is dropped
/// (its peer reconnects). UDP STUN Binding requests are answered here (`STUNBindingCheck`): a
/// client's check that UDP gets through, never handed to the node. Confined to one thread.
public final class UDPAndTCPTransport: DatagramTransport {
    public let udp: UDPSocket
    public let listener: TCPFramedListener
    private var connections: [NetworkEndpoint: TCPFramedConnection] = [:]
    /// Reused by every `receive` (no allocation per datagram).
    private var pollDescriptors: [pollfd] = []
    private var pollPeers: [NetworkEndpoint] = []
    /// Connections accepted and dropped (peer closed, broken framing).
    public private(set) var connectionsAccepted = 0
    public private(set) var connectionsDropped = 0
    /// UDP connectivity checks answered (`STUNBindingCheck`).
    public private(set) var connectivityChecksAnswered = 0

    /// UDP and TCP on `endpoint`'s address (each on a port of its own when the port is 0; else
    /// both on that port); TCP connections get `sendQueueLimit` and `socketBufferBytes`
    /// (`TCPFramedConnection`).
    public init(bindingTo endpoint: NetworkEndpoint = .loopback(port: 0), sendQueueLimit: Int = 256 * 1024,
                socketBufferBytes: Int = 64 * 1024) throws(NetworkError) {
        udp = try UDPSocket(bindingTo: endpoint)
        listener = try TCPFramedListener(bindingTo: endpoint, sendQueueLimit: sendQueueLimit, socketBufferBytes: socketBufferBytes)
        pollDescriptors.reserveCapacity(64)
        pollPeers.reserveCapacity(64)
    }

    /// Where UDP peers send.
    public var localEndpoint: NetworkEndpoint { udp.localEndpoint }
    /// Where TCP peers connect.
    public var tcpEndpoint: NetworkEndpoint { listener.localEndpoint }
    /// Peers connected over TCP now.
    public var tcpPeers: [NetworkEndpoint] { connections.keys.sorted { $0.description < $1.description } }
    /// The connection of a TCP peer (its counters: drops for back-pressure, queued bytes).
    public func connection(for peer: NetworkEndpoint) -> TCPFramedConnection? { connections[peer] }

    /// Whether `peer` is connected over TCP.
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { connections[peer] != nil }

    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard let connection = connections[destination] else {
            try udp.send(bytes, to: destination)
            return
        }
        do {
            try connection.send(bytes, to: destination)
        } catch {
            drop(destination)
            throw error
        }
    }

    /// The next datagram from any peer, UDP or TCP, waiting at most `timeoutMilliseconds` for
    /// something to arrive on any of the sockets (`poll`). A connection's send queue is written out
    /// here too as soon as its socket takes more (`POLLOUT`): a reader that catches up after a
    /// stall gets what waited even when nothing new is sent to it.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        if let datagram = nextBuffered(into: buffer) { return datagram }
        pollDescriptors.removeAll(keepingCapacity: true)
        pollPeers.removeAll(keepingCapacity: true)
        pollDescriptors.append(pollfd(fd: udp.descriptor, events: Int16(POLLIN), revents: 0))
        pollDescriptors.append(pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0))
        for (peer, connection) in connections {
            pollPeers.append(peer)
            let events = connection.queuedBytes > 0 ? Int16(POLLIN) | Int16(POLLOUT) : Int16(POLLIN)
            pollDescriptors.append(pollfd(fd: connection.descriptor, events: events, revents: 0))
        }
        let ready = poll(&pollDescriptors, nfds_t(pollDescriptors.count), timeoutMilliseconds)
        if ready < 0, errno != EINTR { throw .socketFailed(operation: "poll", errno: errno) }
        guard ready > 0 else { return nil }
        for index in pollPeers.indices where pollDescriptors[index + 2].revents & Int16(POLLOUT) != 0 {
            flush(pollPeers[index])
        }
        for index in pollPeers.indices where pollDescriptors[index + 2].revents & ~Int16(POLLOUT) != 0 {
            if let datagram = receive(from: pollPeers[index], into: buffer) { return datagram }
        }
        if pollDescriptors[1].revents != 0 {
            // A new peer's first datagram may have come with its connection.
            for peer in try acceptPending() {
                if let datagram = receive(from: peer, into: buffer) { return datagram }
            }
        }
        if pollDescriptors[0].revents != 0 { return try receiveUDP(into: buffer) }
        return nil
    }

    /// The next UDP datagram that is not a connectivity check; checks met on the way are answered.
    private func receiveUDP(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        while let datagram = try udp.receive(into: buffer, timeoutMilliseconds: 0) {
            // RFC 7983 §7: only a first byte of 0-3 can start STUN (RTP and RTCP start at 128).
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<datagram.count])
            guard STUNBindingCheck.mayBeSTUN(bytes), let answer = STUNBindingCheck.response(to: Array(bytes)[...], from: datagram.from) else { return datagram }
            try? udp.send(answer, to: datagram.from)  // a lost answer is asked for again
            connectivityChecksAnswered += 1
        }
        return nil
    }

    /// A datagram some connection already holds whole (no system call).
    private func nextBuffered(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: NetworkEndpoint)? {
        for (peer, connection) in connections {
            do {
                if let count = try connection.takePacket(into: buffer) { return (count, peer) }
            } catch {
                drop(peer)
                return nil
            }
        }
        return nil
    }

    /// Writes what a connection's queue holds, as far as its socket takes it; a broken one is dropped.
    private func flush(_ peer: NetworkEndpoint) {
        do {
            try connections[peer]?.flush()
        } catch {
            drop(peer)
        }
    }

    /// What a ready connection reads now; a broken one is dropped.
    private func receive(from peer: NetworkEndpoint, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: NetworkEndpoint)? {
        guard let connection = connections[peer] else { return nil }
        do {
            return try connection.receive(into: buffer, timeoutMilliseconds: 0)
        } catch {
            drop(peer)
            return nil
        }
    }

    /// Accepts every waiting connection now; returns their peers (rarely more than one). The
    /// node's owner calls it when it learns of a client's connection out of band, so that nothing
    /// meant for that client goes out over UDP before the next `receive` would have accepted it.
    @discardableResult
    public func acceptPending() throws(NetworkError) -> [NetworkEndpoint] {
        var accepted: [NetworkEndpoint] = []
        while let connection = try listener.accept(timeoutMilliseconds: 0) {
            connections[connection.peer] = connection
            connectionsAccepted += 1
            accepted.append(connection.peer)
        }
        return accepted
    }

    private func drop(_ peer: NetworkEndpoint) {
        if connections.removeValue(forKey: peer) != nil { connectionsDropped += 1 }
    }
}
