import CShims
import Glibc
import RTPWire
import SessionCore

/// A server's transport that takes peers over UDP and over TCP (RFC 4571 framing) at once, so
/// one forwarding node serves subscribers and publishers whichever way they reach it (issue 18:
/// where UDP is blocked, TCP still works; one room mixes both).
///
/// A peer is its address, its port and its transport (`NetworkEndpoint.transport`): a TCP
/// connection from a UDP peer's address and port is another peer and takes nothing meant for
/// it. A TCP peer must also prove who it is before anything is sent to it or taken from it: its
/// first datagram is a STUN Binding request with USERNAME and MESSAGE-INTEGRITY under credentials
/// the server expects (`expectConnection(from:)`, given to the participant when it joined;
/// `STUNBindingCheck`), as an ICE check does. Until then its datagrams are dropped and sends to it
/// refused (`NetworkError.noConsent`). The owner learns which connection proved which credentials
/// (`verifiedPeer(usernameFragment:)`) and points the node there.
///
/// What strangers can make it hold is bounded (`TCPPeerLimits`): connections at once, unproven
/// ones at once (the oldest goes first), time to prove, time silent once proven; connection
/// buffers grow only as bytes arrive; when `accept` fails for want of descriptors the listener
/// rests a while and UDP and the connections are served meanwhile. UDP STUN Binding requests are
/// answered here (`STUNBindingCheck`): a client's check that UDP gets through, never handed to the
/// node. Time comes from the injected clock. Confined to one thread.
public final class UDPAndTCPTransport: DatagramTransport {
    public let udp: UDPSocket
    public let listener: TCPFramedListener
    public let limits: TCPPeerLimits
    /// What the TCP side did (accepted, verified, closed and why, dropped).
    public private(set) var tcpCounters = TCPPeerCounters()
    /// UDP connectivity checks answered (`STUNBindingCheck`).
    public private(set) var connectivityChecksAnswered = 0

    private struct Peer {
        let connection: TCPFramedConnection
        /// The username fragment its check proved; nil until then.
        var verifiedAs: String?
        let acceptedMilliseconds: Int64
        var lastDatagramMilliseconds: Int64
    }

    private var connections: [NetworkEndpoint: Peer] = [:]
    /// Credentials a connection may prove, by username fragment, and the connection that did.
    private var expected: [String: ICECredentials] = [:]
    private var verifiedPeers: [String: NetworkEndpoint] = [:]
    private let clock: MediaClock
    private var acceptResumesMilliseconds: Int64 = .min
    private var nextExpiryMilliseconds: Int64 = .min
    /// Which side is read first when both are ready: alternates, so neither starves the other.
    private var udpFirst = true
    /// With a probe, each UDP send is timed from the arrival of the UDP datagram `receive`
    /// returned last (`ForwardLatencyProbe`); the socket then stamps arrivals.
    package var forwardLatency: ForwardLatencyProbe? {
        didSet { if forwardLatency != nil { try? udp.enableReceiveTimestamps() } }
    }
    /// When the datagram being handled arrived (0: none, or not over UDP).
    private var handledArrivalNanoseconds: Int64 = 0
    /// Reused by every `receive` (no allocation per datagram).
    private var pollDescriptors: [pollfd] = []
    private var pollPeers: [NetworkEndpoint] = []

    /// UDP and TCP on `endpoint`'s address (each on a port of its own when the port is 0; else
    /// both on that port); TCP connections get `sendQueueLimit` and `socketBufferBytes`
    /// (`TCPFramedConnection`) and `limits`.
    public init(bindingTo endpoint: NetworkEndpoint = .loopback(port: 0), sendQueueLimit: Int = 256 * 1024,
                socketBufferBytes: Int = 64 * 1024, limits: TCPPeerLimits = TCPPeerLimits(),
                clock: MediaClock = .system) throws(NetworkError) {
        udp = try UDPSocket(bindingTo: endpoint.on(.udp))
        listener = try TCPFramedListener(bindingTo: endpoint.on(.tcp), sendQueueLimit: sendQueueLimit, socketBufferBytes: socketBufferBytes)
        self.limits = limits
        self.clock = clock
        pollDescriptors.reserveCapacity(64)
        pollPeers.reserveCapacity(64)
    }

