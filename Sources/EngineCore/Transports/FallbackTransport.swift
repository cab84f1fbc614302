import Glibc
import RTPWire
import SessionCore

/// Which way a client reaches a server that listens on UDP and TCP (`UDPAndTCPTransport`).
public enum TransportPreference: Sendable, Hashable {
    /// UDP first; TCP (RFC 4571 framing) if UDP does not prove itself within the deadline.
    case udpThenTCP
    /// UDP only, whatever happens.
    case udpOnly
    /// TCP only: no UDP socket is ever opened.
    case tcpOnly
}

/// A client's transport to one server that takes peers over UDP and TCP (issue 18, docs/joining-a-room.md
/// `preferredProtocol`). The server is always addressed by its UDP endpoint, so the endpoint on
/// top (a subscriber, a publisher's `SendPath`) is the same whichever way the bytes go.
///
/// With `.udpThenTCP` it sends over UDP at once and checks that UDP gets through: a STUN Binding
/// request (`STUNBindingCheck`) every `checkIntervalMicroseconds` until an answer or any other
/// datagram from the server arrives (`path` becomes `.udp`). If neither comes within
/// `fallbackAfterMicroseconds`, the UDP socket is closed and a TCP connection to the server's
/// TCP endpoint carries everything from then on (`path` `.tcp`, `switchedToTCPAfterMicroseconds`
/// says after how long). `.tcpOnly` connects at once and never opens a UDP socket; `.udpOnly`
/// never checks. UDP, once confirmed, is not checked again, and a TCP connection that breaks is
/// not made again (sends then throw).
///
/// On TCP the first datagram is a STUN Binding request under `credentials` (the ones the server
/// expects from this participant's connection: `STUNBindingCheck`), which proves the connection
/// before the server sends anything down it or takes anything from it; it is sent again every
/// `keepAliveIntervalMicroseconds` so a quiet connection stays proven. Answers to it are taken
/// here, never returned.
///
/// The checks and the switch happen inside `send` and `receive` (no thread of its own): the
/// caller's loop drives them, and the switch's `connect` waits at most 500 ms for the server
/// (a failed one is retried a check interval later). Time comes from the injected clock.
/// Confined to one thread.
public final class FallbackTransport: DatagramTransport {
    public let preference: TransportPreference
    /// The server's UDP endpoint: where every datagram is addressed and where every received one
    /// says it came from.
    public let server: NetworkEndpoint
    /// Where the server accepts TCP connections.
    public let serverTCP: NetworkEndpoint
    /// How long UDP has to prove itself, and how often it is checked meanwhile.
    public let fallbackAfterMicroseconds: Int64
    public let checkIntervalMicroseconds: Int64
    /// How often the credentialed check is sent again on TCP.
    public let keepAliveIntervalMicroseconds: Int64
    /// What proves the TCP connection to the server.
    public let credentials: ICECredentials
    /// The path in use; nil while UDP is not confirmed yet (`.udpThenTCP` only).
    public private(set) var path: TransportPath?
    /// From the start to the TCP connection, when UDP failed (nil otherwise).
    public private(set) var switchedToTCPAfterMicroseconds: Int64?
    /// UDP datagrams sent (connectivity checks included) and the checks alone.
    public private(set) var udpDatagramsSent = 0
    public private(set) var connectivityChecksSent = 0
    /// The last failed attempt to connect over TCP (retried at the next check interval).
    public private(set) var lastConnectFailure: NetworkError?
    /// The TCP connection, once there is one (its counters: back-pressure drops, queued bytes).
    public private(set) var connection: TCPFramedConnection?

    private var udp: UDPSocket?
    private let clock: MediaClock
    private let startMicroseconds: Int64
    private var nextCheckMicroseconds: Int64
    private var nextConnectMicroseconds: Int64 = .min
    private var nextKeepAliveMicroseconds: Int64 = .max
    private let checkTransaction: STUNTransactionID
    private let checkRequest: [UInt8]

    /// - Parameters:
    ///   - server: the server's UDP endpoint; `serverTCP` its TCP one.
    ///   - credentials: what proves a TCP connection to the server (it expects them).
    ///   - local: where the UDP socket is bound (port 0: any free port).
    ///   - random: picks the check's STUN transaction ID.
    /// - Throws: `NetworkError` for the UDP socket, or (`.tcpOnly`) the TCP connection.
    public init(preference: TransportPreference, server: NetworkEndpoint, serverTCP: NetworkEndpoint,
                credentials: ICECredentials, local: NetworkEndpoint = .loopback(port: 0),
                fallbackAfterMilliseconds: Int64 = 2_000, checkIntervalMilliseconds: Int64 = 100,
                keepAliveIntervalMilliseconds: Int64 = 5_000,
                receiveBufferBytes: Int = 1 << 20, clock: MediaClock = .system,
                using random: inout some RandomNumberGenerator) throws(NetworkError) {
        self.preference = preference
        self.server = server.on(.udp)
        self.serverTCP = serverTCP.on(.tcp)
        self.credentials = credentials
        fallbackAfterMicroseconds = max(0, fallbackAfterMilliseconds) * 1000
        checkIntervalMicroseconds = max(1, checkIntervalMilliseconds) * 1000
        keepAliveIntervalMicroseconds = max(1, keepAliveIntervalMilliseconds) * 1000
        self.clock = clock
        startMicroseconds = clock.monotonicMicroseconds()
        nextCheckMicroseconds = startMicroseconds
        checkTransaction = STUNTransactionID.random(using: &random)
        checkRequest = STUNBindingCheck.request(transactionID: checkTransaction)
        switch preference {
        case .tcpOnly:
            let connection = try TCPFramedConnection.connect(to: self.serverTCP)
            self.connection = connection
            path = .tcp
            try prove(connection, now: startMicroseconds)
        case .udpOnly, .udpThenTCP:
            let socket = try UDPSocket(bindingTo: local)
            try socket.setReceiveBufferSize(receiveBufferBytes)
            udp = socket
            path = preference == .udpOnly ? .udp : nil
        }
    }

