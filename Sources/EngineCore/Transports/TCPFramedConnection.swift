import Glibc
import RTPWire

/// Datagrams over one TCP connection, RFC 4571 framed (each packet after its 16-bit length):
/// the transport a publisher, subscriber or node falls back to where UDP is blocked. With
/// `framing` `.stunAndChannelData` it is instead a client's connection to a TURN server (RFC 8656
/// §3.1): messages go as they are (STUN, and ChannelData its sender padded) and come back
/// delimited by their own headers. It is a
/// `DatagramTransport`, so the endpoints run on it unchanged; every datagram goes to (and comes
/// from) the connection's peer.
///
/// Nothing blocks and nothing grows without bound: the socket is non-blocking; what the kernel
/// will not take yet waits in a send queue of at most `sendQueueLimit` bytes (grown as it fills,
/// so an idle connection holds no queue), written out by
/// later sends and `flush()`; a datagram that would overflow it is dropped and counted
/// (`droppedForBackPressure`), as a congestion controller would drop it, rather than queued
/// behind a reader that stopped. Received bytes are reassembled by a `StreamDeframer` (grown only as bytes arrive). A
/// stream that loses its framing (a length above the largest packet) or is closed by the peer
/// ends the connection (`isClosed`); sends and receives then throw. The kernel's own send and
/// receive buffers are kept small too (`socketBufferBytes`, `SO_SNDBUF`/`SO_RCVBUF`): media
/// queued in megabytes of kernel buffer would arrive seconds late. Confined to one thread.
public final class TCPFramedConnection: DatagramTransport {
    public let localEndpoint: NetworkEndpoint
    public let peer: NetworkEndpoint
    /// The most bytes (length prefixes included) waiting for the kernel to take them.
    public let sendQueueLimit: Int
    /// Datagrams dropped because the send queue was full, and their bytes.
    public private(set) var droppedForBackPressure = 0
    public private(set) var droppedBytes = 0
    /// Datagrams sent (queued or written) and received.
    public private(set) var datagramsSent = 0
    public private(set) var datagramsReceived = 0
    /// Received datagrams longer than the caller's buffer (dropped, never cut short).
    public private(set) var truncatedDatagrams = 0
    /// Whether the connection ended (peer closed, error, or lost framing).
    public private(set) var isClosed = false

    let descriptor: Int32
    public let framing: StreamDeframer.Framing
    private var deframer: StreamDeframer
    /// Framed bytes not yet written: `sendQueue[sendStart...]`.
    private var sendQueue: [UInt8] = []
    private var sendStart = 0