    /// Where UDP peers send.
    public var localEndpoint: NetworkEndpoint { udp.localEndpoint }
    /// Where TCP peers connect.
    public var tcpEndpoint: NetworkEndpoint { listener.localEndpoint }
    /// Peers connected over TCP now that have proven themselves.
    public var tcpPeers: [NetworkEndpoint] {
        connections.filter { $0.value.verifiedAs != nil }.keys.sorted { $0.description < $1.description }
    }
    /// Connections held now, proven or not.
    public var connectionCount: Int { connections.count }
    /// Appends the sockets an engine loop waits on for this transport (`poll`): UDP, the listener
    /// unless accepting rests after a descriptor shortage, and every connection.
    package func appendReadinessDescriptors(to descriptors: inout [Int32]) {
        descriptors.append(udp.descriptor)
        if clock.monotonicMicroseconds() / 1000 >= acceptResumesMilliseconds { descriptors.append(listener.descriptor) }
        for peer in connections.values { descriptors.append(peer.connection.descriptor) }
    }

    /// The connection of a TCP peer (its counters: drops for back-pressure, queued bytes).
    public func connection(for peer: NetworkEndpoint) -> TCPFramedConnection? { connections[peer.on(.tcp)]?.connection }

    // MARK: - Credentials

    /// A connection that proves `credentials` (its first STUN check) becomes a peer; the
    /// participant they were made for connects with them (`FallbackTransport`).
    public func expectConnection(from credentials: ICECredentials) {
        expected[credentials.usernameFragment] = credentials
    }

    /// The credentials are no longer good: the connection that proved them (if any) is closed.
    public func forgetConnection(usernameFragment: String) {
        expected[usernameFragment] = nil
        if let peer = verifiedPeers.removeValue(forKey: usernameFragment) { close(peer) }
    }

    /// The TCP peer whose check proved the credentials with this username fragment, while it
    /// is connected.
    public func verifiedPeer(usernameFragment: String) -> NetworkEndpoint? { verifiedPeers[usernameFragment] }

    // MARK: - Datagrams

    /// Whether `peer` is a proven TCP connection.
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool {
        peer.transport == .tcp && connections[peer]?.verifiedAs != nil
    }