    /// The UDP socket's address, or the TCP connection's once on TCP (what the server sees).
    public var localEndpoint: NetworkEndpoint {
        connection?.localEndpoint ?? udp?.localEndpoint ?? NetworkEndpoint(address: 0, port: 0)
    }

    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { connection != nil }

    /// Appends the socket an engine loop waits on for this transport (`poll`): the TCP connection
    /// once there is one, else the UDP socket.
    package func appendReadinessDescriptors(to descriptors: inout [Int32]) {
        if let descriptor = connection?.descriptor ?? udp?.descriptor { descriptors.append(descriptor) }
    }

    /// Sends to the server (`destination` must be `server`) on the path in use.
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard destination == server else { throw .unreachable(destination: destination.description, errno: EDESTADDRREQ) }
        advance()
        if let connection {
            try connection.send(bytes, to: connection.peer)
        } else if let udp {
            try udp.send(bytes, to: server)
            udpDatagramsSent += 1
        }
    }

    /// The next datagram from the server on the path in use (answers to the check are taken
    /// here, never returned); its source is always `server` once on TCP.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        advance()
        if let connection {
            var timeout = timeoutMilliseconds
            while let received = try connection.receive(into: buffer, timeoutMilliseconds: timeout) {
                // RFC 7983 §7: the answer to the credentialed check (first byte 0-3), not for the endpoint on top.
                guard received.count > 0, buffer[0] <= 3 else { return (received.count, server) }
                timeout = 0
            }
            return nil
        }
        guard let udp else { return nil }
        var timeout = timeoutMilliseconds
        while let received = try udp.receive(into: buffer, timeoutMilliseconds: timeout) {
            guard received.from == server, received.count > 0 else { return received }  // the endpoint on top counts these
            // RFC 7983 §7: a first byte of 0-3 is STUN (SRTP and SRTCP start at 128): the answer
            // to a check (or a late one to a repeated check), never for the endpoint on top.
            if buffer[0] <= 3 {
                if path == nil {
                    let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<received.count])
                    if STUNBindingCheck.mayBeSTUN(bytes), STUNBindingCheck.isSuccess(Array(bytes)[...], answering: checkTransaction) {
                        path = .udp
                    }
                }
                timeout = 0
                continue
            }
            if path == nil { path = .udp }  // media or feedback from the server: UDP works
            return received
        }
        return nil
    }

    /// Checks UDP while it is unconfirmed, switches to TCP when the deadline has passed, and
    /// keeps a TCP connection proven.
    private func advance() {
        if let connection {
            let now = clock.monotonicMicroseconds()
            if now >= nextKeepAliveMicroseconds { try? prove(connection, now: now) }  // a broken connection throws at the next send
            return
        }
        guard path == nil, let udp else { return }
        let now = clock.monotonicMicroseconds()
        if now - startMicroseconds >= fallbackAfterMicroseconds {
            guard now >= nextConnectMicroseconds else { return }
            do {
                let connection = try TCPFramedConnection.connect(to: serverTCP, timeoutMilliseconds: 500)
                self.connection = connection
                self.udp = nil  // closes the UDP socket: nothing more goes that way
                path = .tcp
                switchedToTCPAfterMicroseconds = now - startMicroseconds
                try prove(connection, now: now)
            } catch {
                lastConnectFailure = error
                nextConnectMicroseconds = now + checkIntervalMicroseconds
            }
            return
        }
        guard now >= nextCheckMicroseconds else { return }
        nextCheckMicroseconds = now + checkIntervalMicroseconds
        _ = try? udp.send(checkRequest, to: server)  // a lost check is sent again
        udpDatagramsSent += 1
        connectivityChecksSent += 1
    }

    /// Sends the credentialed check down the connection (before anything else on a new one).
    private func prove(_ connection: TCPFramedConnection, now: Int64) throws(NetworkError) {
        nextKeepAliveMicroseconds = now + keepAliveIntervalMicroseconds
        try connection.send(STUNBindingCheck.request(transactionID: checkTransaction, credentials: credentials)[...], to: connection.peer)
        connectivityChecksSent += 1
    }
}