    /// Wraps a connected stream socket (non-blocking from now on; closed in deinit).
    init(descriptor: Int32, maximumPacketSize: Int, sendQueueLimit: Int, socketBufferBytes: Int,
         framing: StreamDeframer.Framing = .lengthPrefixed) throws(NetworkError) {
        self.descriptor = descriptor
        self.framing = framing
        self.sendQueueLimit = max(sendQueueLimit, maximumPacketSize + 2)
        deframer = StreamDeframer(maximumPacketSize: maximumPacketSize, framing: framing)
        let flags = fcntl(descriptor, F_GETFL)
        var noDelay: Int32 = 1
        var bufferBytes = Int32(clamping: socketBufferBytes)
        let size = socklen_t(MemoryLayout<Int32>.size)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0,
              setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, size) == 0,
              setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &bufferBytes, size) == 0,
              setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferBytes, size) == 0 else {
            let code = errno
            close(descriptor)
            throw .socketFailed(operation: "fcntl/setsockopt on a TCP connection", errno: code)
        }
        do {
            localEndpoint = try SocketAddressCalls.localEndpoint(of: descriptor).on(.tcp)
            peer = try SocketAddressCalls.peerEndpoint(of: descriptor).on(.tcp)
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit { close(descriptor) }

    /// Connects to `destination` (waiting at most `timeoutMilliseconds`), from `local` if given
    /// (`bind` first: an ICE-TCP active candidate's address, RFC 6544 §5.1).
    public static func connect(to destination: NetworkEndpoint, from local: NetworkEndpoint? = nil, timeoutMilliseconds: Int32 = 2_000,
                               maximumPacketSize: Int = 1500, sendQueueLimit: Int = 256 * 1024,
                               socketBufferBytes: Int = 64 * 1024,
                               framing: StreamDeframer.Framing = .lengthPrefixed) throws(NetworkError) -> TCPFramedConnection {
        let fd = SocketAddressCalls.socket(for: destination, type: Int32(SOCK_STREAM.rawValue))
        guard fd >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        if let local, !SocketAddressCalls.bind(fd, to: local) {
            let code = errno
            close(fd)
            throw .socketFailed(operation: "bind \(local)", errno: code)
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        let started = SocketAddressCalls.connect(fd, to: destination)
        if started != 0 {
            guard errno == EINPROGRESS else {
                let code = errno
                close(fd)
                throw .unreachable(destination: destination.description, errno: code)
            }
            var pollDescriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard poll(&pollDescriptor, 1, timeoutMilliseconds) == 1,
                  getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0 else {
                close(fd)
                throw .unreachable(destination: destination.description, errno: failure == 0 ? ETIMEDOUT : failure)
            }
        }
        return try TCPFramedConnection(descriptor: fd, maximumPacketSize: maximumPacketSize, sendQueueLimit: sendQueueLimit,
                                       socketBufferBytes: socketBufferBytes, framing: framing)
    }

    /// Always: every datagram goes down this one TCP connection.
    public func isReliableStream(to peer: NetworkEndpoint) -> Bool { true }

    /// Bytes waiting in the send queue.
    public var queuedBytes: Int { sendQueue.count - sendStart }

    /// Bytes of memory the connection's receive buffer and send queue hold now (both start empty
    /// and grow with the traffic: an idle connection holds none).
    public var bufferBytes: Int { deframer.allocatedBytes + sendQueue.capacity }

    /// Frames and sends one datagram to the peer (`destination` must have the peer's address and
    /// port; an ICE agent names it without the transport): written now as far as the kernel takes
    /// it, the rest queued; dropped and counted if the queue is full.
    public func send(_ bytes: UnsafeRawBufferPointer, to destination: NetworkEndpoint) throws(NetworkError) {
        guard !isClosed else { throw .unreachable(destination: peer.description, errno: ENOTCONN) }
        guard destination.hasSameAddress(as: peer) else { throw .unreachable(destination: destination.description, errno: EDESTADDRREQ) }
        try flush()
        guard queuedBytes + bytes.count + 2 <= sendQueueLimit else {
            droppedForBackPressure += 1
            droppedBytes += bytes.count
            return
        }
        if sendStart > 0, sendStart == sendQueue.count {
            sendQueue.removeAll(keepingCapacity: true)
            sendStart = 0
        }
        do {
            if framing == .stunAndChannelData {
                sendQueue.append(contentsOf: bytes)  // delimited by its own header (RFC 8656 §3.1)
            } else {
                try StreamFramer.append(bytes, to: &sendQueue)
            }
        } catch {
            throw .socketFailed(operation: "framing a \(bytes.count)-byte datagram (RFC 4571)", errno: EMSGSIZE)
        }
        datagramsSent += 1
        try flush()
    }

    /// Writes as much of the send queue as the kernel takes now.
    public func flush() throws(NetworkError) {
        while sendStart < sendQueue.count {
            let written = sendQueue.withUnsafeBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress! + sendStart, sendQueue.count - sendStart, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                sendStart += written
                continue
            }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
            isClosed = true
            throw .unreachable(destination: peer.description, errno: written < 0 ? errno : EPIPE)
        }
        if sendStart == sendQueue.count, sendStart > 0 {
            sendQueue.removeAll(keepingCapacity: true)
            sendStart = 0
        } else if sendStart > sendQueueLimit / 2 {
            // Keep the queue's storage bounded: move what is left to the front.
            sendQueue.removeFirst(sendStart)
            sendStart = 0
        }
    }

    /// The next datagram from the peer, waiting at most `timeoutMilliseconds` (negative:
    /// forever) for bytes to arrive; nil when no whole datagram is there by then.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMilliseconds: Int32)
        throws(NetworkError) -> (count: Int, from: NetworkEndpoint)? {
        if let count = try takePacket(into: buffer) { return (count, peer) }
        guard !isClosed else { throw .unreachable(destination: peer.description, errno: ECONNRESET) }
        try? flush()  // a receive loop also moves what waits to be sent
        if readAvailable() == 0, timeoutMilliseconds != 0 {
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollDescriptor, 1, timeoutMilliseconds)
            if ready < 0, errno != EINTR { throw .socketFailed(operation: "poll", errno: errno) }
            if ready > 0 { _ = readAvailable() }
        }
        if let count = try takePacket(into: buffer) { return (count, peer) }
        guard !isClosed else { throw .unreachable(destination: peer.description, errno: ECONNRESET) }
        return nil
    }

    /// Reads what the socket has into the deframer; the count read (0: nothing now). A closed
    /// stream or an error ends the connection.
    private func readAvailable() -> Int {
        var failure: Int32 = 0
        let count = deframer.fill { free in
            let read = recv(descriptor, free.baseAddress, free.count, Int32(MSG_DONTWAIT))
            if read < 0 { failure = errno }
            return read == 0 ? -1 : read  // 0 from recv: the peer closed
        }
        if count > 0 { return count }
        if failure == EAGAIN || failure == EWOULDBLOCK || failure == EINTR { return 0 }
        isClosed = true
        return 0
    }

    /// The next whole buffered packet copied into `buffer`, if any (no system call).
    func takePacket(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkError) -> Int? {
        while true {
            let taken: Int?
            do {
                taken = try deframer.nextPacket { packet -> Int in
                    guard packet.count <= buffer.count else { return -1 }
                    buffer.baseAddress!.copyMemory(from: packet.baseAddress!, byteCount: packet.count)
                    return packet.count
                }
            } catch {
                isClosed = true
                throw .socketFailed(operation: "reading an RFC 4571 stream (\(error))", errno: EPROTO)
            }
            guard let count = taken else { return nil }
            if count < 0 {
                truncatedDatagrams += 1
                continue
            }
            datagramsReceived += 1
            return count
        }
    }
}