    /// Sends over UDP to a UDP destination; down its connection to a TCP one that has proven
    /// itself (`.noConsent` for any other TCP destination: nothing goes to a stranger).
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard destination.transport == .tcp else {
            try udp.send(bytes, to: destination)
            if handledArrivalNanoseconds > 0, let forwardLatency {
                forwardLatency.record(nanoseconds: cshim_realtime_nanoseconds() - handledArrivalNanoseconds)
            }
            return
        }
        guard let peer = connections[destination], peer.verifiedAs != nil else {
            tcpCounters.sendsRefused += 1
            throw .noConsent(destination: destination.description)
        }
        do {
            try peer.connection.send(bytes, to: destination)
        } catch {
            tcpCounters.broken += 1
            close(destination)
            throw error
        }
    }

    /// The next datagram from any peer, UDP or proven TCP, waiting at most `timeoutMilliseconds`
    /// for something to arrive on any of the sockets (`poll`). A connection's send queue is
    /// written out here too as soon as its socket takes more (`POLLOUT`): a reader that catches
    /// up after a stall gets what waited even when nothing new is sent to it. Connections'
    /// checks are handled here, and connections past their limits are closed.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        handledArrivalNanoseconds = 0
        let now = clock.monotonicMicroseconds() / 1000
        closeExpired(now: now)
        if let datagram = nextBuffered(into: buffer, now: now) { return datagram }
        // Datagrams the UDP socket took in its last batch (`recvmmsg`) go first, without a poll.
        if udp.hasBatchedDatagrams, let datagram = try receiveUDP(into: buffer) { return datagram }
        let listening = now >= acceptResumesMilliseconds
        pollDescriptors.removeAll(keepingCapacity: true)
        pollPeers.removeAll(keepingCapacity: true)
        pollDescriptors.append(pollfd(fd: udp.descriptor, events: Int16(POLLIN), revents: 0))
        pollDescriptors.append(pollfd(fd: listening ? listener.descriptor : -1, events: Int16(POLLIN), revents: 0))
        for (endpoint, peer) in connections {
            pollPeers.append(endpoint)
            let events = peer.connection.queuedBytes > 0 ? Int16(POLLIN) | Int16(POLLOUT) : Int16(POLLIN)
            pollDescriptors.append(pollfd(fd: peer.connection.descriptor, events: events, revents: 0))
        }
        var timeout = timeoutMilliseconds
        if !listening, timeout != 0 {
            // Wake when the listener may be served again.
            let rest = Int32(clamping: max(1, acceptResumesMilliseconds - now))
            timeout = timeout < 0 ? rest : min(timeout, rest)
        }
        let ready = poll(&pollDescriptors, nfds_t(pollDescriptors.count), timeout)
        if ready < 0, errno != EINTR { throw .socketFailed(operation: "poll", errno: errno) }
        guard ready > 0 else { return nil }
        let after = clock.monotonicMicroseconds() / 1000
        udpFirst.toggle()
        if udpFirst, pollDescriptors[0].revents != 0, let datagram = try receiveUDP(into: buffer) { return datagram }
        for index in pollPeers.indices where pollDescriptors[index + 2].revents & Int16(POLLOUT) != 0 {
            flush(pollPeers[index])
        }
        for index in pollPeers.indices where pollDescriptors[index + 2].revents & ~Int16(POLLOUT) != 0 {
            if let datagram = receive(from: pollPeers[index], into: buffer, now: after) { return datagram }
        }
        if listening, pollDescriptors[1].revents != 0 {
            // A new peer's check (and perhaps its first datagram) may have come with its connection.
            for endpoint in acceptPending(now: after) {
                if let datagram = receive(from: endpoint, into: buffer, now: after) { return datagram }
            }
        }
        if !udpFirst, pollDescriptors[0].revents != 0 { return try receiveUDP(into: buffer) }
        return nil
    }

    /// The next UDP datagram that is not a connectivity check; checks met on the way are answered.
    private func receiveUDP(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        while let datagram = try udp.receive(into: buffer, timeoutMilliseconds: 0) {
            // RFC 7983 §7: only a first byte of 0-3 can start STUN (RTP and RTCP start at 128).
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<datagram.count])
            guard STUNBindingCheck.mayBeSTUN(bytes), let answer = STUNBindingCheck.response(to: Array(bytes)[...], from: datagram.from) else {
                handledArrivalNanoseconds = udp.lastArrivalNanoseconds
                return datagram
            }
            try? udp.send(answer, to: datagram.from)  // a lost answer is asked for again
            connectivityChecksAnswered += 1
        }
        return nil
    }

    /// A datagram some connection already holds whole (no system call).
    private func nextBuffered(into buffer: UnsafeMutableRawBufferPointer, now: Int64) -> (count: Int, from: NetworkEndpoint)? {
        for endpoint in connections.keys {
            while true {
                guard let peer = connections[endpoint] else { break }
                let count: Int?
                do {
                    count = try peer.connection.takePacket(into: buffer)
                } catch {
                    tcpCounters.broken += 1
                    close(endpoint)
                    break
                }
                guard let count else { break }
                if admit(count, in: buffer, from: endpoint, now: now) { return (count, endpoint) }
            }
        }
        return nil
    }

    /// Writes what a connection's queue holds, as far as its socket takes it; a broken one is closed.
    private func flush(_ endpoint: NetworkEndpoint) {
        do {
            try connections[endpoint]?.connection.flush()
        } catch {
            tcpCounters.broken += 1
            close(endpoint)
        }
    }

    /// What a ready connection reads now that is for the node; a broken one is closed.
    private func receive(from endpoint: NetworkEndpoint, into buffer: UnsafeMutableRawBufferPointer,
                         now: Int64) -> (count: Int, from: NetworkEndpoint)? {
        // Bounded: a stranger that writes as fast as it is read cannot keep the loop here.
        for _ in 0..<64 {
            guard let peer = connections[endpoint] else { return nil }
            do {
                guard let received = try peer.connection.receive(into: buffer, timeoutMilliseconds: 0) else { return nil }
                if admit(received.count, in: buffer, from: endpoint, now: now) { return (received.count, endpoint) }
            } catch {
                tcpCounters.broken += 1
                close(endpoint)
                return nil
            }
        }
        return nil
    }

    /// Whether a datagram from a connection goes to the node: a STUN check is handled here (it
    /// proves the connection, or closes it), anything else passes only from a proven connection.
    private func admit(_ count: Int, in buffer: UnsafeMutableRawBufferPointer, from endpoint: NetworkEndpoint, now: Int64) -> Bool {
        guard var peer = connections[endpoint] else { return false }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        if STUNBindingCheck.mayBeSTUN(bytes) {
            check(Array(bytes)[...], from: endpoint, peer, now: now)
            return false
        }
        guard peer.verifiedAs != nil else {
            tcpCounters.unverifiedDatagramsDropped += 1
            return false
        }
        peer.lastDatagramMilliseconds = now
        connections[endpoint] = peer
        return true
    }

    /// A connection's STUN check: one that verifies proves the connection (or keeps a proven one
    /// alive) and is answered; any other closes it.
    private func check(_ datagram: ArraySlice<UInt8>, from endpoint: NetworkEndpoint, _ peer: Peer, now: Int64) {
        guard let proof = STUNBindingCheck.verifiedUsername(of: datagram, password: { expected[$0]?.password }),
              let credentials = expected[proof.usernameFragment],
              peer.verifiedAs == nil || peer.verifiedAs == proof.usernameFragment else {
            tcpCounters.failedChecks += 1
            close(endpoint)
            return
        }
        var peer = peer
        if peer.verifiedAs == nil {
            peer.verifiedAs = proof.usernameFragment
            tcpCounters.verified += 1
            // The same credentials proven again on a new connection: the old one is done.
            if let previous = verifiedPeers[proof.usernameFragment], previous != endpoint { close(previous) }
            verifiedPeers[proof.usernameFragment] = endpoint
        }
        peer.lastDatagramMilliseconds = now
        connections[endpoint] = peer
        let answer = STUNBindingCheck.response(answering: proof.transactionID, from: endpoint, credentials: credentials)
        do {
            try peer.connection.send(answer[...], to: endpoint)
        } catch {
            tcpCounters.broken += 1
            close(endpoint)
        }
    }

    /// Accepts every waiting connection within the limits; returns their peers. When `accept`
    /// fails for want of descriptors or memory, the listener rests for `acceptBackoffMilliseconds`
    /// and the oldest unproven connection is closed to give a descriptor back.
    private func acceptPending(now: Int64) -> [NetworkEndpoint] {
        var accepted: [NetworkEndpoint] = []
        while true {
            let connection: TCPFramedConnection
            do {
                guard let next = try listener.accept(timeoutMilliseconds: 0) else { break }
                connection = next
            } catch {
                tcpCounters.acceptFailures += 1
                if case let .socketFailed(_, code) = error, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code) {
                    tcpCounters.acceptFailuresForResources += 1
                    if closeOldestUnverified() { tcpCounters.evictedUnverified += 1 }
                }
                acceptResumesMilliseconds = now + limits.acceptBackoffMilliseconds
                break
            }
            tcpCounters.accepted += 1
            guard connections.count < limits.maximumConnections else {
                tcpCounters.refusedOverCap += 1
                continue  // closed as it goes out of scope
            }
            if connections.values.count(where: { $0.verifiedAs == nil }) >= limits.maximumUnverifiedConnections,
               closeOldestUnverified() {
                tcpCounters.evictedUnverified += 1
            }
            connections[connection.peer] = Peer(connection: connection, verifiedAs: nil, acceptedMilliseconds: now,
                                                lastDatagramMilliseconds: now)
            accepted.append(connection.peer)
        }
        return accepted
    }

    /// Closes connections that did not prove themselves in time, and proven ones gone silent
    /// (checked every 100 ms at most).
    private func closeExpired(now: Int64) {
        guard now >= nextExpiryMilliseconds else { return }
        nextExpiryMilliseconds = now + 100
        for (endpoint, peer) in connections {
            if peer.verifiedAs == nil, now - peer.acceptedMilliseconds >= limits.verificationTimeoutMilliseconds {
                tcpCounters.verificationTimeouts += 1
                close(endpoint)
            } else if peer.verifiedAs != nil, now - peer.lastDatagramMilliseconds >= limits.idleTimeoutMilliseconds {
                tcpCounters.idleTimeouts += 1
                close(endpoint)
            }
        }
    }

    /// Closes the unproven connection accepted first; false when there is none.
    private func closeOldestUnverified() -> Bool {
        guard let oldest = connections.filter({ $0.value.verifiedAs == nil })
            .min(by: { $0.value.acceptedMilliseconds < $1.value.acceptedMilliseconds })?.key else { return false }
        close(oldest)
        return true
    }

    private func close(_ endpoint: NetworkEndpoint) {
        guard let peer = connections.removeValue(forKey: endpoint) else { return }
        if let username = peer.verifiedAs, verifiedPeers[username] == endpoint { verifiedPeers[username] = nil }
    }
}