/// A listening TCP socket for `TCPFramedConnection`s (`listen`/`accept`), closed in deinit.
public final class TCPFramedListener {
    public let localEndpoint: NetworkEndpoint
    let descriptor: Int32
    private let maximumPacketSize: Int
    private let sendQueueLimit: Int
    private let socketBufferBytes: Int

    /// Listens on `endpoint` (port 0 picks a free port); connections get these limits.
    public init(bindingTo endpoint: NetworkEndpoint = .loopback(port: 0), maximumPacketSize: Int = 1500,
                sendQueueLimit: Int = 256 * 1024, socketBufferBytes: Int = 64 * 1024) throws(NetworkError) {
        let fd = SocketAddressCalls.socket(for: endpoint, type: Int32(SOCK_STREAM.rawValue))
        guard fd >= 0 else { throw .socketFailed(operation: "socket", errno: errno) }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        guard SocketAddressCalls.bind(fd, to: endpoint), listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            throw .socketFailed(operation: "bind/listen \(endpoint)", errno: code)
        }
        descriptor = fd
        localEndpoint = try SocketAddressCalls.localEndpointClosingOnFailure(of: fd).on(.tcp)
        self.maximumPacketSize = maximumPacketSize
        self.sendQueueLimit = sendQueueLimit
        self.socketBufferBytes = socketBufferBytes
    }

    deinit { close(descriptor) }

    /// The next connection, waiting at most `timeoutMilliseconds`; nil on timeout.
    public func accept(timeoutMilliseconds: Int32) throws(NetworkError) -> TCPFramedConnection? {
        var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&pollDescriptor, 1, timeoutMilliseconds) > 0 else { return nil }
        let fd = Glibc.accept(descriptor, nil, nil)
        guard fd >= 0 else { throw .socketFailed(operation: "accept", errno: errno) }
        return try TCPFramedConnection(descriptor: fd, maximumPacketSize: maximumPacketSize, sendQueueLimit: sendQueueLimit,
                                       socketBufferBytes: socketBufferBytes)
    }
}
